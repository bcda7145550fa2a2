/**
 * Issue 31, item 46's third try (twelfth pass; kept in the fourth, which tries a rebase again every 10 s): the shards of one batch on ONE service with a queue and no limit must not
 * rebase on each other's queue. The gated try (branch item46-gated, a6b8552: rebase when the round trip did not fall by a
 * tenth as the limit halved, down at 2 in flight) still did on these machines: a shard with the fastest base shrinks to 2
 * while shards started into the queue hold it (under 1.5x their own base); halving from 4 to 2 moves a queue of 25-30 by
 * 2 requests, under a tenth, so it rebased, grew, pushed the others over their 1.5x, and each rebased higher in turn
 * (4 together, 8 workers of 50 ms: 199 -> 250-499 ms; 4 workers of 100 ms: 599 -> 799-1,399 ms). Now the round trip must
 * hold within 5% while the limit falls to a quarter: the others' queue moves as they come down. On the simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { simulateSenders, type Service } from './pace-sim.js';

/** `workers` workers of `serviceMs` behind one FIFO queue, 25 ms each way; round trips of requests sent from 30 s. */
function sharedQueue(workers: number, serviceMs: number): { service: Service; median: () => number } {
  const free = new Array<number>(workers).fill(0);
  const roundTrips: number[] = [];
  const service: Service = (t) => {
    const worker = free.indexOf(Math.min(...free));
    const done = Math.max(t + 25, free[worker]!) + serviceMs;
    free[worker] = done;
    if (t >= 30_000) roundTrips.push(done + 25 - t);
    return { at: done + 25, answer: Answer.Accepted };
  };
  return { service, median: () => roundTrips.sort((a, b) => a - b)[roundTrips.length >> 1]! };
}

/** The median wait per row of 4 shards started `apartMs` apart, from 30 s to 120 s. */
function shards(workers: number, serviceMs: number, apartMs: number, seed: number): number {
  const { service, median } = sharedQueue(workers, serviceMs);
  const plans = [0, 1, 2, 3].map((i) => ({ rows: 1e9, startAt: apartMs * i }));
  simulateSenders(service, plans, { loaded: true, seed, limitMs: 120_000 });
  return median();
}

describe('shards on one queue do not take each other’s queue for a service slower for everyone', () => {
  // Before item 46 (main, 0329b23), these machines' medians; the gated try's in the comment.
  it.each([
    [2, 199], // gated: 250
    [6, 199], // 399
    [9, 199], // 447
    [12, 200], // 499
    [15, 199], // 498
  ])('4 together, 8 workers of 50 ms, loaded machine %i: each row waits no longer than before (%i ms)', (seed, before) => {
    expect(shards(8, 50, 0, seed)).toBeLessThanOrEqual(1.1 * before);
  });
  it.each([
    [4, 300], // 649
    [8, 300], // 599
    [15, 199], // 699
  ])('4 shards 5 s apart, 8 workers of 50 ms, loaded machine %i: no longer than before (%i ms)', (seed, before) => {
    expect(shards(8, 50, 5_000, seed)).toBeLessThanOrEqual(1.1 * before);
  });
  it.each([
    [3, 599], // 1,099
    [9, 599], // 1,399
  ])('4 together, 4 workers of 100 ms, loaded machine %i: no longer than before (%i ms)', (seed, before) => {
    expect(shards(4, 100, 0, seed)).toBeLessThanOrEqual(1.1 * before);
  });
});

describe('one stalled window does not hide a service slower for everyone', () => {
  it('8 workers of 50 ms from 3 s (bench-pace-conn), loaded machine 26: 85% of 160/s from 20 s', () => {
    const free = new Array<number>(8).fill(0);
    let accepted = 0;
    const service: Service = (t) => {
      if (t < 3_000) return { at: t + 50, answer: Answer.Accepted };
      const worker = free.indexOf(Math.min(...free));
      free[worker] = Math.max(t + 25, free[worker]!) + 50;
      if (t >= 20_000) accepted++;
      return { at: free[worker]! + 25, answer: Answer.Accepted };
    };
    simulateSenders(service, [{ rows: 1e9 }], { loaded: true, seed: 26, limitMs: 30_000 });
    // Judged on one window, a 108 ms window among 101 ms ones (the machine) restarted the count at 2.4 in flight: one at a time, 10 rows/s.
    expect(accepted / 10).toBeGreaterThan(0.85 * 160);
  });
});

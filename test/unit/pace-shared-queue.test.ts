/**
 * Issue 31, the eleventh pass's review of item 46 (reverted; docs/pace.md): the shards of one batch on ONE service
 * with a queue and no limit (8 workers of 50 ms behind a FIFO queue that never refuses, 25 ms away) must not take
 * each other's queue for a service slower for everyone. Item 46 rebased on it, shard after shard, and the wait per
 * row went from about 200 ms to 300-900 ms for good (5 s apart, a minute in), for no rows/s. On the simulated clock; no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { simulateSenders, type Service } from './pace-sim.js';

/** `workers` workers of `serviceMs` behind one FIFO queue, 25 ms each way; round trips of requests sent from `fromMs`. */
function sharedQueue(workers: number, serviceMs: number, fromMs: number): { service: Service; roundTrips: number[] } {
  const free = new Array<number>(workers).fill(0);
  const roundTrips: number[] = [];
  const service: Service = (t) => {
    const arrival = t + 25;
    const worker = free.indexOf(Math.min(...free));
    const done = Math.max(arrival, free[worker]!) + serviceMs;
    free[worker] = done;
    if (t >= fromMs) roundTrips.push(done + 25 - t);
    return { at: done + 25, answer: Answer.Accepted };
  };
  return { service, roundTrips };
}

describe('four shards 5 s apart on one service with a queue and no limit', () => {
  it.each([42, 1, 2, 3])('seed %i: the shared queue stays short (each row waits well under a second)', (seed) => {
    const { service, roundTrips } = sharedQueue(8, 50, 60_000);
    const plans = [0, 1, 2, 3].map((i) => ({ rows: 1e9, startAt: 5_000 * i }));
    const results = simulateSenders(service, plans, { loaded: seed !== 42, seed, limitMs: 120_000 });
    const accepted = results.reduce((n, r) => n + r.acceptedAt.filter((t) => t >= 60_000).length, 0);
    roundTrips.sort((a, b) => a - b);
    // 160 rows/s is what 8 workers of 50 ms take; the queue needs no more than a few requests each.
    expect(accepted / 60).toBeGreaterThan(150);
    // From 60 s to 120 s: a median of 148-200 ms on these machines; with item 46 300-900 ms.
    expect(roundTrips[roundTrips.length >> 1]).toBeLessThan(260);
  });
});

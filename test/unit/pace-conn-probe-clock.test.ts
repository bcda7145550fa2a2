/**
 * Issue 31, review46d's H1 and review14b's K1: shards of one batch rebased on a service slower for everyone (item 46) share
 * one queue. One shard's probe (3/4 of its count for two windows) drains only its own part of it: after the slow spell the
 * others' queue kept its round trip near the one rebased on, every probe confirmed the rebase, and the shards held the
 * spell's queue for good (7948296: 4 shards together 213-359 ms a row on 16 workers of 20 ms whose round trip is 70 ms).
 * Probes now also start on the clock's 10 s boundaries: shards of one machine drain together (BBR's ProbeRTTs fall in step
 * the same way) and see the queue was theirs. On the clock alone (2bce2b4), shards on different machines lost the step
 * their rebases at one moment gave them (K1: 319-400 ms); probes every 10 s from the rebase stay. A FIFO service, 25 ms
 * each way, 200 ms more on every answer from 15 s to 45 s. Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { simulateSenders, type Service } from './pace-sim.js';

const median = (xs: number[]) => xs.sort((p, q) => p - q)[xs.length >> 1]!;

/** Workers of `serviceMs` behind one FIFO queue; 200 ms more from 15 to 45 s; round trips and rows per shard from 65 to 125 s. */
function spell(workers: number, serviceMs: number, shards: number) {
  const free = new Array<number>(workers).fill(0);
  const [roundTrips, rows] = [[] as number[], new Array<number>(shards).fill(0)];
  const service: Service = (t, who) => {
    const arrival = t + 25;
    const worker = free.indexOf(Math.min(...free));
    free[worker] = Math.max(arrival, free[worker]!) + serviceMs;
    const at = free[worker]! + 25 + (arrival >= 15_000 && arrival < 45_000 ? 200 : 0);
    if (t >= 65_000 && t < 125_000) [roundTrips[roundTrips.length], rows[who]] = [at - t, rows[who]! + 1];
    return { at, answer: Answer.Accepted };
  };
  return { service, roundTrips, rows };
}

/** Shards on different machines: each its own clock, ahead by 0-10 s (as review14b's K1 drew them). */
const clocks = (seed: number, shards: number) => Array.from({ length: shards }, (_, i) => (seed * 7919 + i * 3571) % 10_000);

describe('shards rebased on a slow spell drain together, and see the queue was theirs (review46d H1, review14b K1)', () => {
  it.each([42, 1, 2, 3])('4 shards together, 16 workers of 20 ms, one machine %i: median round trip from 65 s under 150 ms', (seed) => {
    const { service, roundTrips } = spell(16, 20, 4);
    const plans = Array.from({ length: 4 }, () => ({ rows: 1e9 }));
    simulateSenders(service, plans, { loaded: seed !== 42, seed, limitMs: 125_000 });
    expect(roundTrips.length).toBeGreaterThan(10_000);
    expect(median(roundTrips)).toBeLessThan(150);
  });
  it.each([42, 5])('4 shards together, 16 workers of 20 ms, four machines %i: median round trip from 65 s under 150 ms', (seed) => {
    const { service, roundTrips } = spell(16, 20, 4);
    const plans = Array.from({ length: 4 }, () => ({ rows: 1e9 }));
    simulateSenders(service, plans, { loaded: seed !== 42, seed, limitMs: 125_000, clockOffsetsMs: clocks(seed, 4) });
    expect(median(roundTrips)).toBeLessThan(150);
  });
  it.each([42, 11])('2 shards together, 8 workers of 50 ms, two machines %i: median round trip from 65 s under 200 ms', (seed) => {
    const { service, roundTrips } = spell(8, 50, 2);
    simulateSenders(service, [{ rows: 1e9 }, { rows: 1e9 }], {
      loaded: seed !== 42,
      seed,
      limitMs: 125_000,
      clockOffsetsMs: clocks(seed, 2),
    });
    expect(median(roundTrips)).toBeLessThan(200);
  });
});

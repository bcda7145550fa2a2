/**
 * Issue 31, review46d's H1 and G4: shards of one batch rebased on a service slower for everyone (item 46) share one queue.
 * One shard's probe (3/4 of its count for two windows) drains only its own part of that queue: after the slow spell the
 * others' queue kept its round trip near the one rebased on, every probe confirmed the rebase, and the shards held the
 * spell's queue for good (7948296: 4 shards together 296-319 ms a row on 16 workers of 20 ms whose round trip is 70 ms),
 * or one shard kept it all and the other sat at one in flight (2 shards: 0.05 of the other's rows). Probes now start on the
 * clock's 10 s boundaries: shards of one machine drain together (BBR's ProbeRTT synchronises flows the same way) and see
 * the queue was theirs. A FIFO service, 25 ms each way, 200 ms more on every answer from 15 s to 45 s. Simulated clock.
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

describe('shards rebased on a slow spell drain together, and see the queue was theirs (review46d H1, G4)', () => {
  it.each([42, 1, 2, 3])('4 shards together, 16 workers of 20 ms, machine %i: median round trip from 65 s under 150 ms', (seed) => {
    const { service, roundTrips } = spell(16, 20, 4);
    const plans = Array.from({ length: 4 }, () => ({ rows: 1e9 }));
    simulateSenders(service, plans, { loaded: seed !== 42, seed, limitMs: 125_000 });
    expect(roundTrips.length).toBeGreaterThan(10_000);
    expect(median(roundTrips)).toBeLessThan(150);
  });
  it.each([42, 1, 2, 3])('2 shards together, 8 workers of 50 ms, machine %i: from 65 s each sends at least 0.3 of the other', (seed) => {
    const { service, roundTrips, rows } = spell(8, 50, 2);
    simulateSenders(service, [{ rows: 1e9 }, { rows: 1e9 }], { loaded: seed !== 42, seed, limitMs: 125_000 });
    expect(median(roundTrips)).toBeLessThan(160);
    expect(Math.min(...rows) / Math.max(...rows)).toBeGreaterThan(0.3);
  });
});

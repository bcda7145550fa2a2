/**
 * Issue 31, review46d's G1: item 46's probe must see a queue of our own at any size of spell, not only at 300 ms (where
 * --max-concurrency 64 x 1/160 s = the round trip rebased on). 8 workers of 50 ms behind a FIFO queue, 25 ms each way;
 * 100 or 200 ms more on every answer from 5 s to 35 s (one sender) or 15 s to 45 s (two shards together). After the spell
 * the median round trip must come back near the unloaded one (ffd19c9: ~140-150 ms; 3aa87b2: 299-400 ms on these
 * machines, for good). On the simulated clock; no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { simulateSenders, slowSpell } from './pace-sim.js';

const median = (xs: number[]) => xs.sort((p, q) => p - q)[xs.length >> 1]!;

describe('after a slow spell of any size, no queue of ours is kept (review46d G1)', () => {
  it.each([
    [200, 42],
    [200, 4],
    [200, 5],
    [200, 7],
    [200, 8],
    [100, 1],
    [100, 18],
  ])('one sender, %i ms more for 30 s, machine %i: median round trip from 55 s under 225 ms', (more, seed) => {
    const { service, roundTrips } = slowSpell(more, [5_000, 35_000], [55_000, 115_000]);
    simulateSenders(service, [{ rows: 1e9 }], { loaded: seed !== 42, seed, limitMs: 115_000 });
    expect(roundTrips.length).toBeGreaterThan(1_000);
    expect(median(roundTrips)).toBeLessThan(225);
  });
  it.each([42, 1, 2, 3])('two shards together, 200 ms more for 30 s, machine %i: median round trip from 65 s under 225 ms', (seed) => {
    const { service, roundTrips } = slowSpell(200, [15_000, 45_000], [65_000, 125_000]);
    simulateSenders(service, [{ rows: 1e9 }, { rows: 1e9 }], { loaded: seed !== 42, seed, limitMs: 125_000 });
    expect(median(roundTrips)).toBeLessThan(225);
  });
});

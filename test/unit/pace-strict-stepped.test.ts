/**
 * review15a F1: a strict limit of 60-200/s (not held under the round trip) whose path steps up (50 -> 120 ms) fell to one in flight for
 * good, 8 rows/s of 100, with no push-back. A round trip that a slow run reached in its first 2 s, after 10 s at the base, and still
 * holds at one in flight 12 windows on, is a path: one sender takes it as its base. Others' queue found as the batch starts is no step:
 * pace-strict-grown-others (review15a F4, a steady other client). Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { perSecondFrom, simulateSenders, strictGrowing } from './pace-sim.js';

describe('F1: a strict limit not held, whose path steps up', () => {
  for (const [perSecond, overMs, blip] of [
    [100, 0, false],
    [100, 1_000, false],
    [60, 1_000, false],
    [100, 0, true],
  ] as const) {
    // A blip (the path slow for 300 ms, as a real loaded path's tail gives) 5 s before the step is no slow spell (real nginx: 14%).
    const before: [number, number, number][] = blip
      ? [
          [15_000, 60, 0],
          [15_300, 25, 0],
        ]
      : [];
    it(`strict ${perSecond}/s, 25 -> 60 ms each way at 20 s${overMs ? ' over 1 s' : ''}${blip ? ', a 300 ms blip at 15 s' : ''}: from 30 s on, at least 60% of it`, () => {
      for (const seed of [42, 1, 2, 3, 4, 5]) {
        const loaded = seed !== 42;
        const service = strictGrowing(perSecond, [...before, [20_000, 60, overMs]], { jitterMs: loaded ? 2 : 0, seed });
        const [result] = simulateSenders(service, [{ rows: 1_000_000 }], { loaded, seed, limitMs: 60_000 });
        expect({ seed, share: perSecondFrom(result!, 30_000) / perSecond >= 0.6 }).toEqual({ seed, share: true });
      }
    });
  }
});

/**
 * review15a F6: two separate batches (`shared: false`: two people, two jobs) on one strict limit whose path steps up. Both fall
 * to one in flight; F1's base (above) taken by the one crowded out by the other's slots let it climb while the other
 * was refused (real binary 100/s: 1-2 against 69-77 rows/s, worst second 271). A sender crowded by others (#crowded) has seen
 * another: no base, both stay at one in flight, fair, as before F1's base. Simulated clock.
 */
describe('F6: two separate batches on a strict limit whose path steps up', () => {
  it('strict 40/s, the second 5 s later, 25 -> 60 ms each way at 20 s: from 30 s on, neither under half the other', () => {
    for (const seed of [42, 1, 2, 3, 4, 5, 6, 7]) {
      const loaded = seed !== 42;
      const service = strictGrowing(40, [[20_000, 60, 0]], { jitterMs: loaded ? 2 : 0, seed });
      const plans = [{ rows: 1_000_000 }, { rows: 1_000_000, startAt: 5_000 }];
      const rates = simulateSenders(service, plans, { loaded, seed, limitMs: 60_000, shared: false }).map((r) => perSecondFrom(r, 30_000));
      expect({ seed, fair: Math.min(...rates) >= Math.max(...rates) / 2 }).toEqual({ seed, fair: true });
    }
  });
});

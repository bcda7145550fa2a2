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

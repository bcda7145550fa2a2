/**
 * review15a F1: a strict limit of 60-200/s (not held under the round trip) whose path steps up (50 -> 120 ms) fell to one in flight for
 * good, 8 rows/s of 100, with no push-back. A round trip that a slow run reached in its first 2 s, after 10 s at the base, and still
 * holds at one in flight 12 windows on, is a path: one sender takes it as its base. Others' queue found as the batch starts is no step:
 * pace-strict-grown-others (review15a F4, a steady other client). Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { perSecondFrom, simulateSenders, strictGrowing } from './pace-sim.js';

describe('F1: a strict limit not held, whose path steps up', () => {
  for (const [perSecond, overMs] of [
    [100, 0],
    [100, 1_000],
    [60, 1_000],
  ] as const) {
    it(`strict ${perSecond}/s, 25 -> 60 ms each way at 20 s${overMs ? ' over 1 s' : ''}: from 30 s on, at least 60% of it`, () => {
      for (const seed of [42, 1, 2, 3, 4, 5]) {
        const loaded = seed !== 42;
        const service = strictGrowing(perSecond, [[20_000, 60, overMs]], { jitterMs: loaded ? 2 : 0, seed });
        const [result] = simulateSenders(service, [{ rows: 1_000_000 }], { loaded, seed, limitMs: 60_000 });
        expect({ seed, share: perSecondFrom(result!, 30_000) / perSecond >= 0.6 }).toEqual({ seed, share: true });
      }
    });
  }
});

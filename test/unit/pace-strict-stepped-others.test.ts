/**
 * review15a F6: two separate batches (`shared: false`: two people, two jobs) on one strict limit whose path steps up. Both fall
 * to one in flight; F1's base (pace-strict-stepped) taken by the one crowded out by the other's slots let it climb while the other
 * was refused (real binary 100/s: 1-2 against 69-77 rows/s, worst second 271). A sender crowded by others (#crowded) has seen
 * another: no base, both stay at one in flight, fair, as before F1's base. Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { perSecondFrom, simulateSenders, strictGrowing } from './pace-sim.js';

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

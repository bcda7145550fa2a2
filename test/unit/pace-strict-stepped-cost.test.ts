/**
 * F1 (review15a; nineteenth pass): one sender on a strict limit not held under the round trip whose path steps up (50 -> 120 ms) fell
 * to one in flight for good, 8 rows/s of 100. The round trip a step reached is the base again (#stepped), on trial: a path's step
 * costs nothing a request, a queue shared with another client grows with each of ours (review17 B, pinned in pace-strict-stepped),
 * so a base whose round trip grows as the sender climbs goes back (#queued). Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { numbers, perSecondFrom, simulate, simulateSenders, strictGrowing, type Service } from './pace-sim.js';

describe('F1: a strict limit not held under the round trip whose path steps up', () => {
  it('strict 100/s, 25 -> 60 ms each way in one step at 20 s: from 30 s on, 75/s or more (one in flight for good: 8/s)', () => {
    for (const seed of [42, 1, 2, 3, 4, 5]) {
      const loaded = seed !== 42;
      const service = strictGrowing(100, [[20_000, 60, 0]], { jitterMs: loaded ? 2 : 0, seed });
      const rate = perSecondFrom(simulate(service, 6_000, { loaded, seed, from: 30_000 }), 30_000);
      expect({ seed, rate: rate >= 75 }).toEqual({ seed, rate: true });
    }
  });

  /**
   * review17 C: a client pause (an event loop or GC stall: answers that arrive in it are seen at its end) soon after the base is
   * taken lifts a window or two by the pause, not by what one more in flight costs. The sixteenth pass undid the base on one slow
   * window before a push-back, for good (8/s on about half the machines); the trial looks at the middle of three windows not slow.
   */
  it('the same with a 600 ms client pause at 25 s: from 60 s on, 75/s or more', () => {
    for (const seed of [42, 1, 2, 3, 4, 5, 6, 7]) {
      const loaded = seed !== 42;
      const random = numbers(seed * 37 + 11);
      const way = (t: number) => (t < 20_000 ? 25 : 60) + (loaded ? 2 : 0) * random();
      let last = -Infinity;
      const service: Service = (t) => {
        const arrival = t + way(t);
        const back = arrival + way(arrival);
        const at = back >= 25_000 && back < 25_600 ? 25_600 : back;
        if (Math.floor(arrival) - Math.floor(last) < 10) return { at, answer: Answer.PushedBack };
        last = arrival;
        return { at, answer: Answer.Accepted };
      };
      const [result] = simulateSenders(service, [{ rows: 1_000_000 }], { loaded, seed, limitMs: 90_000 });
      expect({ seed, rate: perSecondFrom(result!, 60_000) >= 75 }).toEqual({ seed, rate: true });
    }
  });
});

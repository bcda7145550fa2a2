/**
 * One sender on a strict limit, from a client machine that stalls now and then (review13's H3). Once the hold on the
 * rate was dropped, the limit grew 2 → 64 in about 3 s while only one or two were ever in flight, and the starts the
 * next stall bunched together all went out at once: on 6ba1729, 1 s stalls every 10 s at strict 25/s pushed back 14%
 * (up to 35%), with 60-163 push-backs in a second on 28 of 31 machines. Paced and under RATE_HOLDS_BELOW, a limit not
 * filled in its round trip does not grow (RFC 7661: an application-limited window is not validated). Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { simulate, stalledMachine, strictRate, worstSecond } from './pace-sim.js';

const machines = [42, ...Array.from({ length: 30 }, (_, i) => i + 1)];

describe('one sender on a strict limit from a machine that stalls', () => {
  it.each([
    [20, 300, 2_000],
    [25, 300, 2_000],
    [25, 1_000, 10_000],
    [30, 1_000, 10_000],
    [40, 300, 2_000],
    [40, 1_000, 10_000],
  ])(
    'strict %i/s, stalls of %i ms every %i ms: on each of 31 machines at most 6 in 100 pushed back, no second over 40',
    (perSecond, stallMs, everyMs) => {
      for (const seed of machines) {
        const loaded = seed !== 42;
        const service = stalledMachine(strictRate(perSecond, { jitterMs: loaded ? 2 : 0, seed }), seed, { everyMs, stallMs });
        const result = simulate(service, 40 * perSecond, { loaded, seed, from: 5_000 });
        expect({ seed, pushedBack: result.pushedBackLate / result.answersLate <= 0.06 }).toEqual({ seed, pushedBack: true });
        expect({ seed, worst: worstSecond([result]) <= 40 }).toEqual({ seed, worst: true });
      }
    },
  );
});

/**
 * review13b's B5: held under the round trip (item 51), a round trip that grows for good mid-run (25 -> 60-100 ms each
 * way) read as a queue: each slow round trip took a tenth off the limit, down to one at a time, and the held rate, no
 * longer what set the pace, narrowed past the spacing refused until item 51 let go. A strict 25-40/s then took 4.6-7.8
 * rows/s for the rest of the run. Two slow round trips in a row about as long (within a tenth: not a stalled machine's
 * one or two) now add one in flight, up to what the held rate keeps out (#set's cap). Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { numbers, simulate, type Service } from './pace-sim.js';

/** nginx's limit_req without burst (as strictRate), each way 25 ms until 20 s, then `grownMs`; at 10/s in [from, to). */
function grownAt20s(perSecond: number, grownMs: number, jitterMs: number, seed: number, [from, to] = [0, 0]): Service {
  const random = numbers(seed * 37 + 11);
  let last = -Infinity;
  return (t) => {
    const way = t >= 20_000 ? grownMs : 25;
    const arrival = t + way + jitterMs * random();
    const back = arrival + way + jitterMs * random();
    const slot = t >= from && t < to ? 100 : 1000 / perSecond;
    if (Math.floor(arrival) - Math.floor(last) < slot) return { at: back, answer: Answer.PushedBack };
    last = arrival;
    return { at: back, answer: Answer.Accepted };
  };
}

describe('B5: held under the round trip, a round trip that grows for good', () => {
  for (const [perSecond, grownMs] of [
    [25, 60],
    [25, 100],
    [40, 60],
    [40, 100],
  ] as const) {
    it(`strict ${perSecond}/s, 25 -> ${grownMs} ms each way at 20 s: from 25 s on, over 80% of it and at most 5% pushed back (7948296: 4.6-7.8/s)`, () => {
      for (const seed of [42, 1, 2, 3]) {
        const loaded = seed !== 42;
        const result = simulate(grownAt20s(perSecond, grownMs, loaded ? 2 : 0, seed), 100 * perSecond, { loaded, seed, from: 25_000 });
        const late = result.acceptedAt.filter((t) => t >= 25_000 && t < 85_000).length / 60;
        expect({ seed, rate: late > 0.8 * perSecond }).toEqual({ seed, rate: true });
        expect({ seed, pushedBack: result.pushedBackLate / result.answersLate <= 0.05 }).toEqual({ seed, pushedBack: true });
      }
    });
  }

  // measure14 on real nginx (req-40-grown, 25357c4): held 26-35/s for 30 s after the growth, then a second of 5 push-backs and
  // one in flight for good. Item 54's "a fifth under the spacing refused: the limit moved" let go of the held rate, and the
  // paced regime grows no further than twice the base round trip. Slow, it holds the rate it narrowed to instead.
  it('strict 40/s, 25 -> 60 ms each way at 20 s, the limit at 10/s for a second at 48 s: from 55 s on, over 80% of it again', () => {
    for (const seed of [42, 1, 2, 3]) {
      const loaded = seed !== 42;
      const service = grownAt20s(40, 60, loaded ? 2 : 0, seed, [48_000, 49_000]);
      const result = simulate(service, 4_000, { loaded, seed, from: 55_000 });
      const late = result.acceptedAt.filter((t) => t >= 55_000 && t < 85_000).length / 30;
      expect({ seed, rate: late > 32 }).toEqual({ seed, rate: true });
    }
  });
});

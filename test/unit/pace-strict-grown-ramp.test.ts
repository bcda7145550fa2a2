/**
 * measure15's req-40-grown on real nginx (6099bad): after the round trip grew (53 -> 79 -> 123 ms a second), B5 held 3-4 in
 * flight for five seconds, then 2.2 -> 1.5 -> 1.0 with no push-back, and one in flight (7-8 rows/s) to the end. B5's "a queue
 * of ours" (review14a F5, 784a503) compares the round trip with the one at its first one more: a path still growing after
 * that (over a second or two), or growing a second time, reads as our queue, B5 stops while slow, and on a longer path it is
 * slow for good: the x0.9 of each slow window takes it to one at a time. One in flight queues behind nothing of ours: still
 * slow there, B5 starts over from that round trip. Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { simulate, strictGrowing } from './pace-sim.js';

describe('B5: a round trip that grows over a second or two, or twice', () => {
  const cases: [number, string, [number, number, number][], number][] = [
    [40, '25 -> 60 ms each way over 1 s from 20 s', [[20_000, 60, 1_000]], 25_000],
    [25, '25 -> 60 ms each way over 2 s from 20 s', [[20_000, 60, 2_000]], 25_000],
    [
      40,
      '25 -> 60 ms each way at 20 s, -> 100 ms at 40 s',
      [
        [20_000, 60, 0],
        [40_000, 100, 0],
      ],
      45_000,
    ],
    [
      25,
      '25 -> 60 ms each way over 1 s from 20 s, -> 100 ms over 1 s from 40 s',
      [
        [20_000, 60, 1_000],
        [40_000, 100, 1_000],
      ],
      45_000,
    ],
  ];
  for (const [perSecond, name, steps, from] of cases) {
    it(`strict ${perSecond}/s, ${name}: from ${from / 1000} s on, over 80% of it and at most 5% pushed back (6099bad: 4.6-7.8/s)`, () => {
      for (const seed of [42, 1, 2, 3]) {
        const loaded = seed !== 42;
        const service = strictGrowing(perSecond, steps, { jitterMs: loaded ? 2 : 0, seed });
        const result = simulate(service, 100 * perSecond, { loaded, seed, from });
        const late = result.acceptedAt.filter((t) => t >= from && t < 85_000).length / ((85_000 - from) / 1000);
        expect({ seed, rate: late > 0.8 * perSecond }).toEqual({ seed, rate: true });
        expect({ seed, pushedBack: result.pushedBackLate / result.answersLate <= 0.05 }).toEqual({ seed, pushedBack: true });
      }
    });
  }
});

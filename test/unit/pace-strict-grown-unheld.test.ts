/**
 * review15a's F1: a strict limit of 60-200/s, whose slot is under a third of the round trip, is paced but not held under it
 * (item 51 holds 25-55/s at 50 ms), so B5 does not act there. When its path grows (25 -> 60 ms each way), every slow window
 * took a tenth off, down to one at a time, with no push-back; a paced sender is never rebased and its growth stops at twice
 * the base: one in flight for good, 8 rows/s of 100. One in flight queues behind nothing of ours: slow there, two windows
 * within a tenth, no push-back for 3 s, the path grew, and that round trip is the base. After the growth the pace is then
 * what the same limit gets behind that path from the start. Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { simulate, strictGrowing } from './pace-sim.js';

describe('F1: a strict limit not held under the round trip, whose path grows', () => {
  const cases: [number, string, [number, number, number][], number, number][] = [
    [60, 'a step to 60 ms each way at 20 s', [[20_000, 60, 0]], 60, 25_000],
    [100, 'a step to 60 ms each way at 20 s', [[20_000, 60, 0]], 60, 25_000],
    [100, 'to 60 ms each way over 1 s from 20 s', [[20_000, 60, 1_000]], 60, 25_000],
    [200, 'a step to 60 ms each way at 20 s', [[20_000, 60, 0]], 60, 25_000],
    [
      100,
      'a step to 60 ms each way at 20 s, to 100 ms at 40 s',
      [
        [20_000, 60, 0],
        [40_000, 100, 0],
      ],
      100,
      45_000,
    ],
  ];
  for (const [perSecond, name, steps, lastMs, from] of cases) {
    it(`strict ${perSecond}/s, ${name}: from ${from / 1000} s on, 95% of what it gets behind that path from the start (6099bad: 4.6-7.8/s)`, () => {
      for (const seed of [42, 1, 2, 3]) {
        const loaded = seed !== 42;
        const rate = (path: [number, number, number][]) => {
          const result = simulate(strictGrowing(perSecond, path, { jitterMs: loaded ? 2 : 0, seed }), 100 * perSecond, {
            loaded,
            seed,
            from,
          });
          const late = result.acceptedAt.filter((t) => t >= from && t < 85_000).length / ((85_000 - from) / 1000);
          return { late, pushedBack: result.pushedBackLate / result.answersLate };
        };
        const [grown, fromStart] = [rate(steps), rate([[0, lastMs, 0]])];
        expect({ seed, rate: grown.late >= 0.95 * fromStart.late }).toEqual({ seed, rate: true });
        expect({ seed, pushedBack: grown.pushedBack <= fromStart.pushedBack + 0.01 }).toEqual({ seed, pushedBack: true });
      }
    });
  }
});

/**
 * The path real nginx was measured through (measure14), as pace-sim draws it: each way's delay beyond its one way
 * has the measured percentiles, and a strict limit behind it refuses a constant spacing near its slot now and then.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { MEASURED_PATH, fixedRates, numbers, pathDelay, strictRate } from './pace-sim.js';

describe('a measured path (measure14)', () => {
  for (const [name, path] of Object.entries(MEASURED_PATH)) {
    it(`${name}: of 100,000 draws, the share under each of its percentiles is that percentile (within 1.5 points: pace-sim's numbers are a plain LCG), none over its most`, () => {
      const random = numbers(7);
      const draws = Array.from({ length: 100_000 }, () => pathDelay(path, random)).sort((a, b) => a - b);
      for (const [i, at] of [0.5, 0.9, 0.95, 0.99].entries())
        expect(Math.abs(draws.filter((d) => d <= path[i]!).length / draws.length - at)).toBeLessThan(0.015);
      expect(draws.at(-1)!).toBeLessThanOrEqual(path.at(-1)!);
      expect(draws[0]!).toBeGreaterThanOrEqual(0);
    });
  }

  it('a strict 40/s behind the quiet path refuses some of a spacing 2 ms over its slot, which it never does with no path', () => {
    const refusedShare = (path?: number[]) => {
      const { accepted, refused } = fixedRates(strictRate(40, { path, seed: 3 }), [1000 / 27], 60_000, 3);
      return refused / (accepted + refused);
    };
    expect(refusedShare()).toBe(0);
    expect(refusedShare(MEASURED_PATH.quiet)).toBeGreaterThan(0.002);
    expect(refusedShare(MEASURED_PATH.quiet)).toBeLessThan(0.05);
  });

  it('with no path, strictRate draws as before (the bench figures stay)', () => {
    const service = strictRate(40, { jitterMs: 2, seed: 5 });
    const verdicts = [0, 30, 60, 70].map((t) => service(t, 0));
    expect(verdicts.map((v) => v.answer)).toEqual([Answer.Accepted, Answer.Accepted, Answer.Accepted, Answer.PushedBack]);
  });
});

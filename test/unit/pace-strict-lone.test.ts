/**
 * Item 55: held under the round trip at three or more in flight (item 51), a push-back with none other within a
 * second widens nothing. Behind the path real nginx was measured through (measure14), a request now and then waits
 * 5-50 ms on its way, and the next, a slot later, reaches nginx closer than a slot: refused at a spacing the limit
 * takes. Widened twice over the spacing then, each such refusal set the edge higher (40/s: 25 -> 34 ms in 25 s),
 * until the refusals a second fell to what the narrowing makes up: 74-83% of 40/s where a constant spacing takes 92%.
 */
import { describe, expect, it } from 'vitest';
import { MEASURED_PATH, perSecondFrom, simulate, strictRate } from './pace-sim.js';

const fromFiveSeconds = (perSecond: number, path: number[], loaded: boolean, seed: number) => {
  const result = simulate(strictRate(perSecond, { path, seed }), 30 * perSecond, { loaded, seed, from: 5_000 });
  return { share: perSecondFrom(result, 5_000) / perSecond, pushedBack: result.pushedBackLate / result.answersLate };
};

const machines = Array.from({ length: 12 }, (_, i) => i + 1);

describe('item 55: a lone push-back held under the round trip widens nothing', () => {
  for (const seed of machines) {
    it(`strict 40/s behind measure14's quiet path (machine ${seed}): at least 77% of it from 5 s on, at most 5% pushed back`, () => {
      const { share, pushedBack } = fromFiveSeconds(40, MEASURED_PATH.quiet, false, seed);
      expect(share).toBeGreaterThanOrEqual(0.77);
      expect(pushedBack).toBeLessThanOrEqual(0.05);
    });
  }
  it("strict 40/s behind measure14's loaded path, on 12 loaded machines: at least 68% of it on average, at most 5% pushed back on each", () => {
    const got = machines.map((seed) => fromFiveSeconds(40, MEASURED_PATH.loaded, true, seed));
    expect(got.reduce((sum, r) => sum + r.share, 0) / got.length).toBeGreaterThanOrEqual(0.68);
    for (const { pushedBack } of got) expect(pushedBack).toBeLessThanOrEqual(0.05);
  });
});

/**
 * Issue 31, item 51 of docs/pace.md, the review's F2 (review12): held as a rate under the round trip, the spacing
 * narrowed by 1% per 300 ms for good once past the spacing last refused ("near" held below it too), so a strict limit
 * lifted or raised after item 51 engaged took minutes to find (de09beb: 4,000 rows on a strict 25/s lifted at 20 s
 * done at 77 s; 0329b23: 27 s). A spacing a fifth under the one last refused at two in flight with no push-back: the
 * limit moved, and the pace is held as a rate as before item 51 (at half of it, as first fixed: 50-51 s, review12b's
 * G1). Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { perSecondFrom, simulate, strictRate } from './pace-sim.js';

/** A strict limit until 20 s, then `after`/s (0: none). */
function liftedAt20s(perSecond: number, after: number, loaded: boolean, seed: number) {
  const [before, then] = [
    strictRate(perSecond, { jitterMs: loaded ? 2 : 0, seed }),
    strictRate(after || 1, { jitterMs: loaded ? 2 : 0, seed }),
  ];
  const lifted = (t: number) => ({ at: t + 50, answer: Answer.Accepted });
  return simulate((t, who) => (t < 20_000 ? before(t, who) : after ? then(t, who) : lifted(t)), 4_000, { loaded, seed });
}

describe('held as a rate under the round trip, a strict limit lifted or raised at 20 s (25 ms each way)', () => {
  const machines = [
    { loaded: false, seed: 42 },
    { loaded: true, seed: 1 },
    { loaded: true, seed: 2 },
  ];
  it.each(machines)(
    '25 and 30/s lifted: 4,000 rows done within 40 s (%o; de09beb: 77-78 s, at half: 48-52, 0329b23: 27)',
    ({ loaded, seed }) => {
      for (const perSecond of [25, 30]) expect(liftedAt20s(perSecond, 0, loaded, seed).last).toBeLessThan(40_000);
    },
  );
  it.each(machines)('25/s raised to 100/s: over 60/s from 30 s on (%o; de09beb: 45-53/s, here 70-74)', ({ loaded, seed }) => {
    const result = liftedAt20s(25, 100, loaded, seed);
    expect(perSecondFrom(result, 30_000)).toBeGreaterThan(60);
  });
});

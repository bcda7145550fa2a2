/**
 * Issue 31, item 51 of docs/pace.md, the review's F3 and F5 (review12): held as a rate under the round trip, the limit
 * climbed to 64 by #decide's paced growth while two were in flight, so a service that then hung got 64 requests at once
 * (de09beb: 25 and 30/s, 64 in flight, pace.highest 64). The limit now follows what the rate keeps out (the round trip
 * over the spacing, and one more). Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { simulate, strictRate } from './pace-sim.js';

/** A strict limit until 20 s, then every request answered 503 only after `lateMs` (an upstream that hangs). */
function hangsAt20s(perSecond: number, lateMs: number, loaded: boolean, seed: number) {
  const inner = strictRate(perSecond, { jitterMs: loaded ? 2 : 0, seed });
  const sends: [number, number][] = [];
  const result = simulate(
    (t, who) => {
      const verdict = t < 20_000 ? inner(t, who) : { at: t + 50 + lateMs, answer: Answer.PushedBack };
      sends.push([t, verdict.at]);
      return verdict;
    },
    2_000,
    { loaded, seed },
  );
  let peak = 0;
  for (const [t] of sends) if (t >= 20_000) peak = Math.max(peak, sends.filter(([s, at]) => s <= t && at > t).length);
  return { peak, highestBefore: result.highest };
}

describe('held as a rate under the round trip, a strict limit that then hangs (25 ms each way)', () => {
  it.each([
    { loaded: false, seed: 42 },
    { loaded: true, seed: 1 },
    { loaded: true, seed: 4 },
  ])(
    '25 and 30/s, 503 after 10 s from 20 s on: at most 3 in flight, the summary at most 8 at once (%o; de09beb: 64)',
    ({ loaded, seed }) => {
      for (const perSecond of [25, 30]) {
        const { peak, highestBefore } = hangsAt20s(perSecond, 10_000, loaded, seed);
        expect(peak).toBeLessThanOrEqual(3);
        expect(highestBefore).toBeLessThanOrEqual(8);
      }
    },
  );
});

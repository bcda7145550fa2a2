/**
 * Issue 31, item 50's review (docs/pace.md): item 50 counts a slow refusal as the round trips it took, so that a
 * slow outage is seen as one. With Retry-After that count also fed the pause rule (a third push-back in a row at
 * one at a time pauses the batch, then a slow start): ONE refusal 150-300 ms slower than the accepts counted as three
 * or four, so shards sharing a strict limit that refuses slower than it accepts (a limiter behind a proxy queue,
 * a 429 computed after auth) paused and burst back into the limit again and again. A refusal with Retry-After
 * counts as one. On the simulated clock; no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { simulateSenders, strictRate, type Service } from './pace-sim.js';

/** Four shards of 300 rows on a strict 20/s with Retry-After: 1 whose refusals come `slowMs` after its accepts would. */
function shards(slowMs: number, seed: number) {
  const inner = strictRate(20, { retryAfterMs: 1_000, jitterMs: seed === 42 ? 0 : 2, seed });
  const service: Service = (t, who) => {
    const verdict = inner(t, who);
    return verdict.answer === Answer.PushedBack ? { ...verdict, at: verdict.at + slowMs } : verdict;
  };
  const plans = [0, 1, 2, 3].map(() => ({ rows: 300 }));
  const results = simulateSenders(service, plans, { loaded: seed !== 42, seed, limitMs: 600_000 });
  return { accepted: results.reduce((n, r) => n + r.accepted, 0), pushedBack: results.reduce((n, r) => n + r.pushedBack, 0) };
}

describe('shards on a strict limit with Retry-After that refuses slower than it accepts', () => {
  it.each([42, 1, 2])('seed %i: refusals 300 ms late are pushed back about as often as refusals on time', (seed) => {
    const late = shards(300, seed);
    const onTime = shards(0, seed);
    expect(late.accepted).toBe(1_200);
    expect(onTime.accepted).toBe(1_200);
    // Seeds 42 and 1-5 before the fix: 1.65-4.8x as many (3,430-5,748 against 1,195-2,311: each slow refusal a pause
    // and a slow start); after it 0.6-1.0x.
    expect(late.pushedBack).toBeLessThan(1.4 * onTime.pushedBack);
  });
});

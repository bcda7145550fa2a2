/**
 * Issue 31, fifteenth pass (review15b R3, separate batches): four separate batches (`shared: false`) on one strict 20/s
 * whose app answers 1 in 100 accepted requests a second late. A batch's window after one such answer is a second;
 * its probes came PROBE windows later (1.5-4.5 s), the others kept the limit full, each probe was refused, and after
 * 30 s with nothing accepted the batch stopped with rows unsent. Now every sender's probes are spaced from twice the
 * fastest round trip at most (as among shards). On the simulated clock; no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { numbers, simulateSenders, strictRate } from './pace-sim.js';

describe('separate batches on one strict 20/s, 1% of accepted answers a second late', () => {
  it.each([
    [4, 42],
    [4, 5],
    [4, 8],
    [2, 42],
  ])('%i batches, seed %i: none stops, every row accepted', (count, seed) => {
    const loaded = seed !== 42;
    const inner = strictRate(20, { jitterMs: loaded ? 2 : 0, seed });
    const slow = numbers(seed * 7 + 3);
    const service = (t: number, who: number) => {
      const verdict = inner(t, who);
      return verdict.answer === Answer.Accepted && slow() < 0.01 ? { ...verdict, at: verdict.at + 1_000 } : verdict;
    };
    const stopped: number[] = [];
    const plans = Array.from({ length: count }, () => ({ rows: 2_400 / count }));
    const results = simulateSenders(service, plans, {
      loaded,
      seed,
      shared: false,
      trace: (who, _now, pace) => {
        if (pace.stopReason && !stopped.includes(who)) stopped.push(who);
      },
    });
    expect(stopped).toEqual([]);
    expect(results.map((r) => r.accepted)).toEqual(plans.map((p) => p.rows));
  });
});

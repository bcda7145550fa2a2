/**
 * Issue 31, fifteenth pass (review15b R3): shards of one batch, or separate batches, on a strict 20/s whose app answers 1 in
 * 100 accepted requests a second late (a slow query, a GC pause, a retransmit). One at a time in the relay, a sender's
 * window is one answer: after a slow one it is a second, and the relay's next probe came PROBE windows later, 1.5-4.5 s.
 * The others kept the limit full, so each probe was refused, no answer came to shorten the window, and after 30 s with
 * nothing accepted the sender stopped with most of its rows unsent. The probes are now spaced from twice the fastest
 * round trip at most, among shards (a5236db) and for separate batches (305a31a). On the simulated clock; no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { numbers, simulateSenders, strictRate } from './pace-sim.js';

/** `count` senders sharing 2,400 rows on a strict 20/s with 1% of accepted answers a second late: who stopped, and what each got. */
function slowAnswers(count: number, seed: number, shared: boolean) {
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
    shared,
    trace: (who, _now, pace) => {
      if (pace.stopReason && !stopped.includes(who)) stopped.push(who);
    },
  });
  return { stopped, accepted: results.map((r) => r.accepted), rows: plans.map((p) => p.rows) };
}

describe('four shards on a strict 20/s, 1% of accepted answers a second late', () => {
  it.each([42, 5, 8])('seed %i: no shard stops, every row accepted', (seed) => {
    const { stopped, accepted } = slowAnswers(4, seed, true);
    // Before: shard 1 stopped at 68 s on seed 42 (365 of 600 accepted), shard 0 at 92 s on seed 5, shards 0 and 2 on seed 8.
    expect(stopped).toEqual([]);
    expect(accepted).toEqual([600, 600, 600, 600]);
  });
});

describe('separate batches on one strict 20/s, 1% of accepted answers a second late', () => {
  it.each([
    [4, 42],
    [4, 5],
    [4, 8],
    [2, 42],
  ])('%i batches, seed %i: none stops, every row accepted', (count, seed) => {
    const { stopped, accepted, rows } = slowAnswers(count, seed, false);
    expect(stopped).toEqual([]);
    expect(accepted).toEqual(rows);
  });
});

/**
 * Issue 31, fifteenth pass (review15b R3): four shards of one batch on a strict 20/s whose app answers 1 in 100 accepted
 * requests a second late (a slow query, a GC pause, a retransmit). One at a time in the relay, a shard's window is one
 * answer: after a slow one it is a second, and the relay's next probe came PROBE windows later, 1.5-4.5 s. The three
 * others kept the limit full, so each probe was refused, no answer came to shorten the window, and after 30 s with
 * nothing accepted the shard stopped with most of its rows unsent. Among shards the probes are now spaced from twice the
 * fastest round trip at most. On the simulated clock; no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { numbers, simulateSenders, strictRate } from './pace-sim.js';

describe('four shards on a strict 20/s, 1% of accepted answers a second late', () => {
  it.each([42, 5, 8])('seed %i: no shard stops, every row accepted', (seed) => {
    const loaded = seed !== 42;
    const inner = strictRate(20, { jitterMs: loaded ? 2 : 0, seed });
    const slow = numbers(seed * 7 + 3);
    const service = (t: number, who: number) => {
      const verdict = inner(t, who);
      return verdict.answer === Answer.Accepted && slow() < 0.01 ? { ...verdict, at: verdict.at + 1_000 } : verdict;
    };
    const stopped: number[] = [];
    const plans = [0, 1, 2, 3].map(() => ({ rows: 600 }));
    const results = simulateSenders(service, plans, {
      loaded,
      seed,
      trace: (who, _now, pace) => {
        if (pace.stopReason && !stopped.includes(who)) stopped.push(who);
      },
    });
    // Before: shard 1 stopped at 68 s on seed 42 (365 of 600 accepted), shard 0 at 92 s on seed 5, shards 0 and 2 on seed 8.
    expect(stopped).toEqual([]);
    expect(results.map((r) => r.accepted)).toEqual([600, 600, 600, 600]);
  });
});

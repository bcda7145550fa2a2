/**
 * Issue 31: no push-back storm against a strict limit, and no crawl against refusals at random
 * without Retry-After, on the simulated clock. The seeds are those on which the controller before
 * item 16 (docs/pace.md) sent one shard at 64 at once against a strict 20/s: 900-1,264 push-backs
 * in one second, 79-95% pushed back after 5 s.
 */
import { describe, expect, it } from 'vitest';
import { fixedConcurrency, refusingAtRandom, simulate, simulateSenders, strictRate, worstSecond } from './pace-sim.js';

const machine = (seed: number) => ({ loaded: seed !== 42, seed, jitterMs: seed !== 42 ? 2 : 0 });

describe('four shards on a strict 20/s without burst: no push-back storm', () => {
  const stormed = [
    { seed: 42, retryAfterMs: 1_000, stagger: 0 },
    { seed: 3, retryAfterMs: 1_000, stagger: 0 },
    { seed: 18, retryAfterMs: 1_000, stagger: 0 },
    { seed: 6, retryAfterMs: 1_000, stagger: 5_000 },
    { seed: 15, retryAfterMs: undefined, stagger: 0 },
    { seed: 30, retryAfterMs: undefined, stagger: 0 },
  ];
  it.each(stormed)('seed $seed, Retry-After (ms): $retryAfterMs, started $stagger ms apart', ({ seed, retryAfterMs, stagger }) => {
    const m = machine(seed);
    const plans = [0, 1, 2, 3].map((i) => ({ rows: 300, startAt: i * stagger }));
    const results = simulateSenders(strictRate(20, { ...m, retryAfterMs }), plans, m);
    // 20 a second get in: at most 7.5 times as many pushed back in any one second (before: 900-1,264).
    expect(worstSecond(results)).toBeLessThanOrEqual(150);
    const late = results.reduce((sum, r) => sum + r.pushedBackAt.filter((t) => t >= 5_000).length, 0);
    const answers = late + results.reduce((sum, r) => sum + r.acceptedAt.filter((t) => t >= 5_000).length, 0);
    // With Retry-After the shards take turns (item 27): the waiting ones probe on, about three in five pushed back (before: a shard starved).
    expect(late / answers).toBeLessThan(retryAfterMs ? 0.7 : 0.6);
  });
});

// 30% at random was missed until item 20 (docs/pace.md, ninth pass): one at a time with a 55-60 ms gap, 0.9-3x
// the wall time of --concurrency 8 (the relay took the refusals for others' slots); pinned at 3.5x then.
describe.each([0.3, 0.5, 0.67])('%s refused at random without Retry-After, 1,000 rows', (share) => {
  it.each([42, 1, 2, 3, 4, 5])('seed %s: every row accepted, in at most twice the wall time of --concurrency 8', (seed) => {
    const m = machine(seed);
    const auto = simulate(refusingAtRandom(share, seed * 3 + 1, 50, null), 1_000, m);
    const fixed = fixedConcurrency(refusingAtRandom(share, seed * 3 + 1, 50, null), 1_000, 8);
    expect(auto.accepted).toBe(1_000);
    expect(auto.last).toBeLessThanOrEqual(2 * fixed.wallMs);
  });
});

// Two in three refused at random is the most issue 31 names ("50-67%"): not a limit, so the batch keeps
// its pace. A rule that called every share over two in three a limit took 1.2-1.9x the wall time of
// --concurrency 8 on 1,000 rows (0.04-0.08x below it) and 2.4x on the 30 rows of the quiet machine.
describe('two in three refused at random, with Retry-After: 1', () => {
  it.each([42, 1, 2, 3, 4, 5])('seed %s: 1,000 rows no slower than --concurrency 8, 30 rows within twice it', (seed) => {
    const m = machine(seed);
    for (const [rows, most] of [
      [1_000, 1],
      [30, 2],
    ] as const) {
      const auto = simulate(refusingAtRandom(0.67, seed * 3 + 1, 50, 1_000), rows, m);
      const fixed = fixedConcurrency(refusingAtRandom(0.67, seed * 3 + 1, 50, 1_000), rows, 8);
      expect(auto.accepted).toBe(rows);
      expect(auto.last).toBeLessThanOrEqual(most * fixed.wallMs);
    }
  });
});

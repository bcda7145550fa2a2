/**
 * --concurrency auto where real gateways put their limits (issue 31), on the simulated clock:
 * nginx's limit_conn behind a network, limit_req without burst, a limit shared by four shards,
 * and a service that refuses half at random. Each on a quiet machine and on five loaded seeds
 * (answers late at random, event-loop stalls). The figures are in `npm run bench` and docs/pace.md;
 * these assert what the controller before this change did not do.
 */
import { describe, expect, it } from 'vitest';
import {
  fixedConcurrency,
  networkedSlots,
  perSecondFrom,
  refusingAtRandom,
  type Service,
  simulate,
  simulateSenders,
  strictRate,
  tokenBucket,
} from './pace-sim.js';

const machines = [{ loaded: false, seed: 42 }, ...[1, 2, 3, 4, 5].map((seed) => ({ loaded: true, seed }))];

describe.each(machines)('on the simulated clock (loaded: $loaded, seed $seed)', ({ loaded, seed }) => {
  const jitterMs = loaded ? 2 : 0;

  it('12 slots behind 25 ms each way, the app taking 50 ms (240/s): at least 75% of it, every row accepted', () => {
    // Before: 55-63% on a loaded machine, the bursts that answers come back in refused at the app.
    const result = simulate(networkedSlots(12, 50, { jitterMs, seed }), 2_400, { loaded, seed });
    expect(result.accepted).toBe(2_400);
    expect(result.perSecond).toBeGreaterThan(0.75 * 240);
    expect(result.pushedBack / result.answers).toBeLessThan(0.05);
  });

  it('12 slots behind 25 ms each way, the app taking 5 ms: at least 70% of the 64-at-once ceiling (before: 40-60%)', () => {
    const ceiling = (64 * 1000) / 55;
    const result = simulate(networkedSlots(12, 5, { jitterMs, seed }), 9_000, { loaded, seed });
    expect(result.accepted).toBe(9_000);
    expect(result.perSecond).toBeGreaterThan(0.7 * ceiling);
  });

  it('a strict 100/s without burst behind 25 ms each way (503 or 429, no Retry-After): the starts spaced out, not one at a time', () => {
    // Before: one at a time, 20/s (two at once went out together and one was refused).
    const result = simulate(strictRate(100, { jitterMs, seed }), 1_500, { loaded, seed, from: 5_000 });
    expect(result.accepted).toBe(1_500);
    expect(result.perSecond).toBeGreaterThan(60);
    expect(result.pushedBackLate / result.answersLate).toBeLessThan(0.05);
  });

  it('a strict 100/s without burst behind 25 ms each way: held as a rate, at least 75/s from 5 s on (before: 66-77/s), at most 3% pushed back', () => {
    // 100/s at 50 ms falls between 4 and 5 in flight: a count alone held 65-70/s.
    const result = simulate(strictRate(100, { jitterMs, seed }), 1_500, { loaded, seed, from: 5_000 });
    expect(result.accepted).toBe(1_500);
    expect(perSecondFrom(result, 5_000)).toBeGreaterThan(75);
    expect(result.perSecond).toBeGreaterThan(72);
    expect(result.pushedBackLate / result.answersLate).toBeLessThan(0.03);
  });

  it('12 slots behind 25 ms each way, the app taking 50 ms: at least 80% of 240/s once the pace is held as a rate (before: 78-80%)', () => {
    const result = simulate(networkedSlots(12, 50, { jitterMs, seed }), 2_400, { loaded, seed });
    expect(result.perSecond).toBeGreaterThan(0.8 * 240);
  });

  it('a strict 20/s without burst (nginx limit_req, no burst): at least 87.5% of it, at most 8% pushed back after the first 5 s', () => {
    const result = simulate(strictRate(20, { jitterMs, seed }), 300, { loaded, seed, from: 5_000 });
    expect(result.accepted).toBe(300);
    // One at a time with no gap, every 15th start waits a round trip more, room for senders it cannot see (item 21):
    // a sender alone gives up a sixteenth (17.7/s loaded, was 18.4-18.5); the target is 85%.
    expect(result.perSecond).toBeGreaterThan(0.875 * 20);
    expect(result.pushedBackLate / result.answersLate).toBeLessThan(0.08);
  });

  it('half the answers refused at random (503 + Retry-After: 1): 1,000 rows in under half the wall time of --concurrency 8', () => {
    // Before: the batch fell to one at a time and a start every 2 s (1,000 rows took over 10 minutes).
    const auto = simulate(refusingAtRandom(0.5, seed * 3 + 1), 1_000, { loaded, seed });
    const fixed = fixedConcurrency(refusingAtRandom(0.5, seed * 3 + 1), 1_000, 8);
    expect(auto.accepted).toBe(1_000);
    expect(fixed.failed).toBeGreaterThan(0); // the fixed batch spends its retries; auto sends again
    expect(auto.last).toBeLessThan(fixed.wallMs / 2);
  });

  it('4 shards sharing one 400/s limit, started together and 1 s apart: every row of every shard accepted', () => {
    // Not yet fair nor full (see docs/pace.md): this holds that no shard is stopped or starved.
    for (const stagger of [0, 1_000]) {
      const results = simulateSenders(
        tokenBucket(400),
        [0, 1, 2, 3].map((i) => ({ rows: 800, startAt: i * stagger })),
        { loaded, seed },
      );
      expect(results.map((r) => r.accepted)).toEqual([800, 800, 800, 800]);
    }
  });
});

describe('pacing', () => {
  it('after a push-back without Retry-After, requests start spread over the round trip, not in bursts', () => {
    // 12 slots held 50 ms behind 25 ms each way: count the requests that reached the app within
    // 5 ms of each other once the batch has settled.
    const arrivals: number[] = [];
    const slots = networkedSlots(12, 50);
    const service: Service = (t, who) => {
      arrivals.push(t + 25);
      return slots(t, who);
    };
    simulate(service, 2_400);
    const settled = arrivals.filter((t) => t > 3_000);
    const gaps = settled.slice(1).map((t, i) => t - settled[i]!);
    const bunched = gaps.filter((g) => g < 0.5).length / gaps.length;
    expect(bunched).toBeLessThan(0.1); // unpaced, answers coming back together sent most in bunches
  });

  it('a service with Retry-After is not paced (its bucket takes bursts): starts follow the answers', () => {
    const arrivals: number[] = [];
    const bucket = tokenBucket(400);
    simulate((t, who) => {
      arrivals.push(t);
      return bucket(t, who);
    }, 3_200);
    const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]!);
    expect(gaps.filter((g) => g === 0).length).toBeGreaterThan(gaps.length / 2);
  });
});

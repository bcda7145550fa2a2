/**
 * --concurrency auto with many in flight where shards share a limit on requests at once (issue 31:
 * nginx's limit_conn 12, 503 beyond, behind 25 ms each way), on the simulated clock. What the
 * controller before this change did not do: a shard whose round trip its siblings' load raised grew
 * no more (real nginx: one at 1-2 in flight, 13 rows/s, no push-back, for the whole run), and shards
 * held at a rate kept the shares they had after the start.
 */
import { describe, expect, it } from 'vitest';
import { Answer, Pace } from '../../src/batch/pace.js';
import { busyClient, networkedSlots, simulateSenders, type SenderResult } from './pace-sim.js';

/** A controller on a clock the test moves (as pace.test.ts's). */
function controller(initial: number) {
  const clock = { now: 0 };
  const pace = new Pace({ max: 64, initial, now: () => clock.now });
  const roundTrip = (n: number, rtt: number) => {
    const start = clock.now;
    for (let i = 1; i <= n; i++) {
      clock.now = start + (rtt * i) / n;
      pace.answered(Answer.Accepted, rtt);
    }
  };
  return { pace, clock, roundTrip };
}

describe('paced (pushed back without Retry-After), a slower round trip is not taken for a queue of its own', () => {
  /** Out of slow start at 100 ms, pushed back three times without Retry-After, then 4 s without push-back. */
  function pacedAfterAPushBack(rtt: number) {
    const { pace, clock, roundTrip } = controller(8);
    roundTrip(8, 100);
    for (let i = 0; i < 3; i++) {
      clock.now += 0.5;
      pace.answered(Answer.PushedBack, 50);
    }
    const cutTo = pace.limit;
    for (let t = 0; t < 4_000; t += rtt) roundTrip(pace.limit, rtt);
    const limits: number[] = [];
    for (let i = 0; i < 5; i++) {
      roundTrip(pace.limit, rtt);
      limits.push(pace.limit);
    }
    return { cutTo, limits };
  }

  it('a round trip a third above the base grows the limit by one a round trip (before: held where it was)', () => {
    const { cutTo, limits } = pacedAfterAPushBack(130);
    expect(limits[0]).toBeGreaterThan(cutTo);
    expect(limits.slice(1).map((limit, i) => limit - limits[i]!)).toEqual([1, 1, 1, 1]);
  });

  it('a round trip twice the base with no push-back does not shrink it (before: a tenth less every round trip, down to one)', () => {
    const { cutTo, limits } = pacedAfterAPushBack(200);
    expect(Math.min(...limits)).toBeGreaterThanOrEqual(cutTo);
    expect(limits[4]).toBeGreaterThan(limits[0]!);
  });

  it('never pushed back, a round trip a third above the base still holds it (a queue of its own)', () => {
    const { pace, clock, roundTrip } = controller(16);
    roundTrip(16, 100); // 32
    // The 32 out for a round trip: a queue slows the requests sent at 32, not those sent at 16 before it (item 45).
    clock.now += 140;
    roundTrip(32, 140); // slow start ends, a queue
    const held = pace.limit;
    for (let i = 0; i < 10; i++) roundTrip(pace.limit, 130);
    expect(pace.limit).toBe(held);
  });
});

const machines = [{ loaded: false, seed: 42 }, ...[1, 2, 3, 4, 5].map((seed) => ({ loaded: true, seed }))];

/** While all four send: their accepted events a second together, and the least and most shard against the median. */
function whileAllSend(results: SenderResult[]) {
  const from = Math.max(...results.map((r) => r.first));
  const to = Math.min(...results.map((r) => r.last));
  const counts = results.map((r) => r.acceptedAt.filter((t) => t >= from && t <= to).length).sort((a, b) => a - b);
  const median = (counts[1]! + counts[2]!) / 2;
  return { together: (counts.reduce((a, b) => a + b, 0) * 1000) / (to - from), low: counts[0]! / median, high: counts[3]! / median };
}

describe.each(machines)('four shards on 12 slots, the app taking 50 ms (240/s) (loaded: $loaded, seed $seed)', ({ loaded, seed }) => {
  const jitterMs = loaded ? 2 : 0;
  const plans = [0, 1, 2, 3].map(() => ({ rows: 2_400 }));

  it('started together: together at least 85%, no shard over 2x the median (none under 0.5x when loaded), every row accepted once', () => {
    // Before: on the quiet machine one shard ran at 4.4x the median (each kept its share of the
    // start). There, since the rotating relay, one shard spends the start at one at a time (0.11x;
    // 0.13x without this change): that regime's case, not this one's.
    const results = simulateSenders(networkedSlots(12, 50, { jitterMs, seed }), plans, { loaded, seed });
    expect(results.map((r) => r.accepted)).toEqual([2_400, 2_400, 2_400, 2_400]);
    const { together, low, high } = whileAllSend(results);
    expect(together).toBeGreaterThan(0.85 * 240);
    if (loaded) expect(low).toBeGreaterThanOrEqual(0.5);
    expect(high).toBeLessThanOrEqual(2);
  });

  // Not on the quiet machine: there a shard is left at one at a time with a 2 s gap (that regime's
  // own case, before and after this change).
  it.skipIf(!loaded)('a shard left alone by its siblings is back at 180/s within 4 s (before: 45-61/s for 8 s on seed 5)', () => {
    const alone = [1_500, 1_500, 1_500, 6_000].map((rows) => ({ rows }));
    const results = simulateSenders(networkedSlots(12, 50, { jitterMs, seed }), alone, { loaded, seed });
    const from = Math.max(...results.slice(0, 3).map((r) => r.last));
    const last = results[3]!;
    expect(last.accepted).toBe(6_000);
    const perSecond = [0, 1, 2, 3].map((k) => last.acceptedAt.filter((t) => t >= from + 1000 * k && t < from + 1000 * (k + 1)).length);
    expect(Math.max(...perSecond)).toBeGreaterThanOrEqual(180);
  });

  it('a busy client (answers 2 ms later per request in flight): together at least 85% (before: 70-78%)', () => {
    const results = simulateSenders(busyClient(networkedSlots(12, 50, { jitterMs, seed }), 2), plans, { loaded, seed });
    expect(results.map((r) => r.accepted)).toEqual([2_400, 2_400, 2_400, 2_400]);
    expect(whileAllSend(results).together).toBeGreaterThan(0.85 * 240);
  });

  it('a busy client, started 5 s apart: together at least 80%, each shard within 0.5x-2x of the median (before: 0.03x-2.8x)', () => {
    const apart = [0, 1, 2, 3].map((i) => ({ rows: 7_200, startAt: 5_000 * i }));
    const results = simulateSenders(busyClient(networkedSlots(12, 50, { jitterMs, seed }), 2), apart, { loaded, seed });
    expect(results.map((r) => r.accepted)).toEqual([7_200, 7_200, 7_200, 7_200]);
    const { together, low, high } = whileAllSend(results);
    expect(together).toBeGreaterThan(0.8 * 240);
    expect(low).toBeGreaterThanOrEqual(0.5);
    expect(high).toBeLessThanOrEqual(2);
  });
});

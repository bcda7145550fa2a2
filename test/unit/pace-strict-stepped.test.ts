/**
 * A strict limit not held under the round trip whose round trip steps up (review15a F1: 50 -> 120 ms, the sender falls to one in flight
 * for good, 8 rows/s of 100). The sixteenth pass took the round trip such a step reached as the base (#stepped); it was taken out
 * (seventeenth pass, review17): another client's queue that steps up reads the same, and taking it timed that client out (B), and
 * two separate batches on a grown limit shared it unfairly (E). The nineteenth pass took it on trial (#queued: the round trip must not
 * grow as the sender climbs) and out again: a large app's queue grows under 1 ms a request (review19 R2). These pin what a sender
 * must not do there. Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { perSecondFrom, simulateSenders, strictGrowing } from './pace-sim.js';
import { otherTimeOuts } from './pace-shared-app.js';

/**
 * review15a F6: two separate batches (`shared: false`: two people, two jobs) on one strict limit whose path steps up. Both fall
 * to one in flight; a base taken after the step by one of them (the sixteenth pass's #stepped) let it climb while the other
 * was refused (real binary 100/s: 1-2 against 69-77 rows/s, worst second 271; review17 E: 100/s, one shut out on 13-22 of 31
 * machines). Both stay at one in flight, fair. Simulated clock.
 */
describe('F6: two separate batches on a strict limit whose path steps up', () => {
  it('strict 40/s, the second 5 s later, 25 -> 60 ms each way at 20 s: from 30 s on, neither under half the other', () => {
    for (const seed of [42, 1, 2, 3, 4, 5, 6, 7]) {
      const loaded = seed !== 42;
      const service = strictGrowing(40, [[20_000, 60, 0]], { jitterMs: loaded ? 2 : 0, seed });
      const plans = [{ rows: 1_000_000 }, { rows: 1_000_000, startAt: 5_000 }];
      const rates = simulateSenders(service, plans, { loaded, seed, limitMs: 60_000, shared: false }).map((r) => perSecondFrom(r, 30_000));
      expect({ seed, fair: Math.min(...rates) >= Math.max(...rates) / 2 }).toEqual({ seed, fair: true });
    }
  });
});

/**
 * review17 B: another client's load that STEPS is no path step. A strict 100/s in front of a small app (4 workers x 20 ms, a 120 ms
 * queue time-out, 503) that another client starts on with 30 requests in flight at 25 s: its queue lifts our round trip 70 -> 160 ms
 * in one step and holds it. The sixteenth pass's #stepped took that as the base, climbed to 10-11 in flight, and the time-outs it
 * caused (503s after the base) kept it: the other client timed out ~1,000 times in 30 s (21 of 21 machines). Simulated clock.
 */
describe("another client's queue that steps up is not a path", () => {
  it('strict 100/s > 4 workers x 20 ms, 120 ms queue time-out, another client 30 in flight from 25 s: from 30 s on, it is not timed out', () => {
    for (const seed of [42, 1, 2, 3, 4, 5])
      expect({
        seed,
        otherTimeOuts: otherTimeOuts(seed, strict100(), { workers: 4, timeOutMs: 120, inFlight: 30, apartMs: 0, limitMs: 60_000 }) <= 10,
      }).toEqual({
        seed,
        otherTimeOuts: true,
      });
  });
});

/**
 * R2: another client's queue that grows by less than the trial's threshold (the nineteenth pass's #queued, taken out) with each of ours. A strict 100/s in front of an
 * app of 30 workers x 20 ms (FIFO, a 100 ms queue time-out, 503), another client with 240 requests in flight from 25 s (each sent
 * again 50 ms after its answer): its queue lifts our round trip 50 -> ~160 ms in one step, and each request of ours costs it 0.67 ms.
 * Taken as the base (the trial), the sender climbed; its own time-outs held it before the trial saw 4 ms: the other client, never
 * timed out at one in flight (03d6d2e: 0 on 12 of 12 machines), was timed out 776-4,185 times in 60 s (review19 R2).
 */
describe("another client's queue that grows by under a millisecond with each of ours is not a path", () => {
  it('strict 100/s > 30 workers x 20 ms, 100 ms queue time-out, another client 240 in flight from 25 s: from 30 s on, it is not timed out', () => {
    for (const seed of [42, 1, 2, 3, 4, 5])
      expect({
        seed,
        otherTimeOuts:
          otherTimeOuts(seed, strict100(), { workers: 30, timeOutMs: 100, inFlight: 240, apartMs: 0.37, limitMs: 90_000 }) <= 10,
      }).toEqual({
        seed,
        otherTimeOuts: true,
      });
  });
});

/** A strict 100/s as before: an arrival within 10 whole ms of the last one let in is refused. */
function strict100(): (arrival: number) => boolean {
  let last = -Infinity;
  return (arrival) => {
    if (Math.floor(arrival) - Math.floor(last) < 10) return true;
    last = arrival;
    return false;
  };
}

/**
 * F1's proof is one start beside the one in flight, which a strict limit refuses at the path's round trip. nginx's limit_req with
 * `burst=1 nodelay` (a bucket of two, 503 with no Retry-After) lets that one extra start in: nothing is refused, nothing proved, and
 * the round trip another client's queue lifted was kept as the base, the sender climbing into that client (review25: timed out 51-382
 * times in review17 B's set-up, 3,805-4,436 in review19 R2's, from 30 s on; 0 before F1's base). A proof whose refusal does not come
 * back within four round trips proves nothing: the base before comes back. Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { otherTimeOuts } from './pace-shared-app.js';

/** A limit of 100/s that is a bucket of `burst` + 1 (limit_req burst=N nodelay): an arrival with no token is refused. */
function bucket(burst: number): (arrival: number) => boolean {
  let [tokens, lastArrival] = [burst + 1, 0];
  return (arrival) => {
    [tokens, lastArrival] = [Math.min(burst + 1, tokens + (arrival - lastArrival) / 10), arrival];
    if (tokens < 1) return true;
    tokens -= 1;
    return false;
  };
}

describe("another client's queue behind a strict limit with a burst of one is not a path", () => {
  it('review17 B behind limit_req burst=1 nodelay: from 30 s on, the other client is not timed out', () => {
    for (const seed of [42, 1, 2]) {
      const timedOut = otherTimeOuts(seed, bucket(1), { workers: 4, timeOutMs: 120, inFlight: 30, apartMs: 0, limitMs: 60_000 });
      expect({ seed, timedOut: timedOut <= 10 }).toEqual({ seed, timedOut: true });
    }
  });

  it('review19 R2 behind limit_req burst=1 nodelay: from 30 s on, the other client is not timed out', () => {
    for (const seed of [42, 1, 2]) {
      const timedOut = otherTimeOuts(seed, bucket(1), { workers: 30, timeOutMs: 100, inFlight: 240, apartMs: 0.37, limitMs: 90_000 });
      expect({ seed, timedOut: timedOut <= 10 }).toEqual({ seed, timedOut: true });
    }
  });
});

/**
 * F1's proof is one start beside the one in flight, which a strict limit refuses at the path's round trip. nginx's limit_req with
 * `burst=1 nodelay` (a bucket of two, 503 with no Retry-After) lets that one extra start in: nothing is refused, nothing proved, and
 * the round trip another client's queue lifted was kept as the base, the sender climbing into that client (review25: timed out 51-382
 * times in review17 B's set-up, 3,805-4,436 in review19 R2's, from 30 s on; 0 before F1's base). A proof whose refusal does not come
 * back within four round trips proves nothing: the base before comes back. Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { simulateSenders, type Service } from './pace-sim.js';

/** As pace-strict-stepped's otherTimeOuts, the limit a bucket of `burst` + 1 refilled at 100/s. */
function otherTimeOuts(
  seed: number,
  burst: number,
  {
    workers,
    timeOutMs,
    inFlight,
    apartMs,
    limitMs,
  }: { workers: number; timeOutMs: number; inFlight: number; apartMs: number; limitMs: number },
): number {
  const free = new Array<number>(workers).fill(0);
  let [tokens, lastArrival, timeOuts] = [burst + 1, 0, 0];
  const others = Array.from({ length: inFlight }, (_, i) => 25_000 + i * apartMs);
  const serve = (arrival: number, ours: boolean): { done: number; timedOut: boolean } => {
    const w = free.indexOf(Math.min(...free));
    const start = Math.max(arrival, free[w]!);
    if (start - arrival > timeOutMs) {
      if (!ours && arrival >= 30_000) timeOuts++;
      return { done: arrival + timeOutMs, timedOut: true };
    }
    free[w] = start + 20;
    return { done: free[w]!, timedOut: false };
  };
  const service: Service = (t) => {
    const arrival = t + 25;
    for (;;) {
      const i = others.indexOf(Math.min(...others));
      if (others[i]! > arrival) break;
      others[i] = serve(others[i]!, false).done + 50;
    }
    [tokens, lastArrival] = [Math.min(burst + 1, tokens + (arrival - lastArrival) / 10), arrival];
    if (tokens < 1) return { at: arrival + 25, answer: Answer.PushedBack };
    tokens -= 1;
    const { done, timedOut } = serve(arrival, true);
    return { at: done + 25, answer: timedOut ? Answer.PushedBack : Answer.Accepted };
  };
  simulateSenders(service, [{ rows: 1_000_000 }], { loaded: seed !== 42, seed, limitMs });
  return timeOuts;
}

describe("another client's queue behind a strict limit with a burst of one is not a path", () => {
  it('review17 B behind limit_req burst=1 nodelay: from 30 s on, the other client is not timed out', () => {
    for (const seed of [42, 1, 2]) {
      const timedOut = otherTimeOuts(seed, 1, { workers: 4, timeOutMs: 120, inFlight: 30, apartMs: 0, limitMs: 60_000 });
      expect({ seed, timedOut: timedOut <= 10 }).toEqual({ seed, timedOut: true });
    }
  });

  it('review19 R2 behind limit_req burst=1 nodelay: from 30 s on, the other client is not timed out', () => {
    for (const seed of [42, 1, 2]) {
      const timedOut = otherTimeOuts(seed, 1, { workers: 30, timeOutMs: 100, inFlight: 240, apartMs: 0.37, limitMs: 90_000 });
      expect({ seed, timedOut: timedOut <= 10 }).toEqual({ seed, timedOut: true });
    }
  });
});

/**
 * Issue 31, the eleventh pass's review of item 46 (reverted; docs/pace.md), its F1: a small service that turns
 * slow behind a queue with a time-out (2 workers of 20 ms, 200 ms from 3 s on, a FIFO queue that answers 503 to
 * what waited over 1 s, with or without Retry-After: 1; 25 ms each way) must not have its time-out taken for a
 * round trip. Item 46 read the round trip, capped by the time-out, as "not falling with the limit" and rebased on
 * it: the limit went to 64, each row waited the full second, 784-1,202 refusals in 40 s with Retry-After (23-32
 * without) on these machines. Before it, and after its revert: one in flight, 4 rows/s, none refused. The next try
 * at item 46 must keep these. On the simulated clock; no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { meanLimitFrom, type Service, simulateSenders } from './pace-sim.js';

/** 2 workers of 20 ms, 200 ms from 3 s; refused after 1 s queued; refusals counted from `fromMs`. */
function slowingGateway(retryAfterMs: number | undefined, fromMs: number): { service: Service; refused: () => number } {
  const free = [0, 0];
  let refused = 0;
  const service: Service = (t) => {
    const arrival = t + 25;
    const worker = free[0]! <= free[1]! ? 0 : 1;
    const start = Math.max(arrival, free[worker]!);
    if (start - arrival > 1_000) {
      if (t >= fromMs) refused++;
      return { at: arrival + 1_025, answer: Answer.PushedBack, retryAfterMs };
    }
    free[worker] = start + (arrival < 3_000 ? 20 : 200);
    return { at: free[worker]! + 25, answer: Answer.Accepted };
  };
  return { service, refused: () => refused };
}

describe('a small service that turns slow behind a 1 s queue time-out: the time-out is not a base', () => {
  for (const retryAfterMs of [1_000, undefined]) {
    it.each([2, 13, 14, 18, 23, 27])(
      `${retryAfterMs ? 'with' : 'without'} Retry-After, loaded machine %i: few in flight, (almost) none refused from 20 s`,
      (seed) => {
        const { service, refused } = slowingGateway(retryAfterMs, 20_000);
        const { trace, mean } = meanLimitFrom(20_000);
        simulateSenders(service, [{ rows: 1e9 }], { loaded: true, seed, limitMs: 60_000, trace });
        // About one in flight on these machines (10 rows/s is what 2 workers of 200 ms take); item 46: 11-20 on average.
        expect(mean()).toBeLessThan(4);
        // None refused before item 46 and after its revert; with it 23-1,202 in these 40 s.
        expect(refused()).toBeLessThanOrEqual(3);
      },
    );
  }
});

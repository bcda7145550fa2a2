/**
 * review14a's F5: B5's one more in flight (two slow round trips in a row about as long) also took a small slow app behind a
 * strict limit for a longer path. Held under the round trip with the app the bottleneck (strict 25/s in front of one worker
 * of 45-50 ms, FIFO), our own queue grows the round trip slowly and steadily, each window within a tenth of the one before:
 * one more each pair of slow windows, and the app's queue grew to 0.3 s (7948296: ~0.1 s); with a 250 ms queue time-out,
 * 9-15 time-outs in 30 s. A longer path does not grow with the count; our queue does: grown by half what one more request
 * costs at the accepted rate since the first one more, it is ours: one taken back, none more while the round trip is slow.
 * Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { numbers, simulate, type Service } from './pace-sim.js';

/** nginx's limit_req without burst (503) in front of one FIFO worker of `workMs` and a queue time-out (503); waits by arrival. */
function strictBeforeOneWorker(perSecond: number, workMs: number, timeoutMs: number, jitterMs: number, seed: number) {
  const random = numbers(seed * 37 + 11);
  const waits: [number, number, boolean][] = [];
  let [last, free] = [-Infinity, 0];
  const service: Service = (t) => {
    const arrival = t + 25 + jitterMs * random();
    const back = () => 25 + jitterMs * random();
    if (Math.floor(arrival) - Math.floor(last) < 1000 / perSecond) return { at: arrival + back(), answer: Answer.PushedBack };
    last = arrival;
    const start = Math.max(arrival, free);
    if (start - arrival > timeoutMs) {
      waits.push([arrival, timeoutMs, true]);
      return { at: arrival + timeoutMs + back(), answer: Answer.PushedBack };
    }
    free = start + workMs;
    waits.push([arrival, start - arrival, false]);
    return { at: free + back(), answer: Answer.Accepted };
  };
  return { service, waits };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('F5: a strict limit in front of a small slow app that queues', () => {
  for (const workMs of [45, 50]) {
    it(`strict 25/s -> one worker of ${workMs} ms: from 30 s on, the app's median queue wait under 140 ms (6909c8b: 182-352; 7948296: 83-114)`, () => {
      for (const seed of [42, 1, 2, 3, 4, 5]) {
        const loaded = seed !== 42;
        const { service, waits } = strictBeforeOneWorker(25, workMs, 1000, loaded ? 2 : 0, seed);
        const result = simulate(service, 1_400, { loaded, seed });
        const late = waits.filter(([at]) => at >= 30_000 && at < 60_000);
        expect({ seed, wait: median(late.map(([, ms]) => ms)) < 140 }).toEqual({ seed, wait: true });
        expect({ seed, rate: late.length / 30 > 0.95 * (1000 / workMs) }).toEqual({ seed, rate: true });
        expect(result.pushedBackLate / result.answersLate).toBeLessThan(0.05);
      }
    });
  }

  it('strict 25/s -> one worker of 45 ms with a 250 ms queue time-out: none timed out from 30 s on (6909c8b: 11-13)', () => {
    for (const seed of [42, 1, 2, 3, 4, 5]) {
      const loaded = seed !== 42;
      const { service, waits } = strictBeforeOneWorker(25, 45, 250, loaded ? 2 : 0, seed);
      simulate(service, 1_400, { loaded, seed });
      expect({ seed, timedOut: waits.filter(([at, , out]) => at >= 30_000 && out).length }).toEqual({ seed, timedOut: 0 });
    }
  });
});

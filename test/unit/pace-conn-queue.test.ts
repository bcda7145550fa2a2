/**
 * --concurrency auto in front of a small slow service that queues (a gateway with a few workers and a
 * time-out on its queue: Heroku's router, a Puma or Gunicorn backlog), on the simulated clock. Its
 * round trip grows with every request queued, so the first window's spread is the queue itself: a base
 * that allowed for that spread as jitter (item 37, reverted) let slow start run on to 10-11 in flight,
 * each request queued near the time-out (on a real server: 2 workers of 200 ms, median wait 182 -> 712
 * ms, 12 refused). Held against the fastest window, the limit stays near what the workers take.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { meanLimitFrom, type Service, simulateSenders } from './pace-sim.js';

/** `workers` taking `serviceMs` each, 25 ms each way, a queue that refuses what waited over `timeoutMs`. */
function gateway(workers: number, serviceMs: number, timeoutMs: number): Service {
  const free = new Array<number>(workers).fill(0);
  return (t) => {
    const arrival = t + 25;
    const worker = free.indexOf(Math.min(...free));
    const start = Math.max(arrival, free[worker]!);
    if (start - arrival > timeoutMs) return { at: arrival + timeoutMs + 25, answer: Answer.PushedBack };
    free[worker] = start + serviceMs;
    return { at: start + serviceMs + 25, answer: Answer.Accepted };
  };
}

describe('a small slow service that queues is not filled to its time-out', () => {
  for (const [workers, serviceMs, seed] of [
    [1, 50, 1],
    [1, 200, 2],
    [2, 200, 3],
    // Its first burst's answers come back in pairs a service time apart, a pair spread 2-3 ms by the client: not jitter (#burstAnswer).
    [2, 200, 9],
  ] as const) {
    it(`${workers} worker(s) of ${serviceMs} ms, loaded machine ${seed}: about 3 in flight, 3 refused at most (item 37: 10-11, up to 13)`, () => {
      const { trace, mean } = meanLimitFrom(5_000);
      const rows = (workers * 1_000 * 20) / serviceMs;
      const [result] = simulateSenders(gateway(workers, serviceMs, 1_000), [{ rows }], { loaded: true, seed, trace });
      expect(mean()).toBeLessThan(4.5);
      expect(result!.pushedBack).toBeLessThanOrEqual(3);
    });
  }
});

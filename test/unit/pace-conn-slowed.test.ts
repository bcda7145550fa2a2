/**
 * --concurrency auto when a service turns slower for everyone (its backend degrades, a queue of other clients' forms),
 * never pushed back, on the simulated clock (item 46). The queue rules judged every window against the fastest one
 * seen, so a round trip the service now takes at any pace read as a queue of ours for good: the limit shrank to one
 * at a time and stayed (8 workers of 50 ms: 10 rows/s where 16 in flight take 160/s). Now, when the round trip held
 * within 5% while the limit fell to a quarter, down to 2 in flight, the queue is not ours: that round trip is the base,
 * tried again every 10 s by a quarter fewer for two windows (pace-conn-probe.test.ts; the third form, which kept it for
 * good, kept a slow spell's queue after it: pace-conn-slow-spell.test.ts).
 * A queue of ours falls as the limit does (pace-conn-queue.test.ts: small slow services hold about 3 in flight;
 * pace-conn-slowed-timeout.test.ts and pace-shared-queue.test.ts: review46's F1 and F0, which the first try, rebasing
 * at any limit, failed); shards' queue moves as they come down (pace-conn-slowed-shards.test.ts, which the second failed).
 */
import { describe, expect, it } from 'vitest';
import { Answer, type Pace } from '../../src/batch/pace.js';
import { simulateSenders, type Service } from './pace-sim.js';

/** Answers in 50 ms until 3 s; from then, `workers` taking `serviceMs` each, 25 ms each way, a queue beyond them. */
function slowsAt3s(workers: number, serviceMs: number): Service {
  const free = new Array<number>(workers).fill(0);
  return (t) => {
    if (t < 3_000) return { at: t + 50, answer: Answer.Accepted };
    const arrival = t + 25;
    const worker = free.indexOf(Math.min(...free));
    free[worker] = Math.max(arrival, free[worker]!) + serviceMs;
    return { at: free[worker]! + 25, answer: Answer.Accepted };
  };
}

/** Every answer 300 ms from 3 s on, whatever the pace (no queue at all). */
const slowAt3s: Service = (t) => ({ at: t + (t < 3_000 ? 50 : 300), answer: Answer.Accepted });

/** Accepted a second and the mean limit from 20 s to 30 s. */
function from20s(service: Service, seed: number): { perSecond: number; limit: number } {
  let [sum, answers, accepted] = [0, 0, 0];
  const trace = (_: number, now: number, pace: Pace, answer: Answer) => {
    if (now < 20_000) return;
    sum += pace.limit;
    answers++;
    if (answer === Answer.Accepted) accepted++;
  };
  simulateSenders(service, [{ rows: 1e9 }], { loaded: seed !== 42, seed, trace, limitMs: 30_000 });
  return { perSecond: accepted / 10, limit: sum / answers };
}

describe('a service that turns slower for everyone is not taken for a queue of ours (item 46)', () => {
  for (const seed of [42, 1, 2]) {
    it(`every answer 300 ms from 3 s, machine ${seed}: back to 64 in flight (before: 1, 3 rows/s)`, () => {
      const { perSecond, limit } = from20s(slowAt3s, seed);
      expect(perSecond).toBeGreaterThan(0.85 * (64_000 / 300));
      expect(limit).toBeGreaterThan(48);
    });
    it(`8 workers of 50 ms from 3 s, machine ${seed}: at least 85% of 160/s, no deep queue (before: 1 in flight, 10 rows/s)`, () => {
      const { perSecond, limit } = from20s(slowsAt3s(8, 50), seed);
      expect(perSecond).toBeGreaterThan(0.85 * 160);
      // 16 in flight take 160/s at the 100 ms the service takes now; 32 would queue as many again.
      expect(limit).toBeLessThan(32);
    });
    it(`4 workers of 100 ms from 3 s, machine ${seed}: at least 85% of 40/s, no deep queue (before: 1 in flight, 7 rows/s)`, () => {
      const { perSecond, limit } = from20s(slowsAt3s(4, 100), seed);
      expect(perSecond).toBeGreaterThan(0.85 * 40);
      expect(limit).toBeLessThan(12);
    });
  }
});

/**
 * Issue 31, item 50 (docs/pace.md): a service in trouble answers 503 slowly (a gateway waiting on a dead
 * backend), then recovers. At one at a time a slow 503 came back every second or three, too few for the outage
 * rule's five refusals in a row, so the sender was not seen to have been down: it stayed at one at a time behind
 * its gap for 7-8 s (the last review, on real services: ~97 s at ~43 rows/s). A refusal now counts as the round
 * trips it took. On the simulated clock; no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { networkedSlots, simulateSenders, type Service } from './pace-sim.js';

/** One sender; the service refuses every request sent from 2 s to 12 s with a 503 `slowMs` later. Accepted per second. */
function slow503s(slowMs: number, seed: number, inner: Service) {
  const service: Service = (t, who) => (t >= 2_000 && t < 12_000 ? { at: t + slowMs, answer: Answer.PushedBack } : inner(t, who));
  const [result] = simulateSenders(service, [{ rows: 20_000 }], { loaded: seed !== 42, seed, limitMs: 200_000 });
  const perSecond = (s: number) => result!.acceptedAt.filter((t) => t >= s * 1_000 && t < (s + 1) * 1_000).length;
  return { result: result!, perSecond };
}

describe('after 10 s of slow 503s, the service back', () => {
  const fast: Service = (t) => ({ at: t + 20, answer: Answer.Accepted });
  it.each([
    [2_000, 42],
    [3_000, 42],
    [2_000, 1],
    [3_000, 2],
  ])('503s %i ms late, seed %i: an app answering in 20 ms is back to half its pace within 2 s', (slowMs, seed) => {
    const { result, perSecond } = slow503s(slowMs, seed, fast);
    expect(result.accepted).toBe(20_000);
    // Answers to requests sent from 12 s on come back from 12 s; the last slow 503s up to slowMs later.
    const back = 12 + 2;
    // Before: 42-46 a second (one at a time behind a 22 ms gap) until 19-20 s.
    expect(perSecond(back)).toBeGreaterThan(perSecond(1) / 2);
  });

  it('12 slots behind 25 ms each way, 503s 2 s late: back to half its pace within 3 s', () => {
    const { result, perSecond } = slow503s(2_000, 1, networkedSlots(12, 50, { jitterMs: 2, seed: 1 }));
    expect(result.accepted).toBe(20_000);
    // Before: 9 a second (one at a time behind a 114 ms gap) until 20 s.
    expect(perSecond(12 + 3)).toBeGreaterThan(perSecond(1) / 2);
  });
});

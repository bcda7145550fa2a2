/**
 * Issue 31, review46d's G2: a service that turns slower for everyone (300 ms more on every answer from 5 s to 60 s) and, from
 * 20 s, refuses (503, no Retry-After) what would wait more than 100 ms in its queue. Rebased on the spell's round trip (item 46),
 * the sender holds the count that round trip needs; as the spell ends, that count is a queue of 300 ms and is refused. Those
 * push-backs were the rebase's own queue: paced for good on them, the pace held a 503 limit's twice the round trip and was refused
 * about 2 a second for the rest of the batch (ffd19c9, which sends one at a time in the spell: none). 8 workers of 50 ms behind a
 * FIFO queue, 25 ms each way. On the simulated clock; no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { type Service, simulateSenders } from './pace-sim.js';

function limitInSpell(fromMs: number): { service: Service; after: { accepted: number; refused: number } } {
  const free = new Array<number>(8).fill(0);
  const after = { accepted: 0, refused: 0 };
  const service: Service = (t) => {
    const arrival = t + 25;
    const worker = free.indexOf(Math.min(...free));
    const start = Math.max(arrival, free[worker]!);
    const counted = t >= fromMs && t < fromMs + 60_000;
    if (arrival >= 20_000 && start - arrival > 100) {
      if (counted) after.refused++;
      return { at: arrival + 25, answer: Answer.PushedBack };
    }
    free[worker] = start + 50;
    if (counted) after.accepted++;
    return { at: start + 75 + (arrival >= 5_000 && arrival < 60_000 ? 300 : 0), answer: Answer.Accepted };
  };
  return { service, after };
}

describe('a limit met while rebased does not leave the pace refused for good (review46d G2)', () => {
  it.each([42, 1, 2, 3, 4, 10])('one sender, machine %i: from 70 s, what the service takes and nearly nothing refused', (seed) => {
    const { service, after } = limitInSpell(70_000);
    simulateSenders(service, [{ rows: 1e9 }], { loaded: seed !== 42, seed, limitMs: 130_000 });
    expect(after.accepted / 60).toBeGreaterThan(150);
    expect(after.refused).toBeLessThan(10);
  });
});

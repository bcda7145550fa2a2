/**
 * Issue 31's targets on the simulated clock, each on a quiet machine and on five loaded seeds
 * (answers late at random, event-loop stalls, network jitter): a limit on requests at once behind a
 * network, the app at 50 ms and at 5 ms, and a strict rate limit without burst. The controller
 * before the burst, down-rate and paced-noise fixes missed each of them (docs/pace.md has the figures).
 */
import { describe, expect, it } from 'vitest';
import { Answer, Pace } from '../../src/batch/pace.js';
import { networkedSlots, simulate, strictRate } from './pace-sim.js';

const machines = [{ loaded: false, seed: 42 }, ...[1, 2, 3, 4, 5].map((seed) => ({ loaded: true, seed }))];

describe.each(machines)('issue 31 targets on the simulated clock (loaded: $loaded, seed $seed)', ({ loaded, seed }) => {
  const jitterMs = loaded ? 2 : 0;

  it('12 slots behind 25 ms each way, the app taking 50 ms: at least 85% of the 240/s they allow (before: 81-84%)', () => {
    const result = simulate(networkedSlots(12, 50, { jitterMs, seed }), 2_400, { loaded, seed });
    expect(result.accepted).toBe(2_400);
    expect(result.perSecond).toBeGreaterThan(0.85 * 240);
    expect(result.pushedBack / result.answers).toBeLessThan(0.03);
  });

  it('12 slots behind 25 ms each way, the app taking 5 ms: at least 85% of what 64 at once allow (before: 71-76%)', () => {
    const ceiling = (64 * 1000) / 55;
    const result = simulate(networkedSlots(12, 5, { jitterMs, seed }), 9_000, { loaded, seed });
    expect(result.accepted).toBe(9_000);
    expect(result.perSecond).toBeGreaterThan(0.85 * ceiling);
  });

  it('a strict 100/s without burst (503 or 429, no Retry-After): at least 85/s from 5 s on, at most 5% pushed back after 5 s (before: 78-93/s)', () => {
    const result = simulate(strictRate(100, { jitterMs, seed }), 1_500, { loaded, seed, from: 5_000 });
    const late = result.acceptedAt.filter((t) => t >= 5_000).length;
    expect(result.accepted).toBe(1_500);
    expect((late * 1000) / (result.last - 5_000)).toBeGreaterThan(85);
    expect(result.pushedBackLate / result.answersLate).toBeLessThan(0.05);
  });

  it('a strict 20/s without burst (one a round trip at 50 ms): at least 85% of it, at most 5% pushed back after 5 s (before: 4.2-6.9%)', () => {
    // Growing past two at once every 3 s cost five push-backs a time; once cut back to one at a
    // time from two or three thrice, only a probe of two every 100 answers goes past it.
    const result = simulate(strictRate(20, { jitterMs, seed }), 300, { loaded, seed, from: 5_000 });
    const late = result.acceptedAt.filter((t) => t >= 5_000).length;
    expect(result.accepted).toBe(300);
    expect((late * 1000) / (result.last - 5_000)).toBeGreaterThan(0.85 * 20);
    expect(result.pushedBackLate / result.answersLate).toBeLessThan(0.05);
  });
});

describe('slow start refused in a burst', () => {
  /** A controller whose requests go out as take() allows, on a clock moved by hand. */
  function started(initial: number) {
    const clock = { now: 0 };
    const pace = new Pace({ max: 64, initial, now: () => clock.now });
    let inFlight = 0;
    while (pace.take(inFlight)) inFlight++;
    return { pace, clock, inFlight };
  }

  it('a push-back without Retry-After to requests sent together does not end slow start: it goes on, paced, past where the burst was refused', () => {
    const { pace, clock, inFlight } = started(8);
    expect(inFlight).toBe(8); // eight at once: a burst
    clock.now = 50;
    for (let i = 0; i < 2; i++) pace.answered(Answer.Accepted, 50);
    for (let i = 0; i < 6; i++) pace.answered(Answer.PushedBack, 50); // the service refuses bursts
    const cut = pace.limit;
    expect(cut).toBeLessThan(8);
    // Paced now: the starts no longer go out together.
    expect(pace.take(0)).toBe(true);
    expect(pace.take(1)).toBe(false);
    // Answers as fast as the first: the limit doubles each round trip, past where the burst was refused.
    for (let round = 1; round <= 5; round++) {
      clock.now = 50 + 50 * round;
      for (let i = 0; i < pace.limit; i++) pace.answered(Answer.Accepted, 50);
    }
    expect(pace.limit).toBeGreaterThan(8);
  });

  it('requests sent one at a time and refused still end slow start under where they were refused', () => {
    const clock = { now: 0 };
    const pace = new Pace({ max: 64, initial: 8, now: () => clock.now });
    // No take(): nothing says they went out together (as the controller tests of issue 22 drive it).
    clock.now = 50;
    for (let i = 0; i < 2; i++) pace.answered(Answer.Accepted, 50);
    for (let i = 0; i < 6; i++) pace.answered(Answer.PushedBack, 50);
    const cut = pace.limit;
    for (let round = 1; round <= 5; round++) {
      clock.now = 50 + 50 * round;
      for (let i = 0; i < pace.limit; i++) pace.answered(Answer.Accepted, 50);
    }
    expect(pace.limit).toBeLessThan(8);
    expect(pace.limit).toBeGreaterThanOrEqual(cut);
  });
});

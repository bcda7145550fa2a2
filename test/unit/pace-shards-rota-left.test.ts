/**
 * The rota (`#rotaWait`) when a shard is left alone and another starts beside it. The eighteenth pass tried five rules for a
 * shard run alone (the real binary alone takes about half a batch's pace) and kept none but take()'s least wait: each broke
 * one of the cases below or pace-shards-rota's two of four (docs/pace.md, "Eighteenth pass"). Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer, Pace } from '../../src/batch/pace.js';
import { simulateSenders, strictRate, whileAllSend } from './pace-sim.js';

describe('shards left on the rota', () => {
  it('a shard started 30-40 s after another, alone on the rota until then, gets its turns back within 30 s', () => {
    // review18 R1: 14.6-27.8 rows/s over its first 30 s. With the one alone keeping a turn at one push-back (tried): 0.5-17.6.
    for (const backMs of [30_000, 40_000])
      for (const seed of [42, 7, 8]) {
        const plans = [{ rows: 12_000 }, { rows: 2_000, startAt: backMs }, { rows: 0 }, { rows: 0 }];
        const [, late] = simulateSenders(strictRate(100, { seed }), plans, { seed, limitMs: backMs + 30_000 });
        const perSecond = late!.acceptedAt.filter((t) => t < backMs + 30_000).length / 30;
        expect({ backMs, seed, fair: perSecond >= 10 }).toEqual({ backMs, seed, fair: true });
      }
  });

  it('a shard started 10 s after the other, refused by it now and then in its own turns, gets them back', () => {
    const results = simulateSenders(strictRate(100), [{ rows: 3_000 }, { rows: 3_000, startAt: 10_000 }], { limitMs: 400_000 });
    // 0.94-0.97 of the other while both send. The one alone until then shutting a turn it took over only at two push-backs
    // within 20 answers (tried for a shard run alone): the late one, refused more than accepted and slowed, never pushed it back
    // that often: 0.02 (bench-pace-ra's row).
    expect(whileAllSend(results).low).toBeGreaterThan(0.8);
  });

  it('a start held for the rota is always woken: pausedFor() is over 0 whenever take() refuses', () => {
    // As in batch.ts: the pace on a monotonic clock (here 11 days up: a double holds it to 1.2e-7 ms), the rota on the wall clock.
    const [clock, wall] = [{ now: 1e9 }, { now: 0 }];
    const rota = { index: 0, count: 2, clock: () => wall.now };
    const pace = new Pace({ max: 64, initial: 4, now: () => clock.now, random: () => 0.5, shared: true, rota });
    // Pushed back without Retry-After (paced), refusals as fast as acceptances (a rate, not slots): on the rota.
    for (const answer of [...Array<Answer>(15).fill(Answer.PushedBack), ...Array<Answer>(10).fill(Answer.Accepted)]) {
      [clock.now, wall.now] = [clock.now + 50, wall.now + 50];
      pace.answered(answer, 50);
    }
    // Shard 1's turn (2-4 s), probed from 0.375 of it (random 0.5): asked a hair before, it must wait, and say it does.
    pace.take(0);
    wall.now = 2_000;
    pace.take(0);
    wall.now = 2_750 - 1e-9;
    const took = pace.take(0);
    expect({ took, woken: pace.pausedFor() > 0 }).toEqual({ took: false, woken: true });
  });

  it('one pair of answers whose send times read under 2 ms apart (whole-ms round trips) leaves a shard on the rota; three do not', () => {
    // audit19: on the real binary a shard latched off the rota for good on one such pair, then hogged or lagged for minutes.
    const onRota = (pairs: number): boolean => {
      const [clock, wall] = [{ now: 1e9 }, { now: 0 }];
      const rota = { index: 0, count: 2, clock: () => wall.now };
      const pace = new Pace({ max: 64, initial: 4, now: () => clock.now, random: () => 0.5, shared: true, rota });
      const answer = (kind: Answer, step: number, rtt = 50) => {
        [clock.now, wall.now] = [clock.now + step, wall.now + step];
        pace.answered(kind, rtt);
      };
      for (let i = 0; i < 15; i++) answer(Answer.PushedBack, 50);
      for (let i = 0; i < 10; i++) answer(Answer.Accepted, 50);
      // Two accepted answers 1 ms apart at the same round trip: their starts read 1 ms apart.
      for (let i = 0; i < pairs; i++) {
        answer(Answer.Accepted, 50);
        answer(Answer.Accepted, 1);
      }
      // In shard 1's turn (2-4 s), before its probes (from 0.375 of it): on the rota it waits; off it, it goes.
      wall.now = 2_100;
      return !pace.take(0);
    };
    expect({ one: onRota(1), three: onRota(3) }).toEqual({ one: true, three: false });
  });
});

/**
 * Issue 31, items 20 and 21 of docs/pace.md, on the simulated clock: a paced sender at one at a time
 * tells random refusals from others' slots by its own probes (item 20), and one that keeps every slot
 * of a strict limit without ever being refused leaves room now and then (item 21). The tests of what
 * changed fail on the controller of the eighth pass (the relay alone); the two that say "the gap stays"
 * pin where the rule must not fire (the second failed on a first version that counted probes alone).
 */
import { describe, expect, it } from 'vitest';
import { Answer, Pace } from '../../src/batch/pace.js';
import { simulateSenders, strictRate, worstSecond } from './pace-sim.js';

const RTT = 50;

/** Pushed back at two, so one at a time and paced; then, with `gap`, refused after an accepted start and again: the relay. */
function paced(gap: boolean) {
  const clock = { now: 0 };
  const pace = new Pace({ max: 64, initial: 1, now: () => clock.now, random: () => 0.5 });
  const answers = (n: number, answer: Answer, ms = RTT) => {
    for (let i = 0; i < n; i++) {
      clock.now += Math.max(ms, pace.gapMs);
      pace.answered(answer, ms);
    }
  };
  answers(1, Answer.Accepted); // slow start: two at once
  answers(3, Answer.PushedBack, 0.5); // pushed back at two, no Retry-After: one at a time, paced
  if (gap) answers(2, Answer.PushedBack); // refused after an accepted start, then again: probing, a gap
  return { pace, clock, answers };
}

describe("random refusals told from others' slots at one at a time (item 20)", () => {
  it('probes refused as often as the other starts (a third): the sender leaves the relay for a slow start', () => {
    const { pace, answers } = paced(true);
    expect(pace.gapMs).toBeGreaterThan(0);
    for (let cycle = 0; cycle < 20 && pace.gapMs > 0; cycle++) {
      answers(3, Answer.Accepted); // the probe and two more get in...
      answers(1, Answer.PushedBack); // ...the next is refused (one start in three)
      if (cycle % 2) answers(1, Answer.PushedBack); // and every other probe too (one in three)
    }
    expect(pace.gapMs).toBe(0);
    answers(1, Answer.Accepted);
    expect(pace.limit).toBeGreaterThan(1);
  });

  it('probes mostly refused, the owner keeping its slot for a run (shards): the gap stays', () => {
    const { pace, answers } = paced(true);
    for (let cycle = 0; cycle < 40; cycle++) {
      answers(10, Answer.Accepted);
      answers(4, Answer.PushedBack); // the owner's slot taken, then three probes refused
    }
    expect(pace.gapMs).toBeGreaterThan(RTT);
    expect(pace.limit).toBe(1);
  });

  it('probes always in, the other starts refused one in twelve (a sender alone near its own spacing): the gap stays', () => {
    const { pace, answers } = paced(true);
    for (let cycle = 0; cycle < 40; cycle++) {
      answers(12, Answer.Accepted);
      // Sent 5 ms sooner after its last accepted start than those came (early, item 22), as its own limit refuses
      // it; at a spacing it was accepted at, it is others' slots at once, and it leaves (pace-strict-slots.test.ts).
      answers(1, Answer.PushedBack, RTT + 5);
    }
    expect(pace.gapMs).toBeGreaterThan(RTT);
    expect(pace.limit).toBe(1);
  });
});

describe('one at a time with no gap, it leaves room (item 21)', () => {
  it('every 15th start waits a round trip more; the others go as each answer comes', () => {
    const { pace, clock } = paced(false);
    expect(pace.limit).toBe(1);
    expect(pace.gapMs).toBe(0);
    const starts: number[] = [];
    while (starts.length < 46) {
      if (!pace.take(0)) {
        clock.now += Math.max(1, pace.pausedFor());
        continue;
      }
      starts.push(clock.now);
      clock.now += RTT;
      pace.answered(Answer.Accepted, RTT);
    }
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    // Before item 21: every start a round trip after the last, 45 of 45 (a strict 20/s at 50 ms: every slot).
    expect(gaps.filter((g) => g >= 2 * RTT)).toHaveLength(3);
    expect(gaps.filter((g) => g === RTT)).toHaveLength(42);
  });

  it.each([0, 5_000])(
    'four shards on a strict 20/s, quiet machine (no jitter), started %i ms apart: each gets in within 5 s, fair',
    (stagger) => {
      const plans = [0, 1, 2, 3].map((i) => ({ rows: 300, startAt: i * stagger }));
      const results = simulateSenders(strictRate(20, { jitterMs: 0, seed: 42 }), plans, { loaded: false, seed: 42 });
      // Before: the first shard, answered exactly one spacing after each start, took every slot; the others' first rows at 15-18 s.
      results.forEach((r, i) => expect(r.first - i * stagger).toBeLessThan(5_000));
      const from = Math.max(...results.map((r) => r.first));
      const to = Math.min(...results.map((r) => r.last));
      const counts = results.map((r) => r.acceptedAt.filter((t) => t >= from && t <= to).length).sort((a, b) => a - b);
      const median = (counts[1]! + counts[2]!) / 2;
      expect(counts[0]! / median).toBeGreaterThanOrEqual(0.5);
      expect(counts[3]! / median).toBeLessThanOrEqual(2);
      expect((counts.reduce((a, b) => a + b, 0) * 1000) / (to - from)).toBeGreaterThanOrEqual(stagger ? 16 : 17);
      expect(results.every((r) => r.accepted === 300)).toBe(true);
      expect(worstSecond(results)).toBeLessThanOrEqual(50);
    },
  );
});

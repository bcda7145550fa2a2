/**
 * Issue 31, item 27 (docs/pace.md): shards sharing a strict limit that answers with Retry-After take
 * turns. On the simulated clock; no wall clock. The seeds are those on which the controller before
 * item 27 left a shard far below the others' share (0.00x-0.24x of the median) or stopped one with
 * its rows unsent.
 */
import { describe, expect, it } from 'vitest';
import { Answer, Pace } from '../../src/batch/pace.js';
import { simulate, simulateSenders, strictRate, whileAllSend, type Service } from './pace-sim.js';

const machine = (seed: number) => ({ loaded: seed !== 42, seed, jitterMs: seed !== 42 ? 2 : 0 });

describe('four shards on a strict 20/s that answers 503 + Retry-After: 1', () => {
  it.each([
    { seed: 42, stagger: 0 },
    { seed: 1, stagger: 0 },
    { seed: 18, stagger: 0 },
    { seed: 42, stagger: 5_000 },
    { seed: 4, stagger: 5_000 },
    { seed: 7, stagger: 5_000 },
    // Found alone after a turn's wait while the others were between turns, then held out: 2.06x before it shared again at once.
    { seed: 2, stagger: 5_000 },
  ])('seed $seed, started $stagger ms apart: every row accepted, each shard 0.5x-2x of the median', ({ seed, stagger }) => {
    const m = machine(seed);
    const plans = [0, 1, 2, 3].map((i) => ({ rows: 300, startAt: i * stagger }));
    const results = simulateSenders(strictRate(20, { ...m, retryAfterMs: 1_000 }), plans, m);
    expect(results.map((r) => r.accepted)).toEqual([300, 300, 300, 300]);
    const { together, low, high } = whileAllSend(results);
    expect(together).toBeGreaterThanOrEqual(stagger ? 16 : 17); // 80% / 85% of the limit
    expect(low).toBeGreaterThanOrEqual(0.5);
    expect(high).toBeLessThanOrEqual(2);
  });

  it('a turn ends with the Retry-After: the shard that held the slots starts nothing until it has passed', () => {
    const m = machine(1);
    const sends: Array<[who: number, at: number]> = [];
    const strict = strictRate(20, { ...m, retryAfterMs: 1_000 });
    const service: Service = (t, who) => (sends.push([who, t]), strict(t, who));
    const turns: Array<[who: number, at: number, until: number]> = [];
    const before = [0, 0, 0, 0];
    simulateSenders(
      service,
      [0, 1, 2, 3].map(() => ({ rows: 300 })),
      {
        ...m,
        trace: (who, now, pace, answer) => {
          // A pause that begins on an accepted answer: a turn that ended, not a run of refusals.
          if (answer === Answer.Accepted && pace.pausedUntil > now && pace.pausedUntil !== before[who])
            turns.push([who, now, pace.pausedUntil]);
          before[who] = pace.pausedUntil;
        },
      },
    );
    // Every shard had turns (before item 27, none: only a run of refusals paused a shard).
    expect(new Set(turns.map(([who]) => who)).size).toBe(4);
    for (const [who, at, until] of turns) {
      expect(until - at).toBeGreaterThanOrEqual(1_000);
      expect(sends.filter(([w, t]) => w === who && t > at && t < until)).toEqual([]);
    }
  });

  it('one sender alone on the same limit never ends a turn: it keeps the slots', () => {
    for (const seed of [42, 1, 2]) {
      let paused = 0;
      const m = machine(seed);
      const result = simulateSenders(strictRate(20, { ...m, retryAfterMs: 1_000 }), [{ rows: 300 }], {
        ...m,
        trace: (_who, now, pace) => void (pace.pausedUntil > now && paused++),
      })[0]!;
      expect(paused).toBe(0);
      expect(result.accepted).toBe(300);
      expect(result.perSecond).toBeGreaterThan(17);
    }
  });
});

describe('one sender, one blip with Retry-After: 10 (a deploy: every request refused for 60 ms)', () => {
  it('takes at most one turn: once a turn ends with nobody in its place, it no longer shares', () => {
    for (const seed of [42, 1, 2, 3]) {
      const m = machine(seed);
      const strict = strictRate(20, { ...m, retryAfterMs: 10_000 });
      // The blip moves through the first seconds with the seed, so that it lands on a start.
      const from = 2_000 + 150 * seed;
      const blip: Service = (t, who) =>
        t >= from && t < from + 60 ? { at: t + 50, answer: Answer.PushedBack, retryAfterMs: 10_000 } : strict(t, who);
      let pauses = 0;
      let before = 0;
      const result = simulateSenders(blip, [{ rows: 400 }], {
        ...m,
        trace: (_who, now, pace) => {
          if (pace.pausedUntil > now && pace.pausedUntil !== before) pauses++;
          before = pace.pausedUntil;
        },
      })[0]!;
      expect(result.accepted).toBe(400);
      // The blip's own pause, and at most one turn's end; before, one every 40 rows (9 or 10).
      expect(pauses).toBeLessThanOrEqual(2);
    }
  });
});

/**
 * One sender and a phantom shard scripted into the service: the phantom takes the limit for 300 ms
 * (the sender then shares it), and again for 2 s starting `back` ms after the sender, its turn's wait
 * over, was let in first (found alone). Returns the pauses that began on a push-back in that second turn.
 */
function phantom(back: number, seed: number) {
  const strict = strictRate(20, { retryAfterMs: 1_000 });
  let alone = Infinity;
  let turnEnded = false;
  const refused = (t: number) => (t >= 1_000 && t < 1_300) || (t >= alone + back && t < alone + back + 2_000);
  const service: Service = (t, who) => (refused(t) ? { at: t + 50, answer: Answer.PushedBack, retryAfterMs: 1_000 } : strict(t, who));
  const pausesInTurn: number[] = [];
  let before = 0;
  const [result] = simulateSenders(service, [{ rows: 300 }], {
    seed,
    trace: (_who, now, pace, answer) => {
      const paused = pace.pausedUntil > now && pace.pausedUntil !== before;
      before = pace.pausedUntil;
      if (answer === Answer.Accepted && turnEnded && alone === Infinity) alone = now;
      if (answer === Answer.Accepted && paused && alone === Infinity) turnEnded = true;
      if (answer === Answer.PushedBack && paused && now >= alone + back) pausesInTurn.push(now);
    },
  });
  return { result: result!, alone, pausesInTurn };
}

describe('a sender found alone after its turn, then held out again (item 40)', () => {
  it.each([42, 1, 2])("seed %i: held out within two Retry-Afters, it reads the run as another's turn and does not pause", (seed) => {
    const { result, alone, pausesInTurn } = phantom(500, seed);
    expect(alone).toBeLessThan(10_000);
    expect(pausesInTurn).toEqual([]);
    expect(result.accepted).toBe(300);
  });

  it('held out long after, it is a sender never refused so: it pauses on the run (a service that went down)', () => {
    const { alone, pausesInTurn } = phantom(5_000, 42);
    expect(alone).toBeLessThan(10_000);
    expect(pausesInTurn.length).toBeGreaterThan(0);
  });
});

describe('a run of refusals with Retry-After, never let in', () => {
  it('pauses on the first run; after it, reads further runs as others turns until a long one, and the stall rule still stops it', () => {
    const clock = { now: 0 };
    const pace = new Pace({ max: 64, initial: 1, now: () => clock.now, random: () => 0 });
    const pauses: number[] = [];
    let requests = 0;
    while (!pace.stopReason && clock.now < 60_000) {
      clock.now += Math.max(50, pace.pausedFor());
      requests++;
      const before = pace.pausedUntil;
      pace.answered(Answer.PushedBack, 50, 1_000);
      if (pace.pausedUntil > before && pace.pausedUntil > clock.now) pauses.push(clock.now);
    }
    // The first run of three paused every sender (a service down from the start, as before); the
    // next pause only after a run that nine in ten refused would make unlikely (66).
    expect(pauses[0]).toBeLessThan(300);
    expect(pauses[1]! - pauses[0]!).toBeGreaterThan(2_000);
    // Still stopped by the stall rule, 30 s with nothing accepted, every row kept.
    expect(pace.stopReason?.kind).toBe('pushed-back');
    expect(requests).toBeLessThan(400);
  });
});

describe('a service that takes one a second with Retry-After: 1, one sender', () => {
  it('is not taken for shards: the sender alone keeps every row accepted', () => {
    const result = simulate(strictRate(1, { retryAfterMs: 1_000 }), 20, machine(42));
    expect(result.accepted).toBe(20);
  });
});

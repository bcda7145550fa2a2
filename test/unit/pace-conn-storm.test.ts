/**
 * --concurrency auto, shards sharing a limit on requests at once (issue 31: nginx's limit_conn 12,
 * 503 beyond, app 50 ms, 25 ms each way), on the simulated clock: no push-back storm from the
 * noise judge (docs/pace.md, item 19). A shard that comes back while its siblings fill the slots
 * finds about as many refused at a lower pace as at a higher one and takes its siblings' refusals
 * for refusals at random; before item 19 it then ran at 64 in flight, half its answers pushed back
 * (under item 16's four in five), accepting no more than at 28 while its siblings sat at one at a
 * time: 265 push-backs a second on one machine, 616 and a batch unfinished after ten minutes on another.
 */
import { describe, expect, it } from 'vitest';
import { Answer, Pace } from '../../src/batch/pace.js';
import { networkedSlots, refusingAtRandom, simulate, simulateSenders, worstSecond } from './pace-sim.js';

/** `shards` shards of 7,200 rows each, `apartMs` apart, on 12 slots of 50 ms, on loaded machine `seed`. */
function shardsOnSlots(shards: number, apartMs: number, seed: number) {
  const plans = Array.from({ length: shards }, (_, i) => ({ rows: 7_200, startAt: i * apartMs }));
  const results = simulateSenders(networkedSlots(12, 50, { jitterMs: 2, seed }), plans, { loaded: true, seed });
  return { results, worst: worstSecond(results) };
}

describe('shards on a limit on requests at once: what is accepted no longer growing with the pace ends a share tolerated as random', () => {
  it('four shards 1 s apart (loaded machine 16): no storm, every row accepted', () => {
    const { results, worst } = shardsOnSlots(4, 1_000, 16);
    // Before: 265 in the worst second, one shard 7,025 push-backs for 7,200 rows.
    expect(worst).toBeLessThan(150);
    for (const r of results) {
      expect(r.accepted).toBe(7_200);
      expect(r.pushedBack).toBeLessThan(1_500);
    }
  });

  it('eight shards 5 s apart (loaded machine 28): no storm, every batch done', () => {
    const { results, worst } = shardsOnSlots(8, 5_000, 28);
    // Before: 616 in the worst second, 8,303-12,466 push-backs for three shards, two not done at 600 s.
    expect(worst).toBeLessThan(150);
    for (const r of results) {
      expect(r.accepted).toBe(7_200);
      expect(r.pushedBack).toBeLessThan(1_500);
    }
  });
});

describe('refusals at random are still tolerated (what is accepted grows with the pace)', () => {
  for (const [share, retryAfterMs] of [
    [0.3, null],
    [0.5, null],
    [0.5, 1_000],
  ] as const) {
    it(`${share * 100}% refused at random, ${retryAfterMs === null ? 'no Retry-After' : 'Retry-After: 1'}: goes above eight at once`, () => {
      const r = simulate(refusingAtRandom(share, 7, 50, retryAfterMs), 2_000, { loaded: true, seed: 7 });
      expect(r.accepted).toBe(2_000);
      // More than --concurrency 8 would have in flight: the share was tolerated, not taken for a limit.
      expect(r.highest).toBeGreaterThan(8);
    });
  }

  it('the discriminator alone: a share found at random and a higher pace that accepts as many more is tolerated', () => {
    const clock = { now: 0 };
    const pace = new Pace({ max: 64, initial: 8, now: () => clock.now, random: () => 0.5 });
    let refused = 0;
    // Half refused at random at every pace, 50 ms round trips: what is accepted doubles with the limit.
    for (let i = 0; i < 20_000 && clock.now < 60_000; i++) {
      clock.now += 50 / pace.limit;
      const pushedBack = i % 2 === 1;
      if (pushedBack) refused++;
      pace.answered(pushedBack ? Answer.PushedBack : Answer.Accepted, 50);
    }
    expect(refused).toBeGreaterThan(1_000);
    expect(pace.limit).toBeGreaterThan(8);
  });
});

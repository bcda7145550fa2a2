/**
 * Issue 31, twenty-third pass: a sender alone on a strict 100/s (nginx's limit_req, no burst) whose path holds a request a few
 * ms now and then on its way out (real nginx at 50 ms, traced: most push-backs came to the start right after one accepted
 * 3-8 ms late, the two reaching nginx closer than they were sent). No wider spacing mends that: widened at each such push-back,
 * the pace sat at 11-13 ms a start where 10.3 gets in (docs/pace.md, "Twenty-third pass"). On the simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { numbers, simulate, type Service } from './pace-sim.js';

/** A strict limit (whole ms, as nginx counts) 25 ms each way; `held` of the requests wait `heldMs` more on the way out, or back. */
function hiccups(perSecond: number, held: number, heldMs: [number, number], way: 'out' | 'back', seed: number): Service {
  const random = numbers(seed);
  let last = -Infinity;
  return (t) => {
    const extra = random() < held ? heldMs[0] + (heldMs[1] - heldMs[0]) * random() : 0;
    const arrival = t + 25 + (way === 'out' ? extra : 0);
    const back = arrival + 25 + (way === 'back' ? extra : 0);
    if (Math.floor(arrival) - Math.floor(last) < 1000 / perSecond) return { at: back, answer: Answer.PushedBack };
    last = arrival;
    return { at: back, answer: Answer.Accepted };
  };
}

const rate = (acceptedAt: number[], from: number) => acceptedAt.filter((t) => t >= from).length / ((acceptedAt.at(-1)! - from) / 1000);

describe('a strict 100/s whose path holds 3% of the requests 3-8 ms on the way out', () => {
  it.each([1, 2, 3])('keeps over 90 rows/s from 5 s on, as when those requests are held on the way back instead (seed %i)', (seed) => {
    const out = simulate(hiccups(100, 0.03, [3, 8], 'out', seed), 3_000, { seed, from: 5_000 });
    const back = simulate(hiccups(100, 0.03, [3, 8], 'back', seed), 3_000, { seed, from: 5_000 });
    expect(out.accepted).toBe(3_000);
    // Before: each push-back to the start after a late one widened the spacing 5%, and the pace sat under 85/s.
    expect(rate(out.acceptedAt, 5_000)).toBeGreaterThan(90);
    expect(rate(back.acceptedAt, 5_000)).toBeGreaterThan(90);
    // The held ones still cost their refusals (the service saw them bunched): under 5% of the answers from 5 s on.
    expect(out.pushedBackLate / out.answersLate).toBeLessThan(0.05);
  });
});

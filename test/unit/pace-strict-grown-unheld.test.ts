/**
 * review15a's F1: a strict limit of 60-200/s, whose slot is under a third of the round trip, is paced but not held under it
 * (item 51 holds 25-55/s at 50 ms), so B5 does not act there. When its path grows (25 -> 60 ms each way), every slow window
 * took a tenth off, down to one at a time, with no push-back; a paced sender is never rebased and its growth stops at twice
 * the base: one in flight for good, 8 rows/s of 100. One in flight queues behind nothing of ours: slow there, 12 windows
 * within a tenth, no push-back for 3 s, the path grew, and that round trip is the base. After the growth the pace is then about
 * what the same limit gets behind that path from the start. Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { numbers, simulate, simulateSenders, strictGrowing, type Service } from './pace-sim.js';

describe('F1: a strict limit not held under the round trip, whose path grows', () => {
  const cases: [number, string, [number, number, number][], number, number][] = [
    [60, 'a step to 60 ms each way at 20 s', [[20_000, 60, 0]], 60, 25_000],
    [100, 'a step to 60 ms each way at 20 s', [[20_000, 60, 0]], 60, 25_000],
    [100, 'to 60 ms each way over 1 s from 20 s', [[20_000, 60, 1_000]], 60, 25_000],
    [200, 'a step to 60 ms each way at 20 s', [[20_000, 60, 0]], 60, 25_000],
    [
      100,
      'a step to 60 ms each way at 20 s, to 100 ms at 40 s',
      [
        [20_000, 60, 0],
        [40_000, 100, 0],
      ],
      100,
      45_000,
    ],
  ];
  for (const [perSecond, name, steps, lastMs, from] of cases) {
    it(`strict ${perSecond}/s, ${name}: from ${from / 1000} s on, 90% of what it gets behind that path from the start (6099bad: 4.6-7.8/s)`, () => {
      for (const seed of [42, 1, 2, 3]) {
        const loaded = seed !== 42;
        const rate = (path: [number, number, number][]) => {
          const result = simulate(strictGrowing(perSecond, path, { jitterMs: loaded ? 2 : 0, seed }), 100 * perSecond, {
            loaded,
            seed,
            from,
          });
          const late = result.acceptedAt.filter((t) => t >= from && t < 85_000).length / ((85_000 - from) / 1000);
          return { late, pushedBack: result.pushedBackLate / result.answersLate };
        };
        const [grown, fromStart] = [rate(steps), rate([[0, lastMs, 0]])];
        expect({ seed, rate: grown.late >= 0.9 * fromStart.late }).toEqual({ seed, rate: true });
        expect({ seed, pushedBack: grown.pushedBack <= fromStart.pushedBack + 0.01 }).toEqual({ seed, pushedBack: true });
      }
    });
  }
});

/**
 * Not a path: an app that slows (100/s in front of ONE worker, 10 -> 80 ms at 20 s, a 250 ms queue time-out, 503) is slow at one in
 * flight too. Rebased there, the paced growth to twice that base fed the app a queue (a71cdd1: median wait 146-174 ms, 15-20
 * time-outs in 30 s on 12 of 12 machines); slow again before the limit pushed back, the rebase is undone and not tried while slow.
 */
describe('F1: an app that slows behind a strict 100/s is not a longer path', () => {
  it('strict 100/s -> one worker 10 -> 80 ms at 20 s, 250 ms queue time-out: from 30 s on, no time-out and no standing queue', () => {
    for (const seed of [42, 1, 2, 3, 4, 5]) {
      const loaded = seed !== 42;
      const random = numbers(seed * 37 + 11);
      const waits: number[] = [];
      let [last, free] = [-Infinity, 0];
      const service: Service = (t) => {
        const arrival = t + 25 + (loaded ? 2 * random() : 0);
        const back = () => 25 + (loaded ? 2 * random() : 0);
        if (Math.floor(arrival) - Math.floor(last) < 10) return { at: arrival + back(), answer: Answer.PushedBack };
        last = arrival;
        const start = Math.max(arrival, free);
        if (arrival >= 30_000) waits.push(start - arrival);
        if (start - arrival > 250) return { at: arrival + 250 + back(), answer: Answer.PushedBack };
        free = start + (arrival < 20_000 ? 10 : 80);
        return { at: free + back(), answer: Answer.Accepted };
      };
      simulate(service, 4_000, { loaded, seed });
      const sorted = [...waits].sort((a, b) => a - b);
      expect({ seed, timedOut: waits.filter((ms) => ms > 250).length }).toEqual({ seed, timedOut: 0 });
      expect({ seed, median: sorted[Math.floor(sorted.length / 2)]! < 40 }).toEqual({ seed, median: true });
    }
  });
});

/**
 * review15a F3 (8bb2246) and F4 (a71cdd1): one in flight is slow and now and then steady for two windows where OTHERS queue at a
 * small app (one FIFO worker shared with a client sending ~15/s at random, a 1 s queue time-out, 503): B5 anew or the base taken
 * there fed that queue to the time-out, and the other client's requests timed out (0 -> 45-49 in 30 s). Others' queue moves: only
 * 12 slow windows in a row within a tenth at one in flight are a path.
 */
describe('F3, F4: one in flight slow behind others at a small shared app is not a longer path', () => {
  for (const [perSecond, workMs, slowerAt] of [
    [25, 60, Infinity],
    [25, 30, 20_000],
    [1_000_000, 60, Infinity],
  ] as const) {
    it(`${perSecond < 1_000 ? `strict ${perSecond}/s -> ` : ''}one worker of ${workMs} ms${slowerAt < Infinity ? ', twice as slow from 20 s' : ''}, another client at ~15/s: none of its requests times out from 30 s on`, () => {
      for (const seed of [42, 1, 2, 3, 4, 5]) {
        const random = numbers(seed * 7 + 1);
        let [free, last, nextOther, othersTimedOut] = [0, -Infinity, 0, 0];
        const serve = (arrival: number, ours: boolean) => {
          const start = Math.max(arrival, free);
          if (start - arrival > 1_000) {
            if (!ours && arrival >= 30_000) othersTimedOut++;
            return { at: arrival + 1_000, answer: Answer.PushedBack };
          }
          free = start + (arrival >= slowerAt ? 2 * workMs : workMs);
          return { at: free, answer: Answer.Accepted };
        };
        const service: Service = (t) => {
          const arrival = t + 25;
          for (; nextOther <= arrival; nextOther += (1000 / 15) * (0.5 + random())) serve(nextOther, false);
          if (Math.floor(arrival) - Math.floor(last) < 1000 / perSecond) return { at: arrival + 25, answer: Answer.PushedBack };
          last = arrival;
          const { at, answer } = serve(arrival, true);
          return { at: at + 25, answer };
        };
        simulateSenders(service, [{ rows: 1_000_000 }], { loaded: seed !== 42, seed, limitMs: 60_000 });
        expect({ seed, othersTimedOut }).toEqual({ seed, othersTimedOut: 0 });
      }
    });
  }
});

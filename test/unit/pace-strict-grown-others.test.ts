/**
 * B5 anew at one in flight (measure15) reads a path, not a queue: where OTHERS queue at a small shared app, or the app itself slows,
 * one in flight is slow too. A base taken there (review15a F1's rule, a71cdd1, not kept: review15a F4, F6) or B5 anew after two slow
 * windows (8bb2246: F3) fed that queue to its time-out. These guard that neither comes back. Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { numbers, simulate, simulateSenders, type Service } from './pace-sim.js';

/**
 * Not a path: an app that slows (100/s in front of ONE worker, 10 -> 80 ms at 20 s, a 250 ms queue time-out, 503) is slow at one in
 * flight too. A71cdd1's base taken there fed the app a queue (median wait 146-174 ms, 15-20 time-outs in 30 s on 12 of 12
 * machines).
 */
describe('an app that slows behind a strict 100/s is not a longer path', () => {
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
 * 12 slow windows in a row within a tenth at one in flight are a path. A STEADY other client (constant spacing: a poller) keeps its queue
 * steady too: F1's base (pace-strict-stepped) is taken only on a step after 10 s at the base, not on a queue found as the batch starts.
 */
describe('F3, F4: one in flight slow behind others at a small shared app is not a longer path', () => {
  for (const [perSecond, workMs, slowerAt, steady] of [
    [25, 60, Infinity, false],
    [25, 30, 20_000, false],
    [1_000_000, 60, Infinity, false],
    [25, 60, Infinity, true],
  ] as const) {
    it(`${perSecond < 1_000 ? `strict ${perSecond}/s -> ` : ''}one worker of ${workMs} ms${slowerAt < Infinity ? ', twice as slow from 20 s' : ''}, another client at ${steady ? 'a steady ' : '~'}15/s: none of its requests times out from 30 s on`, () => {
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
          for (; nextOther <= arrival; nextOther += (1000 / 15) * (steady ? 1 : 0.5 + random())) serve(nextOther, false);
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

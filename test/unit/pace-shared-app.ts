/**
 * Another client behind the limit our sender is on, sharing its app (review19 R2, review17 B): one sender in front of an app of
 * `workers` x 20 ms (FIFO, a queue time-out answered 503), behind a limit that `refuses` an arrival (ms) or lets it in, and another
 * client keeping `inFlight` requests from 25 s on (`apartMs` apart at first; each sent again 50 ms after its answer, 25 ms each way):
 * how many of the other client's requests time out from 30 s on.
 */
import { Answer } from '../../src/batch/pace.js';
import { simulateSenders, type Service } from './pace-sim.js';

export type SharedApp = { workers: number; timeOutMs: number; inFlight: number; apartMs: number; limitMs: number };

export function otherTimeOuts(seed: number, refuses: (arrival: number) => boolean, app: SharedApp): number {
  const { workers, timeOutMs, inFlight, apartMs, limitMs } = app;
  const free = new Array<number>(workers).fill(0);
  let timeOuts = 0;
  const others = Array.from({ length: inFlight }, (_, i) => 25_000 + i * apartMs);
  const serve = (arrival: number, ours: boolean): { done: number; timedOut: boolean } => {
    const w = free.indexOf(Math.min(...free));
    const start = Math.max(arrival, free[w]!);
    if (start - arrival > timeOutMs) {
      if (!ours && arrival >= 30_000) timeOuts++;
      return { done: arrival + timeOutMs, timedOut: true };
    }
    free[w] = start + 20;
    return { done: free[w]!, timedOut: false };
  };
  const service: Service = (t) => {
    const arrival = t + 25;
    for (;;) {
      const i = others.indexOf(Math.min(...others));
      if (others[i]! > arrival) break;
      others[i] = serve(others[i]!, false).done + 50;
    }
    if (refuses(arrival)) return { at: arrival + 25, answer: Answer.PushedBack };
    const { done, timedOut } = serve(arrival, true);
    return { at: done + 25, answer: timedOut ? Answer.PushedBack : Answer.Accepted };
  };
  simulateSenders(service, [{ rows: 1_000_000 }], { loaded: seed !== 42, seed, limitMs });
  return timeOuts;
}

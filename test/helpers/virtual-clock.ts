/**
 * A clock and timers that move only when told, for the runner (its `timers`) and the pace (its `now`):
 * time behaviour (the --rate schedule, pauses, gaps) asserted exactly, whatever the machine's load.
 * `run` drives a promise to its end: it lets the microtasks settle, then jumps to the next timer.
 * A timer may be made to fire late, as a loaded machine's timers do.
 */
import type { Timers } from '../../src/batch/runner.js';

interface Pending {
  at: number;
  seq: number;
  callback: () => void;
}

export class VirtualClock implements Timers {
  time = 0;
  #pending: Pending[] = [];
  #seq = 0;
  /** How late each timer fires, ms (0: on time). */
  readonly #late: (ms: number) => number;

  constructor(options: { late?: (ms: number) => number } = {}) {
    this.#late = options.late ?? (() => 0);
  }

  now = (): number => this.time;

  setTimeout = (callback: () => void, ms: number): unknown => {
    const entry = { at: this.time + Math.max(0, ms) + this.#late(ms), seq: this.#seq++, callback };
    this.#pending.push(entry);
    return entry;
  };

  clearTimeout = (handle: unknown): void => {
    this.#pending = this.#pending.filter((entry) => entry !== handle);
  };

  /** Resolves after `ms` on this clock (for a simulated server's answer). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimeout(resolve, ms));
  }

  /** Runs until `promise` settles, moving time from timer to timer; throws if nothing is left to wait for. */
  async run<T>(promise: Promise<T>): Promise<T> {
    let done = false;
    promise.then(
      () => (done = true),
      () => (done = true),
    );
    for (;;) {
      // Every microtask chain the last timer started, to its end (a few macrotask turns).
      for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
      if (done) return promise;
      if (this.#pending.length === 0) throw new Error(`stuck at ${this.time} ms: nothing is scheduled and the run has not ended`);
      this.#pending.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#pending.shift()!;
      this.time = Math.max(this.time, next.at);
      next.callback();
    }
  }
}

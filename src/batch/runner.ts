/**
 * Runs a batch: pulls rows a chunk at a time, and the next chunk only when this one is handled (so
 * memory stays flat), keeps up to `concurrency` requests in flight, starts them on a schedule of
 * `rate` per second, and hands every row exactly one outcome, through the sink.
 *
 * `stop` (the first signal, the breaker, a closed stdout, a failed file that cannot be written) stops
 * sending: requests in flight finish, a request waiting to be retried gives up, and every row not
 * yet sent, read or not, comes out "unsent" with the stop's reason. Cancelling the requests in flight
 * (the second signal) is the sender's business: they end with InterruptedError, outcome "unknown".
 */
import type { FireResult } from '../client/client.js';
import type { PreparedEvent } from '../client/request.js';
import { InterruptedError, isTriggerError, type TriggerError } from '../errors.js';
import type { Row } from './rows.js';

export type Outcome =
  | { kind: 'accepted'; result: FireResult }
  /** Accepted in an earlier run of the same batch (--journal --resume). */
  | { kind: 'earlier' }
  /** The service refused it, or did not answer after the allowed retries (or did so in an earlier run). */
  | { kind: 'failed'; reason: string; error?: TriggerError }
  | { kind: 'invalid'; reason: string }
  /** Never sent: the batch stopped first. */
  | { kind: 'unsent'; reason: string }
  /** It may or may not have been recorded: cancelled in flight, or so in an earlier run. */
  | { kind: 'unknown'; reason: string; error?: TriggerError }
  /** --dry-run: valid, and not sent. */
  | { kind: 'checked' };

export type OutcomeKind = Outcome['kind'];

/** Where every row's outcome goes. */
export interface OutcomeSink {
  /** An outcome known before sending (an earlier run's, from the journal); undefined to go on. */
  before?(row: Row): Outcome | undefined;
  /** Called just before a row is sent; false when it must not be (the sink has stopped the batch). */
  starting(row: Row): boolean;
  /** Told each row's outcome; a returned promise holds the row's slot until it settles (back-pressure). */
  outcome(row: Row, outcome: Outcome): void | Promise<void>;
}

export type Send = (event: PreparedEvent, stopRetries: AbortSignal) => Promise<FireResult>;

export interface RunOptions {
  /** Rows in input order, a chunk at a time. */
  rows: AsyncIterable<Row[]>;
  /** Sends one event; undefined for a dry run. */
  send: Send | undefined;
  concurrency: number;
  /** Requests started per second, on average over the run. */
  rate?: number | undefined;
  /** Aborted with the reason (a string) that unsent rows are given. */
  stop: AbortSignal;
  /** When this aborts, unsent rows are no longer read (for stdin, which may never end). */
  stopReading?: AbortSignal | undefined;
  sink: OutcomeSink;
}

export interface RunResult {
  elapsedMs: number;
  /** True when reading stopped before the end of the input (stopReading). */
  incomplete: boolean;
  /** The last input line read. */
  lastLine: number;
}

/** How far the schedule may fall behind before it forgets the debt (a stall is not made up in a burst). */
const MAX_SCHEDULE_DEBT_MS = 1000;
/** The longest the schedule waits for the first request to be through. */
const MAX_WARM_UP_MS = 1000;

export const CANCELLED_IN_FLIGHT = 'cancelled in flight: it may or may not have been recorded; check before sending it again';

export class Runner {
  /** Requests in flight now. */
  inFlight = 0;
  readonly #options: RunOptions;
  readonly #concurrency: number;
  readonly #interval: number;
  /** When the next request may start (performance.now()), with --rate. */
  #nextStart: number | undefined;
  /** True once a request has settled: the first pays for connecting and warming up (see #waitThenStart). */
  #firstSettled = false;
  // The loop waits for one thing at a time (a free slot, the schedule, the last sends); whatever ends
  // that wait (a send settling, a timer, a stop) calls wake. No promise is kept per row.
  #wake: (() => void) | undefined;
  #fatal: unknown;
  readonly #wakeUp = () => {
    const resume = this.#wake;
    this.#wake = undefined;
    resume?.();
  };

  constructor(options: RunOptions) {
    this.#options = options;
    this.#concurrency = Math.max(1, options.concurrency);
    this.#interval = options.rate ? 1000 / options.rate : 0;
  }

  #waitForWake(): Promise<void> {
    return new Promise<void>((resolve) => (this.#wake = resolve));
  }

  #unsent(): Outcome {
    const reason = this.#options.stop.reason as unknown;
    return { kind: 'unsent', reason: typeof reason === 'string' ? reason : 'not sent: the batch stopped first' };
  }

  #settle(row: Row, outcome: Outcome): void | Promise<void> {
    return this.#options.sink.outcome(row, outcome);
  }

  async #launch(row: Row, event: PreparedEvent, send: Send): Promise<void> {
    this.inFlight++;
    try {
      let outcome: Outcome;
      try {
        outcome = { kind: 'accepted', result: await send(event, this.#options.stop) };
      } catch (error) {
        if (!isTriggerError(error)) throw error;
        if (error instanceof InterruptedError)
          outcome = error.notSent ? this.#unsent() : { kind: 'unknown', reason: CANCELLED_IN_FLIGHT, error };
        else outcome = { kind: 'failed', reason: error.message, error };
      }
      const writing = this.#settle(row, outcome);
      if (writing) await writing; // most outcomes are recorded synchronously: no extra turn per row
    } catch (error) {
      this.#fatal ??= error;
    } finally {
      this.inFlight--;
      this.#firstSettled = true;
      this.#wakeUp();
    }
  }

  /** Sends now if the sink agrees; the row is unsent if it does not. */
  #start(row: Row, event: PreparedEvent, send: Send): void | Promise<void> {
    if (this.#options.stop.aborted || !this.#options.sink.starting(row)) return this.#settle(row, this.#unsent());
    void this.#launch(row, event, send);
  }

  /** Waits for a free slot and the schedule, then sends; the row is unsent if a stop comes first. */
  async #waitThenStart(row: Row, event: PreparedEvent, send: Send): Promise<void> {
    const stop = this.#options.stop;
    while (this.inFlight >= this.#concurrency && !stop.aborted) await this.#waitForWake();
    if (this.#interval && this.#nextStart !== undefined && !this.#firstSettled) {
      // The schedule starts when the first request is through: it alone pays for the first
      // connection and a cold start (25 ms here), which would otherwise bunch the next starts up.
      const timer = setTimeout(this.#wakeUp, MAX_WARM_UP_MS);
      const until = performance.now() + MAX_WARM_UP_MS;
      while (!this.#firstSettled && !stop.aborted && performance.now() < until) await this.#waitForWake();
      clearTimeout(timer);
      this.#nextStart = performance.now();
    }
    if (this.#interval && !stop.aborted) {
      const now = performance.now();
      // Starts follow a schedule from the first one, so timers that fire late do not lower the rate.
      let next = Math.max(this.#nextStart ?? now, now - MAX_SCHEDULE_DEBT_MS);
      for (let wait = next - performance.now(); wait > 0 && !stop.aborted; wait = next - performance.now()) {
        const timer = setTimeout(this.#wakeUp, wait);
        await this.#waitForWake(); // the timer, a send settling, or a stop
        clearTimeout(timer);
        next = Math.max(next, performance.now() - MAX_SCHEDULE_DEBT_MS);
      }
      this.#nextStart = next + this.#interval;
    }
    return this.#start(row, event, send);
  }

  /** The outcome of a row that is not to be sent (known before, invalid, a dry run, stopped), if so. */
  #settledBeforeSending(row: Row): Outcome | undefined {
    const { sink, send, stop } = this.#options;
    const before = sink.before?.(row);
    if (before) return before;
    if (row.invalid !== undefined || !row.event) return { kind: 'invalid', reason: row.invalid ?? 'cannot be sent' };
    if (!send) return { kind: 'checked' };
    if (stop.aborted) return this.#unsent();
    return undefined;
  }

  async run(): Promise<RunResult> {
    const { stop, stopReading, rows, send } = this.#options;
    const started = performance.now();
    stop.addEventListener('abort', this.#wakeUp, { once: true });
    let incomplete = false;
    let lastLine = 0;
    const iterator = rows[Symbol.asyncIterator]();
    try {
      for (;;) {
        if (this.#fatal) throw this.#fatal;
        if (stop.aborted && stopReading?.aborted) {
          incomplete = true;
          break;
        }
        const next = await iterator.next();
        if (next.done) break;
        for (const row of next.value) {
          if (this.#fatal) throw this.#fatal;
          lastLine = row.line;
          const settled = this.#settledBeforeSending(row);
          let pending: void | Promise<void>;
          if (settled) {
            pending = this.#settle(row, settled);
          } else if (this.#interval) {
            pending = this.#waitThenStart(row, row.event!, send!);
          } else {
            // The usual wait, for a free slot, right here: no promise but the one that waits.
            while (this.inFlight >= this.#concurrency && !stop.aborted) await this.#waitForWake();
            pending = this.#start(row, row.event!, send!);
          }
          if (pending) await pending;
        }
      }
    } finally {
      if (incomplete || this.#fatal) await iterator.return?.();
      while (this.inFlight > 0) await this.#waitForWake();
      stop.removeEventListener('abort', this.#wakeUp);
    }
    if (this.#fatal) throw this.#fatal;
    return { elapsedMs: performance.now() - started, incomplete, lastLine };
  }
}

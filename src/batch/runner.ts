/**
 * Runs a batch: pulls rows a chunk at a time, and the next chunk only when this one is handled (so memory stays flat), keeps up to
 * `concurrency` requests in flight, starts them on a schedule of `rate` per second, and gives the sink exactly one outcome per row.
 *
 * `stop` (the first signal, the breaker, a closed stdout, a failed file that cannot be written) stops sending: requests in flight finish, a
 * request waiting to be retried gives up, and every row not yet sent, read or not, comes out "unsent" with the stop's reason. Cancelling
 * the requests in flight (the second signal) is the sender's business: they end with InterruptedError, outcome "unknown".
 *
 * With `pace` (--concurrency auto), lanes are started up to its maximum and each waits for its turn under the current limit and the shared
 * pause; a row the service pushed back (429, 503) waits its turn again instead of failing, until the pace says the batch must stop.
 */
import type { FireResult } from '../client/client.js';
import type { PreparedEvent } from '../client/request.js';
import { InterruptedError, isAttemptError, isTriggerError, type AttemptError, type TriggerError } from '../errors.js';
import type { Pace, PaceStop } from './pace.js';
import type { Row } from './rows.js';
import { isStopReason, type StopReason } from './stop.js';

export type Outcome =
  | { kind: 'accepted'; result: FireResult }
  /** Accepted in an earlier run of the same batch (--journal --resume). */
  | { kind: 'earlier' }
  /** The service refused it, or did not answer after the allowed retries (or did so in an earlier run). */
  | { kind: 'failed'; reason: string; error?: TriggerError }
  | { kind: 'invalid'; reason: string }
  /** Never sent, or pushed back (429, 503: not recorded) and not sent again: the batch stopped first, for this reason. */
  | { kind: 'unsent'; stop: StopReason | undefined; pushedBack?: { attempts: number; last: AttemptError } }
  /** Perhaps recorded: sent with no definitive answer (a time-out, a reset, a 500/502/504), cancelled in flight, or so in a past run. */
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

export interface RunOptions {
  rows: AsyncIterable<Row[]>; // Rows in input order, a chunk at a time.
  send: ((event: PreparedEvent, stopRetries: AbortSignal) => Promise<FireResult>) | undefined; // Sends one event; undefined for a dry run.
  concurrency: number; // Requests in flight at most (with `pace`, ignored: lanes go up to pace.max).
  pace?: Pace | undefined; // --concurrency auto: the controller that sets the limit; undefined for a fixed concurrency.
  halt?: ((reason: PaceStop) => void) | undefined; // Told when the pace says the batch must stop (it then aborts `stop`).
  timers?: Timers | undefined; // The clock and timers (injected by tests); default performance.now() and the global timers.
  rate?: number | undefined; // Requests started per second, on average over the run.
  stop: AbortSignal; // Aborted with the StopReason that unsent rows are given.
  sink: OutcomeSink;
}

export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemTimers: Timers = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Whether a send ended in a push-back (429, 503), which recorded nothing: the row is sent again. */
function isPushBack(error: unknown): error is AttemptError {
  const status = (error as { status?: unknown } | undefined)?.status;
  return (status === 429 || status === 503) && isAttemptError(error) && error.recorded === 'no';
}

export interface RunResult {
  elapsedMs: number;
  lastLine: number;
  mostSending: number; // The most requests sent and not yet answered at once (paced lanes waiting for --rate's schedule left out).
}

const MAX_SCHEDULE_DEBT_MS = 1000; // How far the schedule may fall behind before it forgets the debt (a stall is not made up in a burst).
const MAX_WARM_UP_MS = 1000; // The longest the schedule waits for the first request to be through.

const CANCELLED_IN_FLIGHT = 'cancelled in flight: it may or may not have been recorded; check before sending it again';

export class Runner {
  inFlight = 0;
  #onTheClock = 0;
  #mostSending = 0;
  readonly #options: RunOptions;
  readonly #concurrency: number;
  readonly #interval: number;
  readonly #pace: Pace | undefined;
  readonly #timers: Timers;
  #slot: Promise<void> | undefined; // Lanes waiting for a request to settle (--concurrency auto), woken together.
  #wakeSlot: (() => void) | undefined;
  readonly #sleepers = new Set<() => void>(); // Lanes asleep in #pause, woken by a stop through one listener (not one per lane: up to 256).
  #fatal: unknown;
  // The input, shared by the lanes: the chunk rows are taken from, and the read of the next one.
  #iterator: AsyncIterator<Row[]> | undefined;
  #chunk: Row[] = [];
  #index = 0;
  #reading: Promise<void> | undefined;
  #allRead = false;
  #lastLine = 0;
  // The schedule, with --rate.
  #nextStart: number | undefined; // When the next request may start (performance.now()).
  #firstDone = false; // Whether a request has settled; the first pays for connecting and warming up (see #onSchedule).
  readonly #firstSettled: Promise<void>;
  #markFirstSettled!: () => void;
  #scheduleRestarted = false;
  #tail = false; // Whether a lane has run out of rows: from then, lanes waiting for the pace look again as each request settles (#turn).
  readonly #tailSleepers = new Set<() => void>(); // Lanes paused for the pace until then (a set: a promise would keep every pause's timer).

  constructor(options: RunOptions) {
    this.#options = options;
    this.#pace = options.pace;
    this.#timers = options.timers ?? systemTimers;
    this.#concurrency = options.pace ? options.pace.max : Math.max(1, options.concurrency);
    this.#interval = options.rate ? 1000 / options.rate : 0;
    this.#firstSettled = new Promise((resolve) => (this.#markFirstSettled = resolve));
  }

  #unsent(attempts = 0, last?: AttemptError): Outcome {
    const [reason, pushedBack] = [this.#options.stop.reason as unknown, last && { attempts, last }]; // its answers (audit24: --json said none)
    return { kind: 'unsent', stop: isStopReason(reason) ? reason : undefined, ...(pushedBack && { pushedBack }) };
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

  /** The outcome of a send that threw; anything but the client's own errors is a bug, and ends the batch. */
  #failureOf(error: unknown): Outcome {
    if (!isTriggerError(error)) throw error;
    if (error instanceof InterruptedError) return error.notSent ? this.#unsent() : { kind: 'unknown', reason: CANCELLED_IN_FLIGHT, error };
    // The client's one classification: a request that went out without a definitive answer (a time-out, a reset, a 500/502/504) may have
    // been recorded, so the row is kept apart from the rows that surely were not, and a replay skips it unless asked.
    if (isAttemptError(error) && error.recorded === 'unknown') return { kind: 'unknown', reason: error.message, error };
    return { kind: 'failed', reason: error.message, error };
  }

  /**
   * One of `concurrency` lanes (one for a dry run): takes the next row in input order, settles it or sends it and waits for the answer,
   * hands the outcome to the sink (waiting while it asks to), and takes the next. Lanes keep the usual row to one await, in a function with
   * few locals: a loop that waited for a free slot, and a promise per send to wake it, showed in the rate.
   */
  async #lane(): Promise<void> {
    const { sink, stop } = this.#options;
    try {
      for (;;) {
        if (this.#fatal) return;
        const row = this.#index < this.#chunk.length ? this.#chunk[this.#index++]! : await this.#nextRow();
        if (row === undefined) return;
        this.#lastLine = Math.max(this.#lastLine, row.line); // a lane back from reading may hold an earlier row than the others took
        let outcome = this.#settledBeforeSending(row);
        if (!outcome && this.#pace) outcome = await this.#paced(row);
        if (!outcome && this.#interval) await this.#onSchedule();
        if (!outcome && (stop.aborted || !sink.starting(row))) outcome = this.#unsent();
        if (!outcome) {
          this.inFlight++;
          try {
            outcome = { kind: 'accepted', result: await this.#options.send!(row.event!, stop) };
          } catch (error) {
            outcome = this.#failureOf(error);
          } finally {
            this.#settled();
          }
        }
        const writing = sink.outcome(row, outcome);
        if (writing) await writing; // most outcomes are recorded synchronously: no extra turn per row
      }
    } catch (error) {
      this.#fatal ??= error;
    } finally {
      this.#tail = true;
      for (const done of [...this.#tailSleepers]) done();
    }
  }

  /**
   * A row sent under --concurrency auto: waits for its turn (the limit, the shared pause, then the
   * rate's schedule), sends it, and sends it again after a push-back, each time waiting its turn again.
   */
  async #paced(row: Row): Promise<Outcome> {
    const { sink, stop, send } = this.#options;
    let [started, attempts, last] = [false, 0, undefined as AttemptError | undefined]; // the answers that pushed it back
    for (;;) {
      if (!(await this.#turn())) return this.#unsent(attempts, last);
      // #turn counted this request in flight. The rate's schedule is waited for with the turn in hand: lanes beyond
      // the limit must not take starts on the schedule that they cannot use (see `sending`).
      if (this.#interval) {
        this.#onTheClock++;
        await this.#onSchedule();
        this.#onTheClock--;
      }
      if (stop.aborted || (!started && !sink.starting(row))) {
        this.#settled();
        return this.#unsent(attempts, last);
      }
      started = true;
      this.#mostSending = Math.max(this.#mostSending, this.sending);
      try {
        const result = await send!(row.event!, stop);
        result.attempts += attempts; // the row's attempts, its sends again included
        return { kind: 'accepted', result };
      } catch (error) {
        // After a stop too: a row waiting to be sent again is unsent, as the contract says (it was kept as failed, its attempts lost).
        if (!isPushBack(error)) return this.#failureOf(error);
        [attempts, last] = [attempts + error.attempts, error];
      } finally {
        this.#settled();
      }
    }
  }

  /**
   * Waits until a request may start under the pace; counts it in flight and resolves true, or false when the batch stops first. Lanes over
   * the limit wait for a request to settle; a pause waits out its time (a stop ends either wait at once).
   */
  async #turn(): Promise<boolean> {
    const pace = this.#pace!;
    const stop = this.#options.stop;
    while (!stop.aborted) {
      if (pace.stopReason) {
        this.#options.halt?.(pace.stopReason);
        if (!stop.aborted) return false; // a halt that did not stop: never spin
        continue;
      }
      if (pace.take(this.inFlight)) {
        this.inFlight++;
        return true;
      }
      // At the limit: a request settling frees a slot. Below it: a pause or the gap between starts, waited out by the clock, at least a
      // millisecond: it may have just ended between the two looks, and waiting for a slot with nothing in flight would wait for ever (the
      // process then exits 0 with the rest of the rows neither sent nor kept). Once a lane has run out of rows, a request settling ends
      // that wait too: a request alone may go at once, and the rows the others hold must not wait out a schedule run far ahead with nothing
      // in flight (a batch idle 50 s at its end: review13 H6). Until then, the lane that settled takes the next start itself, as paced
      // lanes woken on every settle retried at the limit's edge.
      const settled = (this.#slot ??= new Promise<void>((resolve) => (this.#wakeSlot = resolve)));
      const paused = () => this.#pause(Math.max(1, pace.pausedFor()), this.#tail ? settled : this.#tailSleepers);
      await (this.inFlight >= pace.limit ? settled : paused());
    }
    return false;
  }

  /** Requests sent and not answered: in flight, less the paced lanes waiting for --rate's schedule with their turn. */
  get sending(): number {
    return this.inFlight - this.#onTheClock;
  }

  /** A request settled: one fewer in flight, and the lanes waiting for a slot (paced) look again. */
  #settled(): void {
    this.inFlight--;
    this.#wakeLanes();
    if (!this.#firstDone) {
      this.#firstDone = true;
      if (this.#interval) this.#restartSchedule();
      this.#markFirstSettled();
    }
  }

  #wakeLanes(): void {
    const wake = this.#wakeSlot;
    if (!wake) return;
    this.#slot = this.#wakeSlot = undefined;
    wake();
  }

  /** The next row once the chunk is all taken: reads the next chunk (one read for all lanes). */
  async #nextRow(): Promise<Row | undefined> {
    while (this.#index >= this.#chunk.length) {
      if (this.#allRead || this.#fatal) return undefined;
      await (this.#reading ??= this.#readChunk());
    }
    return this.#chunk[this.#index++];
  }

  async #readChunk(): Promise<void> {
    try {
      const next = await this.#iterator!.next();
      if (next.done) this.#allRead = true;
      else [this.#chunk, this.#index] = [next.value, 0];
    } finally {
      this.#reading = undefined;
    }
  }

  /** With --rate: waits for this request's turn on the schedule (a stop ends the wait). */
  async #onSchedule(): Promise<void> {
    if (this.#nextStart !== undefined && !this.#firstDone) {
      // The schedule starts once the first request is through: it alone pays for connecting and a cold start (else starts bunch).
      await this.#pause(MAX_WARM_UP_MS, this.#firstSettled);
      this.#restartSchedule(); // if the first took too long
    }
    // Starts follow a schedule from the first, so timers that fire late do not lower the rate; a lane takes its start, then waits.
    const now = this.#timers.now();
    const start = Math.max(this.#nextStart ?? now, now - MAX_SCHEDULE_DEBT_MS);
    this.#nextStart = start + this.#interval;
    if (start > now) await this.#pause(start - now);
  }

  /**
   * The schedule goes on from now, once: when the first request is through, or has taken too long.
   * Lanes still waiting for it then take the starts that follow; none is owed for the wait.
   */
  #restartSchedule(): void {
    if (this.#scheduleRestarted) return;
    this.#scheduleRestarted = true;
    this.#nextStart = Math.max(this.#nextStart ?? 0, this.#timers.now());
  }

  /** Resolves after `ms`, when `until` settles (a set it joins: when it is woken from it), or on a stop, whichever comes first. */
  #pause(ms: number, until?: Promise<void> | Set<() => void>): Promise<void> {
    const stop = this.#options.stop;
    if (stop.aborted) return Promise.resolve();
    const timers = this.#timers;
    return new Promise((resolve) => {
      const done = () => {
        timers.clearTimeout(timer);
        this.#sleepers.delete(done);
        this.#tailSleepers.delete(done);
        resolve();
      };
      const timer = timers.setTimeout(done, ms);
      this.#sleepers.add(done);
      if (until instanceof Set) until.add(done);
      else void until?.then(done);
    });
  }

  async run(): Promise<RunResult> {
    const started = this.#timers.now();
    const iterator = (this.#iterator = this.#options.rows[Symbol.asyncIterator]());
    // A stop wakes the lanes that wait (for a slot, a pause, the schedule): their rows come out unsent at once.
    const wake = () => {
      this.#wakeLanes();
      for (const done of [...this.#sleepers]) done();
    };
    this.#options.stop.addEventListener('abort', wake, { once: true });
    const lanes: Array<Promise<void>> = [];
    for (let i = 0; i < (this.#options.send ? this.#concurrency : 1); i++) lanes.push(this.#lane());
    await Promise.all(lanes); // lanes catch everything: this waits for the last send to settle
    this.#options.stop.removeEventListener('abort', wake);
    if (this.#fatal) await iterator.return?.();
    if (this.#fatal) throw this.#fatal;
    return { elapsedMs: this.#timers.now() - started, lastLine: this.#lastLine, mostSending: this.#mostSending };
  }
}

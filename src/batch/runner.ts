/**
 * Runs a batch: pulls rows a chunk at a time, and the next chunk only when this one is handled (so
 * memory stays flat), keeps up to `concurrency` requests in flight, paces starts to `rate` per second, and hands every row exactly one outcome.
 *
 * `stop` (the first Ctrl-C) stops sending: requests in flight finish, and every row not yet sent, read
 * or not, comes out as "unsent". Cancelling the requests in flight (the second Ctrl-C) is the
 * sender's business: they end with InterruptedError, which is outcome "unknown".
 */
import type { FireResult } from '../client/client.js';
import type { PreparedEvent } from '../client/request.js';
import { isTriggerError, type TriggerError } from '../errors.js';
import type { Row } from './rows.js';

export type Outcome =
  | { kind: 'accepted'; result: FireResult }
  /** The service refused it, or did not answer after the allowed retries. */
  | { kind: 'failed'; error: TriggerError }
  | { kind: 'invalid'; reason: string }
  /** Never sent: the batch was interrupted first. */
  | { kind: 'unsent' }
  /** Cancelled in flight by a second interrupt: it may or may not have been recorded. */
  | { kind: 'unknown'; error: TriggerError }
  /** --dry-run: valid, and not sent. */
  | { kind: 'checked' };

export type OutcomeKind = Outcome['kind'];

export type Counts = Record<OutcomeKind, number> & { rows: number; inFlight: number };

export interface RunOptions {
  /** Rows in input order, a chunk at a time. */
  rows: AsyncIterable<Row[]>;
  /** Sends one event; undefined for a dry run. */
  send: ((event: PreparedEvent) => Promise<FireResult>) | undefined;
  concurrency: number;
  /** Most request starts per second. */
  rate?: number | undefined;
  stop: AbortSignal;
  /** When this aborts, unsent rows are no longer read (for stdin, which may never end). */
  stopReading?: AbortSignal | undefined;
  /** Told each row's outcome; a returned promise holds the row's slot until it settles (back-pressure). */
  onOutcome: (row: Row, outcome: Outcome) => void | Promise<void>;
}

export interface RunResult {
  counts: Counts;
  elapsedMs: number;
  /** True when reading stopped before the end of the input (stopReading). */
  incomplete: boolean;
  /** The last input line read. */
  lastLine: number;
}

export function emptyCounts(): Counts {
  return { rows: 0, inFlight: 0, accepted: 0, failed: 0, invalid: 0, unsent: 0, unknown: 0, checked: 0 };
}

export async function runBatch(options: RunOptions, counts: Counts = emptyCounts()): Promise<RunResult> {
  const started = performance.now();
  const concurrency = Math.max(1, options.concurrency);
  const interval = options.rate ? 1000 / options.rate : 0;
  let lastStart = -Infinity;
  // The loop waits for one thing at a time (a free slot, the pace, the last sends); whatever ends
  // that wait (a send settling, a timer, a stop) calls wake. No promise is kept per row.
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const waitForWake = () => new Promise<void>((resolve) => (wake = resolve));
  options.stop.addEventListener('abort', wakeUp, { once: true });
  let fatal: unknown;
  let incomplete = false;
  let lastLine = 0;

  const settle = (row: Row, outcome: Outcome): void | Promise<void> => {
    counts[outcome.kind]++;
    return options.onOutcome(row, outcome);
  };

  const launch = async (row: Row, event: PreparedEvent, send: NonNullable<RunOptions['send']>) => {
    counts.inFlight++;
    try {
      let outcome: Outcome;
      try {
        outcome = { kind: 'accepted', result: await send(event) };
      } catch (error) {
        if (!isTriggerError(error)) throw error;
        outcome = error.kind === 'interrupted' ? { kind: 'unknown', error } : { kind: 'failed', error };
      }
      await settle(row, outcome);
    } catch (error) {
      fatal ??= error;
    } finally {
      counts.inFlight--;
      wakeUp();
    }
  };

  /** Waits for a free slot and the pace, then sends; the row is unsent if a stop comes first. */
  const waitThenLaunch = async (row: Row, event: PreparedEvent, send: NonNullable<RunOptions['send']>) => {
    while (counts.inFlight >= concurrency && !options.stop.aborted) await waitForWake();
    if (interval && !options.stop.aborted) {
      // Spaced from the previous start as it happened, so a late timer never lets two go together.
      for (let wait = lastStart + interval - performance.now(); wait > 0 && !options.stop.aborted; wait = lastStart + interval - performance.now()) {
        const timer = setTimeout(wakeUp, wait);
        await waitForWake(); // the timer, a send settling, or a stop
        clearTimeout(timer);
      }
      lastStart = performance.now();
    }
    if (options.stop.aborted) return settle(row, { kind: 'unsent' });
    void launch(row, event, send);
  };

  /** Synchronous unless the row must wait (full pool, pacing) or its outcome is being written. */
  const handle = (row: Row): void | Promise<void> => {
    counts.rows++;
    lastLine = row.line;
    if (row.invalid !== undefined || !row.event) return settle(row, { kind: 'invalid', reason: row.invalid ?? 'cannot be sent' });
    if (!options.send) return settle(row, { kind: 'checked' });
    if (options.stop.aborted) return settle(row, { kind: 'unsent' });
    if (counts.inFlight >= concurrency || interval) return waitThenLaunch(row, row.event, options.send);
    void launch(row, row.event, options.send);
  };

  const iterator = options.rows[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (fatal) throw fatal;
      if (options.stop.aborted && options.stopReading?.aborted) {
        incomplete = true;
        break;
      }
      const next = await iterator.next();
      if (next.done) break;
      for (const row of next.value) {
        if (fatal) throw fatal;
        const pending = handle(row);
        if (pending) await pending;
      }
    }
  } finally {
    if (incomplete || fatal) await iterator.return?.();
    while (counts.inFlight > 0) await waitForWake();
    options.stop.removeEventListener('abort', wakeUp);
  }
  if (fatal) throw fatal;
  return { counts, elapsedMs: performance.now() - started, incomplete, lastLine };
}

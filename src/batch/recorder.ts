/**
 * The one place a row's outcome is recorded: the counts, the journal, the failed file, the NDJSON line on stdout and the failure line on
 * stderr. Anything here that can no longer record (a full disk, a closed stdout, a run of hopeless failures) stops the batch with
 * `stop.abort(reason)`; the runner then settles every unsent row with that reason, and they come back here.
 */
import { once } from 'node:events';
import type { Output } from '../output/io.js';
import { printable } from '../output/render.js';
import { NetworkError, ServiceError } from '../errors.js';
import type { FailedFile } from './failed.js';
import type { Journal } from './journal.js';
import { failureLine, failureReason, rowJson } from './report.js';
import type { Row } from './rows.js';
import type { Outcome, OutcomeKind, OutcomeSink } from './runner.js';
import { isStopReason, stopCause, type StopReason } from './stop.js';

export type Counts = Record<OutcomeKind, number> & {
  rows: number; // Rows read.
  skippedUnknown: number; // Rows skipped as of unknown outcome in an earlier run (part of `unknown`).
};

export function emptyCounts(): Counts {
  return { rows: 0, accepted: 0, earlier: 0, failed: 0, invalid: 0, unsent: 0, unknown: 0, checked: 0, skippedUnknown: 0 };
}

/** Failures shown one by one on stderr before only the summary counts them. */
export const SHOWN_FAILURES = 20;

const UNKNOWN_SKIPPED = 'skipped: an earlier run could not tell whether it was recorded (pass --retry-unknown to send it)';

interface RecorderOptions {
  io: Output;
  stop: AbortController; // The batch's stop; aborted with the reason unsent rows are given.
  json: boolean;
  concurrency: () => number; // The requests in flight at most now (it changes with --concurrency auto), for the breaker.
  failed?: FailedFile | undefined;
  journal?: Journal | undefined;
  retryUnknown: boolean;
  stderr: (line: string) => void; // Writes a line to stderr (clearing the progress line first).
  beforeStdout?: () => void; // Called before a line goes to stdout: the progress line is cleared, in case both are one terminal.
}

export class BatchRecorder implements OutcomeSink {
  readonly counts = emptyCounts();
  shownFailures = 0; // Failures shown on stderr one by one.
  readonly #o: RecorderOptions;
  #streak = 0; // Failures in a row that every row would share (see #breaker).
  readonly #stdout: NodeJS.WritableStream;
  readonly #sent = new Set<number>(); // Lines of the rows sent in this run, not yet settled: only their outcomes are new to the journal.
  // The Output keeps the error (io.stdoutError), and writes nothing more to stdout after it.
  readonly #onStdoutError = (error: NodeJS.ErrnoException) => this.stopWith({ kind: 'stdout', error });

  constructor(options: RecorderOptions) {
    this.#o = options;
    this.#stdout = options.io.stdoutStream;
    // Any write error, not only EPIPE: a full disk or an I/O error under `> file` means no more results; the batch stops, keeps its rows.
    this.#stdout.on('error', this.#onStdoutError);
    const journal = options.journal; // an outcome that cannot be journaled would show up on --resume as in flight: stop sending now
    if (journal) journal.onError = (error) => this.stopWith({ kind: 'journal', path: journal.path, error });
  }

  /** Why the batch stopped sending, once it did. */
  get stopReason(): StopReason | undefined {
    const reason = this.#o.stop.signal.reason as unknown;
    return this.#o.stop.signal.aborted && isStopReason(reason) ? reason : undefined;
  }

  /** Stops sending (if not stopped already) for a reason of its own, and says so on stderr. */
  stopWith(reason: StopReason): void {
    if (this.#o.stop.signal.aborted) return;
    this.#o.stop.abort(reason);
    const failed = this.#o.failed;
    const kept = failed ? `rows not yet sent are kept in ${failed.path}` : 'the rows read are still checked'; // none: a dry run
    // Damage is found as reading ends: the summary says which rows were kept, and a run refused then keeps none (review24b F2).
    const rest = failed?.error ? '; nothing more is sent' : failed && reason.kind === 'damaged' ? '' : `; ${kept}`;
    // A stdout that cannot be written has had its one line from the Output already; the summary says the rest.
    if (reason.kind === 'stdout' && this.#o.io.stdoutError && this.#o.io.stdoutError.code !== 'EPIPE') return;
    this.#o.stderr(this.#o.io.errColors.error(printable(`stopping: ${stopCause(reason)}${rest}`)));
  }

  before(row: Row): Outcome | undefined {
    const prior = this.#o.journal?.prior(row.at ?? row.line);
    if (this.#o.retryUnknown) return prior?.kind === 'unknown' ? undefined : prior;
    if (prior) return prior;
    if (row.unknownBefore && row.invalid === undefined) {
      this.counts.skippedUnknown++;
      return { kind: 'unknown', reason: UNKNOWN_SKIPPED };
    }
    return undefined;
  }

  starting(row: Row): boolean {
    if (!this.#o.journal) return true; // without one nothing needs the rows in flight: no Set add and delete a row
    const at = row.at ?? row.line;
    this.#sent.add(at);
    return this.#o.journal.starting(at); // one that cannot be written has stopped the batch through its onError
  }

  outcome(row: Row, outcome: Outcome): void | Promise<void> {
    this.counts.rows++;
    this.counts[outcome.kind]++;
    const reason = failureReason(outcome, this.#o.io.serverMask);
    const kept = reason === undefined ? undefined : this.#o.io.redact(reason);
    const at = row.at ?? row.line;
    // After damage the failed file, not --resume, carries the batch on: its unsent rows are journaled as kept there.
    const kind = outcome.kind === 'unsent' && this.stopReason?.kind === 'damaged' ? 'failed' : outcome.kind;
    if (this.#o.journal && (this.#sent.delete(at) || kind !== outcome.kind)) this.#o.journal.settled(at, kind, kept);
    this.#breaker(outcome);

    const drained = this.#o.json && this.#o.io.stdoutError === undefined ? this.#writeJson(row, outcome) : undefined;
    if (reason === undefined) return drained;
    const failed = this.#o.failed;
    if (failed && !failed.write(row, kept!)) this.stopWith({ kind: 'failed-file', path: failed.path, error: failed.error });
    if (!this.#o.json && outcome.kind !== 'unsent' && outcome.kind !== 'earlier' && this.shownFailures < SHOWN_FAILURES) {
      this.shownFailures++;
      this.#o.stderr(failureLine(row.file === undefined ? row.line : `${printable(row.file)}:${row.line}`, reason, this.#o.io.errColors));
    }
    return drained;
  }

  /**
   * A service that is down, or a key it refuses, fails every row the same way. After a run of such failures (twice the requests in flight,
   * at least 10) the batch stops sending and keeps the rest, rather than fail a million rows one by one.
   */
  #breaker(outcome: Outcome): void {
    if (outcome.kind === 'accepted') this.#streak = 0;
    if ((outcome.kind !== 'failed' && outcome.kind !== 'unknown') || !outcome.error) return;
    const error = outcome.error;
    const hopeless = error instanceof NetworkError || (error instanceof ServiceError && (error.status === 401 || error.status === 403));
    this.#streak = hopeless ? this.#streak + 1 : 0;
    if (this.#streak < Math.max(10, 2 * this.#o.concurrency())) return;
    const answer = error instanceof ServiceError ? `${error.status} ${error.statusText}`.trim() : 'no answer';
    this.stopWith({ kind: 'breaker', failures: this.#streak, answer });
  }

  #drain: Promise<void> | undefined;
  #lines = ''; // NDJSON lines not written yet: written together at the end of this turn of the event loop, or at 64 KiB
  /** Adds the row's NDJSON line; a promise only when stdout asks to wait (back-pressure). */
  #writeJson(row: Row, outcome: Outcome): Promise<void> | undefined {
    // One write a line was a third of a stop's time: 100,000 lines for the rows kept took 1.9-2.7 s to a pipe (sigaudit21).
    if (this.#lines === '') setImmediate(() => void this.#flush());
    this.#lines += `${this.#o.io.redactJson(rowJson(row, outcome, this.#o.io.serverMask))}\n`;
    return this.#lines.length >= 65_536 ? this.#flush() : this.#drain;
  }

  #flush(): Promise<void> | undefined {
    const lines = this.#lines;
    this.#lines = '';
    if (lines === '' || this.#o.io.stdoutError !== undefined) return this.#drain;
    this.#o.beforeStdout?.();
    if (this.#stdout.write(lines)) return undefined;
    // An error ends the wait as a drain does (the 'error' listener above stops the batch). One wait for every lane: a listener
    // each passed Node's ten when a stop wrote 100,000 lines at once (MaxListenersExceededWarning on stderr; sigaudit21).
    return (this.#drain ??= once(this.#stdout, 'drain')
      .then(() => undefined)
      .catch(() => undefined)
      .finally(() => (this.#drain = undefined)));
  }

  close(): void {
    void this.#flush();
    this.#stdout.off('error', this.#onStdoutError);
  }
}

/**
 * trigger batch <file|->: many events from CSV, NDJSON or a list of user ids, over one pool of
 * kept-alive connections. Every row ends in exactly one place: accepted, or in the --failed file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Breaker } from '../batch/breaker.js';
import { formatFromName, openInput, type Format } from '../batch/input.js';
import { FailedFile } from '../batch/failed.js';
import { failureReason, fmt, progressLine, rowJson, stepSummary, summaryLines, type SummaryInput } from '../batch/report.js';
import { readRows, type Row } from '../batch/rows.js';
import { emptyCounts, runBatch, type Outcome } from '../batch/runner.js';
import { TriggerError, UsageError } from '../errors.js';
import type { Output } from '../output/io.js';
import { Progress } from '../output/progress.js';
import { githubAnnotation, shellQuote } from '../output/render.js';
import { spinnerWanted } from '../output/spinner.js';
import { resolveSettings } from '../settings/resolve.js';
import { clientFor, settingsFlags, type ServiceOptions } from './shared.js';

export interface BatchCommandOptions extends ServiceOptions {
  format?: Format;
  trigger?: string;
  concurrency: number;
  rate?: number;
  failed?: string;
}

/** Failures shown one by one on stderr before only the summary counts them. */
const SHOWN_FAILURES = 20;

function sameFile(a: string, b: string): boolean {
  const ra = path.resolve(a);
  const rb = path.resolve(b);
  if (ra === rb) return true;
  try {
    const sa = fs.statSync(ra);
    const sb = fs.statSync(rb);
    return sa.ino === sb.ino && sa.dev === sb.dev;
  } catch {
    return false;
  }
}

/** Counts newlines in a file without holding it, for the progress total. */
async function countLines(file: string): Promise<number> {
  let n = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) n++;
  }
  return n;
}

/** The command that sends a failed file again (a lines input's failed file is CSV). */
function replayCommand(file: string, format: Format, trigger: string | undefined): string {
  const written = format === 'lines' ? 'csv' : format;
  const byName = formatFromName(file);
  const args = ['trigger', 'batch', shellQuote(file)];
  if (byName && byName !== written) args.push('--format', written);
  if (trigger && format !== 'lines') args.push('--trigger', shellQuote(trigger));
  return args.join(' ');
}

export async function batch(source: string, options: BatchCommandOptions, io: Output): Promise<void> {
  const dryRun = options.dryRun === true;
  if (options.failed && source !== '-' && sameFile(options.failed, source)) {
    throw new UsageError(`--failed ${options.failed} is the input file; it would be overwritten`, { hint: 'write the failed rows to another file' });
  }
  const settings = resolveSettings({ flags: settingsFlags(options), requireKey: !dryRun });
  io.addSecret(settings.apiKey);
  const input = await openInput(source, { format: options.format });
  const reader = readRows(input.stream, input.format, { trigger: options.trigger });
  const failed = options.failed ? new FailedFile(options.failed) : undefined;
  try {
    await failed?.ready();
  } catch (error) {
    throw new UsageError(`cannot write --failed ${options.failed}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      hint: 'check that its folder exists and is writable',
    });
  }
  const client = dryRun ? undefined : clientFor(settings, options, io, { connections: options.concurrency });

  const counts = emptyCounts();
  const started = performance.now();
  let total: number | undefined;
  const progress =
    spinnerWanted() && !options.quiet && !options.verbose
      ? new Progress(io, () => progressLine(counts, total, performance.now() - started, io.err))
      : undefined;
  if (progress && input.file) {
    const headerLines = input.format === 'csv' ? 1 : 0;
    void countLines(input.file).then((n) => (total = Math.max(0, n - headerLines)), () => undefined);
  }
  const stderr = (line: string) => {
    progress?.clear();
    io.stderr(line);
  };

  const stop = new AbortController();
  const stopReading = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      stop.abort();
      const kept = failed ? `; unsent rows go to ${failed.path}` : '';
      stderr(io.err.warn(`interrupted: sending stopped, waiting for ${counts.inFlight} requests in flight${kept} (Ctrl-C again cancels them)`));
    } else {
      stopReading.abort();
      client?.abortAll();
      if (interrupts === 2) stderr(io.err.warn('cancelling the requests in flight; their outcome is unknown'));
    }
  };
  process.on('SIGINT', onSigint);

  const breaker = new Breaker(options.concurrency);

  // With --json, a reader that goes away (`| head`) ends the batch like Ctrl-C: stop sending, keep
  // every row not yet sent.
  let stdoutClosed = false;
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' || stdoutClosed) return;
    stdoutClosed = true;
    breaker.reason ??= 'standard output was closed';
    stop.abort();
  };
  process.stdout.on('error', onStdoutError);
  let shownFailures = 0;
  // Returns a promise only when a stream asks to wait (back-pressure): most rows cost no promise.
  const onOutcome = (row: Row, outcome: Outcome): void | Promise<void> => {
    if (breaker.record(outcome)) {
      stop.abort();
      stderr(io.err.error(`stopping: ${breaker.reason}; rows not yet sent are kept${failed ? ` in ${failed.path}` : ''}`));
    }
    const unsent = breaker.reason ? `not sent: the batch stopped after ${breaker.reason}` : undefined;
    const drained =
      options.json && !stdoutClosed && !process.stdout.write(`${io.redact(rowJson(row, outcome, unsent))}\n`) ? drain() : undefined;
    const reason = failureReason(outcome, unsent);
    if (reason === undefined) return drained?.then(() => undefined);
    if (!options.json && outcome.kind !== 'unsent' && shownFailures < SHOWN_FAILURES) {
      shownFailures++;
      stderr(`${io.err.error('✖')} line ${row.line}: ${reason}`);
    }
    const written = failed?.write(row, reason, reader.header());
    return drained || written ? Promise.all([drained, written]).then(() => undefined) : undefined;
  };

  // Waits for stdout to take more, or to be found closed.
  const drain = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        process.stdout.off('drain', done);
        process.stdout.off('error', done);
        resolve();
      };
      process.stdout.on('drain', done);
      process.stdout.on('error', done);
    });

  progress?.start();
  let result;
  try {
    result = await runBatch({
      rows: reader.rows,
      send: client ? (event) => client.fire(event) : undefined,
      concurrency: options.concurrency,
      rate: options.rate,
      stop: stop.signal,
      // A file ends, so its unsent rows are always kept; stdin may not, so a second Ctrl-C stops reading it.
      stopReading: input.file ? undefined : stopReading.signal,
      onOutcome,
    }, counts);
  } finally {
    progress?.stop();
    process.removeListener('SIGINT', onSigint);
    process.stdout.removeListener('error', onStdoutError);
    await client?.destroy();
    await failed?.close();
  }

  const shownAll = shownFailures >= SHOWN_FAILURES && counts.failed + counts.invalid > shownFailures;
  if (shownAll && !options.json) stderr(io.err.dim(`  … ${fmt(counts.failed + counts.invalid - shownFailures)} more not shown`));

  const retryCommand = failed ? replayCommand(failed.path, input.format, options.trigger) : undefined;
  const summary: SummaryInput = {
    counts,
    elapsedMs: result.elapsedMs,
    dryRun,
    interrupted: interrupts > 0,
    halted: breaker.reason,
    failedFile: failed?.path,
    retryCommand,
    notReadAfter: result.incomplete ? result.lastLine : undefined,
  };
  const notAccepted = counts.rows - counts.accepted - counts.checked;
  const lines = summaryLines(summary, options.json ? io.err : io.out);
  if (options.json || (options.quiet && notAccepted > 0) || interrupts > 0) for (const line of lines) io.stderr(line);
  else if (!options.quiet) for (const line of lines) io.stdout(line);

  if (process.env.GITHUB_STEP_SUMMARY) {
    try {
      fs.appendFileSync(process.env.GITHUB_STEP_SUMMARY, io.redact(stepSummary(input.name, summary)));
    } catch (error) {
      io.stderr(`warning: cannot append to GITHUB_STEP_SUMMARY: ${(error as Error).message}`);
    }
  }

  if (interrupts > 0) throw new TriggerError('interrupted', 'interrupted', { reported: true });
  if (notAccepted > 0) {
    if (process.env.GITHUB_ACTIONS === 'true') {
      io.stderr(githubAnnotation(`trigger batch ${input.name}: ${fmt(notAccepted)} of ${fmt(counts.rows)} rows not accepted${failed ? ` (kept in ${failed.path})` : ''}`));
    }
    throw new TriggerError('refused', `${notAccepted} rows not accepted`, { reported: true });
  }
}

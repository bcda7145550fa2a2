/**
 * trigger batch <file|->: many events from CSV, NDJSON or a list of user ids, over one pool of
 * kept-alive connections. Rows flow one way: reader → runner → recorder (journal, failed file,
 * NDJSON, stderr). Every row ends in exactly one place, whatever ends the run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeWriteError, FailedFile } from '../batch/failed.js';
import { formatFromName, openInput, type Format, type Input } from '../batch/input.js';
import { fingerprint, Journal } from '../batch/journal.js';
import { BatchRecorder } from '../batch/recorder.js';
import { fmt, progressLine, stepSummary, summaryLines, type SummaryInput } from '../batch/report.js';
import { readRows, type RowSource } from '../batch/rows.js';
import { shardRows, type Shard } from '../batch/shard.js';
import { Runner } from '../batch/runner.js';
import { TriggerError, UsageError, type StopSignal } from '../errors.js';
import type { Output } from '../output/io.js';
import { Progress } from '../output/progress.js';
import { githubAnnotation, shellQuote } from '../output/render.js';
import { spinnerWanted } from '../output/spinner.js';
import { loadSettings } from '../settings/resolve.js';
import { onStopSignals } from '../signals.js';
import { clientFor } from './service.js';
import { settingsFlags, type ServiceOptions } from './shared.js';

export interface BatchCommandOptions extends ServiceOptions {
  format?: Format;
  trigger?: string;
  concurrency: number;
  rate?: number;
  failed?: string;
  journal?: string;
  resume?: boolean;
  retryUnknown?: boolean;
  shard?: Shard;
}

/** True when both name the same file (any path to it), or `b` is the file behind stdin ("-"). */
function sameFile(a: string, b: string): boolean {
  if (b !== '-' && path.resolve(a) === path.resolve(b)) return true;
  try {
    const sa = fs.statSync(a);
    const sb = b === '-' ? fs.fstatSync(0) : fs.statSync(b);
    return sa.ino === sb.ino && sa.dev === sb.dev;
  } catch {
    return false;
  }
}

function checkPaths(source: string, options: BatchCommandOptions): void {
  const input = source === '-' ? 'the file behind standard input' : 'the input file';
  if (options.failed && sameFile(options.failed, source)) {
    throw new UsageError(`--failed ${options.failed} is ${input}; it would be overwritten`, { hint: 'write the failed rows to another file' });
  }
  if (options.resume && !options.journal) throw new UsageError('--resume goes with --journal <file>: the journal says where to carry on');
  if (!options.journal) return;
  if (source === '-' || !fs.statSync(source, { throwIfNoEntry: false })?.isFile()) {
    throw new UsageError('--journal needs the input as a regular file', { hint: 'a resumed run reads the same rows again, and stdin or a pipe cannot be read twice: save it to a file first' });
  }
  if (sameFile(options.journal, source)) throw new UsageError(`--journal ${options.journal} is the input file`, { hint: 'name a new file for the journal' });
  if (options.failed && sameFile(options.journal, options.failed)) throw new UsageError('--journal and --failed name the same file', { hint: 'give each its own file' });
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
  const args = ['trigger', 'batch', shellQuote(file)];
  if (formatFromName(file) !== written) args.push('--format', written);
  if (trigger && format !== 'lines') args.push('--trigger', shellQuote(trigger));
  return args.join(' ');
}

/** The command that carries a journaled batch on. */
function resumeCommand(input: Input, options: BatchCommandOptions): string {
  const args = ['trigger', 'batch', shellQuote(input.name), '--journal', shellQuote(options.journal!), '--resume'];
  if (options.shard) args.push('--shard', `${options.shard.index}/${options.shard.count}`);
  if (options.failed) args.push('--failed', shellQuote(options.failed));
  if (formatFromName(input.name) !== input.format) args.push('--format', input.format);
  if (options.trigger) args.push('--trigger', shellQuote(options.trigger));
  return args.join(' ');
}

function openFailed(file: string, reader: RowSource): FailedFile {
  try {
    return new FailedFile(file, reader.format, reader.header);
  } catch (error) {
    throw new UsageError(`cannot write --failed ${file}: ${describeWriteError(error)}`, { hint: 'name a file in a folder that exists and that you can write to' });
  }
}

export async function batch(source: string, options: BatchCommandOptions, io: Output): Promise<void> {
  const dryRun = options.dryRun === true;
  checkPaths(source, options);
  const settings = await loadSettings({ flags: settingsFlags(options), requireKey: !dryRun });
  io.addSecret(settings.apiKey);
  for (const warning of settings.warnings) io.stderr(io.err.warn(warning));
  const input = await openInput(source, { format: options.format });
  const reader = readRows(input.stream, input.format, { trigger: options.trigger });
  const journal =
    options.journal && !dryRun
      ? Journal.open(options.journal, {
          resume: options.resume === true,
          input: await fingerprint(input.file!),
          format: input.format,
          shard: options.shard ? `${options.shard.index}/${options.shard.count}` : undefined,
          resumeCommand: resumeCommand(input, options),
        })
      : undefined;
  if (journal?.resumed) io.stderr(io.err.dim(`resuming from ${journal.path}: rows it records as done are not sent again`));
  const failed = options.failed ? openFailed(options.failed, reader) : undefined;
  const client = dryRun ? undefined : clientFor(settings, options, io, { connections: options.concurrency });

  const stop = new AbortController();
  const stopReading = new AbortController();
  let progress: Progress | undefined;
  const stderr = (line: string) => {
    progress?.clear();
    io.stderr(line);
  };
  const recorder = new BatchRecorder({
    ...{ io, stop, failed, journal, stderr, concurrency: options.concurrency },
    json: options.json === true,
    retryUnknown: options.retryUnknown === true,
    beforeStdout: () => progress?.clear(),
  });
  const runner = new Runner({
    rows: options.shard ? shardRows(reader.rows, options.shard) : reader.rows,
    send: client ? (event, stopRetries) => client.fire(event, { stopRetries }) : undefined,
    concurrency: options.concurrency,
    rate: options.rate,
    stop: stop.signal,
    // A file ends, so its unsent rows are always kept; stdin may not, so a second signal stops reading it.
    stopReading: input.file ? undefined : stopReading.signal,
    sink: recorder,
  });

  const started = performance.now();
  let total: number | undefined;
  if (spinnerWanted() && !options.quiet && !options.verbose) {
    progress = new Progress(io, () => progressLine(recorder.counts, total, performance.now() - started, io.err));
    if (input.file && !options.shard) void countLines(input.file).then((n) => (total = Math.max(0, n - (input.format === 'csv' ? 1 : 0))), () => undefined);
  }

  let stoppedBy: StopSignal | undefined;
  const removeSignals = onStopSignals((signal, count) => {
    if (count === 1) {
      stoppedBy = signal;
      stop.abort(`not sent: the batch was interrupted (${signal})`);
      const kept = failed ? `; unsent rows go to ${failed.path}` : '';
      stderr(io.err.warn(`interrupted (${signal}): sending stopped, waiting for ${runner.inFlight} requests in flight${kept} (a second signal cancels them)`));
    } else {
      stopReading.abort();
      client?.abortAll();
      if (count === 2) stderr(io.err.warn('cancelling the requests in flight; their outcome is unknown'));
    }
  });

  progress?.start();
  let result;
  try {
    result = await runner.run();
  } catch (error) {
    // Nothing settled (a bad header, say): an earlier failed file stays as it was.
    if (recorder.counts.rows === 0) failed?.discard();
    else failed?.finish();
    journal?.close(false);
    throw error;
  } finally {
    progress?.stop();
    removeSignals();
    recorder.close();
    await client?.destroy();
  }
  const { counts } = recorder;
  failed?.finish();
  journal?.close(!result.incomplete && counts.unsent === 0);

  const hidden = counts.failed + counts.invalid + counts.unknown - recorder.shownFailures;
  if (hidden > 0 && recorder.shownFailures > 0 && !options.json) stderr(io.err.dim(`  … ${fmt(hidden)} more not shown`));

  const resume = journal !== undefined && counts.unsent > 0;
  const summary: SummaryInput = {
    counts,
    elapsedMs: result.elapsedMs,
    dryRun,
    signal: stoppedBy,
    halted: stoppedBy ? undefined : recorder.stopReason?.replace(/^not sent: the batch stopped (because|after) /, ''),
    failedFile: failed?.path,
    notKept: failed?.error ? { rows: failed.notKept, kept: failed.rows, why: describeWriteError(failed.error) } : undefined,
    next: resume ? { command: resumeCommand(input, options), resume } : failed && !failed.inPlace ? { command: replayCommand(failed.path, input.format, options.trigger), resume } : undefined,
    notReadAfter: result.incomplete ? result.lastLine : undefined,
  };
  const notAccepted = recorder.notAccepted;
  const lines = summaryLines(summary, options.json ? io.err : io.out);
  if (options.json || (options.quiet && notAccepted > 0) || stoppedBy) for (const line of lines) io.stderr(line);
  else if (!options.quiet) for (const line of lines) io.stdout(line);

  if (process.env.GITHUB_STEP_SUMMARY) {
    try {
      fs.appendFileSync(process.env.GITHUB_STEP_SUMMARY, io.redact(stepSummary(input.name, summary)));
    } catch (error) {
      io.stderr(`warning: cannot append to GITHUB_STEP_SUMMARY: ${(error as Error).message}`);
    }
  }

  if (stoppedBy) throw new TriggerError('interrupted', 'interrupted', { reported: true, signal: stoppedBy });
  if (notAccepted > 0) {
    if (process.env.GITHUB_ACTIONS === 'true') {
      io.stderr(githubAnnotation(`trigger batch ${input.name}: ${fmt(notAccepted)} of ${fmt(counts.rows)} rows not accepted${failed ? ` (kept in ${failed.path})` : ''}`));
    }
    throw new TriggerError('refused', `${notAccepted} rows not accepted`, { reported: true });
  }
}

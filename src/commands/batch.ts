/**
 * trigger batch <file|->: many events from CSV, NDJSON or a list of user ids, over one pool of
 * kept-alive connections. Rows flow one way: reader → runner → recorder (journal, failed file,
 * NDJSON, stderr). Every row ends in exactly one place, whatever ends the run.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { checkPaths, countLines, inFolder, lockJournal, openDefaultFailed, openFailed, openJournal } from '../batch/files.js';
import { catalogFingerprint } from '../batch/journal.js';
import { finishBatch } from '../batch/finish.js';
import { FORMAT_TABLE, type Format } from '../batch/formats.js';
import { openInputs } from '../batch/input.js';
import type { FailedFile } from '../batch/failed.js';
import type { Journal } from '../batch/journal.js';
import type { FileLock } from '../lock.js';
import { BatchRecorder } from '../batch/recorder.js';
import { progressLine } from '../batch/report.js';
import { parseColumns } from '../batch/rows.js';
import { Runner } from '../batch/runner.js';
import { Pace, answerOf } from '../batch/pace.js';
import { monotonicMs } from '../clock.js';
import { UsageError, type StopSignal } from '../errors.js';
import { shardRows, type Shard } from '../batch/shard.js';
import type { StopReason } from '../batch/stop.js';
import type { RowCheck, TriggerResolver } from '../catalog/resolve.js';
import type { Output } from '../output/io.js';
import { Progress } from '../output/progress.js';
import { spinnerWanted } from '../output/spinner.js';
import { resolveCommand } from '../settings/resolve.js';
import { onStopSignals } from '../signals.js';
import { clientFor } from './service.js';
import { settingsFlags, type ServiceOptions } from './shared.js';
import { capYoungGeneration } from '../startup.js';

export interface BatchCommandOptions extends ServiceOptions {
  format?: Format;
  /** --columns triggerId=<name>,userId=<name>,value=<name>: the file's own column names. */
  columns?: string;
  trigger?: string;
  /** A fixed number, or auto (the default): found from the service's answers. */
  concurrency: number | 'auto';
  /** With auto, the most at once (default 64). */
  maxConcurrency?: number;
  rate?: number;
  failed?: string;
  journal?: string;
  resume?: boolean;
  retryUnknown?: boolean;
  shard?: Shard;
}

export async function batch(
  given: string | string[],
  options: BatchCommandOptions,
  io: Output,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
  stdin: Readable = process.stdin,
): Promise<void> {
  // Every file named is the command's folder's: the input, the failed file and the journal.
  const sources = (Array.isArray(given) ? given : [given]).map((source) => inFolder(cwd, source));
  const at = (file: string | undefined) => (file === undefined ? undefined : inFolder(cwd, file));
  options = { ...options, failed: at(options.failed), journal: at(options.journal) };
  const dryRun = options.dryRun === true;
  if (options.concurrency !== 'auto' && options.maxConcurrency !== undefined) {
    throw new UsageError(`--max-concurrency goes with --concurrency auto; with --concurrency ${options.concurrency} it would do nothing`, {
      hint: 'drop one of them',
    });
  }
  checkPaths(sources, options);
  const columns = options.columns === undefined ? undefined : parseColumns(options.columns);
  const auto = options.concurrency === 'auto';
  const maxConcurrency = auto ? (options.maxConcurrency ?? 64) : (options.concurrency as number);
  const pace = auto && !dryRun ? new Pace({ max: maxConcurrency, now: monotonicMs }) : undefined;
  const { settings, catalog } = await resolveCommand({
    flags: settingsFlags(options),
    requireKey: !dryRun,
    env,
    cwd,
    catalog: options.catalog,
  });
  io.addSecret(settings.apiKey);
  for (const warning of settings.warnings) io.stderr(io.errColors.warn(warning));
  const check = catalog ? await catalogRowCheck(catalog, options.trigger, (line) => io.stderr(io.errColors.warn(line))) : undefined;
  if (sources[0] === '-' && (stdin as { isTTY?: boolean }).isTTY) {
    const format = FORMAT_TABLE[options.format ?? 'csv'].wording;
    io.stderr(io.errColors.dim(`reading rows from the terminal (${format}); press Ctrl-D on a new line to end them`));
  }
  const read = { trigger: options.trigger, check, columns };
  const input = await openInputs(sources, { format: options.format, stdin, read });
  const reader = input.read(read);
  const shape = { format: input.format, header: reader.header, normalized: input.normalized };
  // In this order, so that a mistake found on the way (bad options, an unwritable --failed, a journal
  // that refuses or that another batch holds) leaves no new journal and no temporary failed file behind.
  const client = dryRun ? undefined : clientFor(settings, options, io, { connections: maxConcurrency, env });
  const locks: FileLock[] = [];
  let failed: FailedFile | undefined;
  let journal: Journal | undefined;
  try {
    // The journal first: a second run of the same batch is refused for what it shares with the first.
    if (options.journal && !dryRun) locks.push(lockJournal(options.journal));
    // Without --failed the rows not accepted still go somewhere: a file named by the time, in the
    // current folder, made only if there is something to keep (a dry run sends nothing: none).
    if (options.failed || !dryRun) {
      const opened = options.failed ? openFailed(options.failed, shape) : openDefaultFailed(shape, inFolder(cwd, '.'));
      failed = opened.failed;
      if (opened.lock) locks.push(opened.lock);
      if ('warning' in opened && opened.warning) io.stderr(io.errColors.warn(`warning: ${opened.warning}`));
    }
    if (options.journal && !dryRun)
      journal = await openJournal(input, { ...options, failed: failed?.path }, catalogFingerprint(catalog?.catalog));
  } catch (error) {
    failed?.discard();
    for (const lock of locks) lock.release();
    await client?.destroy();
    input.close(); // a pipe that is still open must not keep a refused run waiting
    throw error;
  }
  if (journal?.resumed) io.stderr(io.errColors.dim(`resuming from ${journal.path}: rows it records as done are not sent again`));

  const stop = new AbortController();
  let progress: Progress | undefined;
  const stderr = (line: string) => {
    progress?.clear();
    io.stderr(line);
  };
  const recorder = new BatchRecorder({
    ...{ io, stop, failed, journal, stderr, concurrency: pace ? () => pace.limit : maxConcurrency },
    json: options.json === true,
    retryUnknown: options.retryUnknown === true,
    beforeStdout: () => progress?.clear(),
  });
  // The same for every row: one object, not one per row. With auto, every attempt is told to the
  // pace, a push-back comes back here to be sent again, and retries wait for the shared pause.
  const fireOptions = pace
    ? {
        stopRetries: stop.signal,
        throwPushBack: true,
        gate: pace,
        onAttempt: (status: number, ms: number, timedOut: boolean, retryAfterMs: number) =>
          pace.answered(answerOf(status, timedOut), ms, retryAfterMs),
      }
    : { stopRetries: stop.signal };
  const runner = new Runner({
    rows: options.shard ? shardRows(reader.rows, options.shard) : reader.rows,
    send: client ? (event) => client.fire(event, fireOptions) : undefined,
    concurrency: maxConcurrency,
    pace,
    halt: (reason) => recorder.stopWith(reason),
    rate: options.rate,
    stop: stop.signal,
    sink: recorder,
  });

  const started = performance.now();
  let total: number | undefined;
  const live = { inFlight: 0, pushedBack: 0, stopped: false };
  const render = () => {
    live.inFlight = runner.inFlight;
    live.pushedBack = pace?.pushedBack ?? 0;
    live.stopped = stop.signal.aborted;
    return progressLine(recorder.counts, total, performance.now() - started, io.errColors, live);
  };
  const terminal = spinnerWanted(env, io.terminal);
  if (!options.quiet && !options.verbose) {
    // Without a terminal (CI, a log), a plain line every 10 s: a long job's log never goes silent.
    progress = new Progress(io, render, { plain: !terminal });
    if (input.file && !options.shard)
      void countLines(input.file).then(
        (n) => (total = Math.max(0, n - (FORMAT_TABLE[input.format].kind === 'csv' ? 1 : 0))),
        () => undefined,
      );
  }

  let stoppedBy: StopSignal | undefined;
  const removeSignals = onStopSignals((signal, count) => {
    if (count === 1) {
      stoppedBy = signal;
      stop.abort({ kind: 'signal', signal } satisfies StopReason);
      // A file ends, so its unsent rows are all read and kept; a pipe may not end before the grace
      // period does, so reading it stops here (what was read is kept, the rest is the producer's).
      input.stopReading();
      const kept = failed ? `; unsent rows go to ${failed.path}` : '';
      stderr(
        io.errColors.warn(
          `interrupted (${signal}): sending stopped, waiting for ${runner.inFlight} requests in flight${kept} (a second signal cancels them)`,
        ),
      );
    } else {
      client?.abortAll();
      if (count === 2) stderr(io.errColors.warn('cancelling the requests in flight; their outcome is unknown'));
    }
  });

  progress?.start();
  const stopCapping = capYoungGeneration();
  let result;
  try {
    result = await runner.run().catch((error: unknown) => {
      // A signal that stopped stdin before its header came: nothing was read, so nothing is wrong with it.
      if (stoppedBy && input.cut && recorder.counts.rows === 0 && error instanceof UsageError) return { elapsedMs: 0, lastLine: 0 };
      throw error;
    });
  } catch (error) {
    // Nothing settled (a bad header, say): an earlier failed file stays as it was.
    if (recorder.counts.rows === 0) failed?.discard();
    else failed?.finish();
    journal?.close(false);
    for (const lock of locks) lock.release();
    input.close();
    throw error;
  } finally {
    stopCapping();
    progress?.stop();
    removeSignals();
    recorder.close();
    await client?.destroy();
  }
  try {
    // A journal that had accounted for every row, and a run that sent nothing: the failed file that
    // run left holds the same rows, so it stays as it was (rewritten, its rows could come out in
    // another order, and a replay of it already run would no longer match it: see batch/replay.ts).
    const unchanged = failed && journal?.completedWith === path.resolve(failed.path) && !journal.sentHere && fs.existsSync(failed.path);
    if (unchanged) failed?.discard();
    else failed?.finish();
    journal?.close(input.cut === undefined && recorder.counts.unsent === 0, failed && !failed.inPlace ? failed.path : undefined);
  } finally {
    for (const lock of locks) lock.release();
  }

  finishBatch({
    io,
    env,
    options: { ...options, failed: failed?.path },
    input,
    recorder,
    failed,
    journal,
    result,
    signal: stoppedBy,
    stderr,
    pace,
  });
}

/**
 * The catalog's check for each row (an unknown --trigger stops the batch before it starts, as
 * `fire` does); deprecated triggers are warned about once each.
 */
async function catalogRowCheck(catalog: TriggerResolver, trigger: string | undefined, warn: (line: string) => void): Promise<RowCheck> {
  if (trigger !== undefined) {
    const found = catalog.resolve(trigger);
    if (!found.ok) throw new UsageError(`--trigger: ${found.message}`, { hint: 'see the known triggers with: trigger triggers list' });
  }
  const { rowChecker } = await import('../catalog/resolve.js');
  return rowChecker(catalog, warn);
}

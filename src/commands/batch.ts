/**
 * trigger batch <file...>: its definition (options, help) and its run. Many events from CSV, NDJSON or a list of user ids. Rows flow one
 * way: reader → runner → recorder (journal, failed file, NDJSON, stderr). Every row ends in exactly one place, whatever ends the run.
 */
import fs from 'node:fs';
import { Option, type Command } from 'commander';
import {
  checkPaths,
  countLines,
  inFolder,
  openWritten,
  replayCommand,
  replayNames,
  restCommand,
  type RestOf,
  resumeCommand,
  settleWritten,
  type BatchFiles,
  type Written,
} from '../batch/files.js';
import { stopCause } from '../batch/stop.js';
import { githubAnnotation, printable, shellQuote } from '../output/render.js';
import { catalogFingerprint, fingerprintOf, readStopped, type InputFingerprint, type Service } from '../batch/journal.js';
import { FORMAT_TABLE, FORMATS } from '../batch/formats.js';
import { openInputs, type Input } from '../batch/input.js';
import { errnoWords } from '../errno.js';
import { BatchRecorder, type Counts } from '../batch/recorder.js';
import { formatCount, progressLine, rowsNotAccepted, stepSummary, summaryLines, type SummaryInput } from '../batch/report.js';
import { parseColumns, type Row } from '../batch/rows.js';
import { Runner, type RunResult } from '../batch/runner.js';
import { Pace, answerOf } from '../batch/pace.js';
import { monotonicMs } from '../clock.js';
import type { TriggerClient } from '../client/client.js';
import { TriggerError, UsageError, type StopSignal } from '../errors.js';
import { shardRows, shardRota } from '../batch/shard.js';
import { Progress } from '../output/progress.js';
import { spinnerWanted } from '../output/spinner.js';
import { onStopSignals } from '../signals.js';
import * as parse from './parsers.js';
import { clientFor, commandSettings } from './service.js';
import { addServiceOptions, type Context, type ServiceOptions } from './shared.js';
import { capYoungGeneration } from '../startup.js';
import type { Settings } from '../settings/resolve.js';
import { SETTINGS, type Setting } from '../settings/store.js';
import { normalizeApiKey } from '../settings/validate.js';
import { tryOr } from '../try-or.js';

/** --concurrency auto finds the service's pace, up to --max-concurrency. */
export const DEFAULT_CONCURRENCY = 'auto';
export const DEFAULT_MAX_CONCURRENCY = 64;
/** Rows of a file kept as not sent after the first signal: 100,000 at most (under a second's reading), read within 250 ms (--json: 0.97 s). */
const [KEPT_AFTER_STOP, KEPT_FOR_MS] = [100_000, 250];
const SLOW_HASH_MS = 2_000; // off a terminal, the read for --journal says so once it has taken this long

export interface BatchCommandOptions extends ServiceOptions, BatchFiles {
  concurrency: number | 'auto';
  maxConcurrency?: number;
  rate?: number;
  retryUnknown?: boolean;
}

const HELP = `
Input: CSV with a header (triggerId,userId,value in any order; value optional), NDJSON
({"triggerId","userId","value"} per line), Parquet, or --format lines (one userId per line, with --trigger);
.gz and .zst files are read as they are; a folder (a warehouse export's parts) is read in name order.

Examples:
  $ trigger batch events.csv --failed failed.csv
  $ trigger batch failed.csv --failed failed-again.csv          # send the failed rows again
  $ trigger batch events.ndjson --concurrency 16 --rate 200 --json > results.ndjson
  $ cut -d, -f1 users.csv | trigger batch - --trigger welcome --format lines
  $ trigger batch events.csv --dry-run                           # check every row, send nothing
  $ trigger batch big.csv --journal big.journal --resume --failed failed.csv   # survives kill -9; run again to carry on
  $ trigger batch export/ --columns userId=email,triggerId=event --journal export.journal --resume   # an export's parts
  $ trigger batch events.csv --shard 2/4 --failed failed-2.csv                 # job 2 of a 4-job CI matrix

Exit codes: 0 every row accepted, 1 any row not accepted, 2 unreadable input or bad options, or a
journal or failed file another batch is using, 70 a bug in trigger, 130 interrupted by Ctrl-C, 143 by
SIGTERM, 129 by SIGHUP (rows not accepted are kept in the failed file; rows of unknown outcome are
marked so, and a replay skips them unless --retry-unknown).`;

/**
 * The flags saying where rows go, for every command printed to send the rest or the kept rows (audit26b: pasted without them, a
 * backfill's rest went to the default profile's service, or under a catalog's keys). The key is never printed: one given with
 * --api-key is read from $TRIGGER_API_KEY, as fire --dry-run's curl reads it (unset, the command is refused: nothing is sent).
 */
function whereFlags(options: BatchCommandOptions, settings: Settings | undefined, env: NodeJS.ProcessEnv, cwd: string): string[] {
  const where = [];
  const named = settings?.profile ?? options.profile;
  // "default" too when the file has it (review26b: a later `config use` moved the rest); named where there is none, it is refused.
  if (named !== undefined && (named !== 'default' || settings?.profileInFile)) where.push('--profile', shellQuote(named));
  // From TRIGGER_BASE_URL it is left to the variable, as the key in TRIGGER_API_KEY is: carried alone, the paste in another shell
  // would send the profile's key to it; so a key from the variable goes with a base URL carried (review26b).
  if (settings?.baseUrlSource === 'flag') where.push('--base-url', shellQuote(settings.baseUrl.href));
  if (options.allowHttp) where.push('--allow-http');
  if (settings?.apiKeySource === 'flag' || (settings?.apiKeySource === 'env' && settings.baseUrlSource === 'flag'))
    where.push('--api-key', '"$TRIGGER_API_KEY"');
  const catalog = options.catalog ?? (env.TRIGGER_CATALOG || undefined); // a catalog path is no secret: carried from the variable too
  if (typeof catalog === 'string') where.push('--catalog', shellQuote(inFolder(cwd, catalog)));
  else if (catalog === false) where.push('--no-catalog');
  return where;
}

/** Where the rows go, for the journal to record and match (its key only as a fingerprint; a dry run may have neither). */
function serviceOf(s: Settings | undefined): Service | undefined {
  const from = ({ flag, env }: Setting, source?: string) => (source === 'flag' ? flag : source === 'env' ? env : `profile "${s?.profile}"`);
  const [urlFrom, keyFrom] = [from(SETTINGS['base-url'], s?.baseUrlSource), from(SETTINGS['api-key'], s?.apiKeySource)];
  return s && { url: s.baseUrl.href, urlFrom, key: s.apiKey, keyFrom };
}

export function command(program: Command, ctx: Context): Command {
  const batchCommand = program
    .command('batch')
    .description('report many events from CSV, NDJSON or Parquet files (gzip, zstd, folders of parts), or a list of user ids')
    .argument('<file...>', 'the input files or folders (a folder: its files in name order), or - for standard input')
    .addOption(new Option('--format <format>', 'input format (default: from the extension, else detected)').choices(FORMATS))
    .option('--trigger <id>', 'the trigger for rows that have none (and for every row with --format lines)')
    .option('--columns <map>', "the file's own column names: triggerId=<name>,userId=<name>,value=<name>")
    .option('--concurrency <n|auto>', "requests in flight at once; auto finds the service's pace", parse.concurrency, DEFAULT_CONCURRENCY)
    .option(
      '--max-concurrency <n>',
      `with --concurrency auto, never more than this many at once (default: ${DEFAULT_MAX_CONCURRENCY})`,
      parse.wholeNumber(1, 256),
    )
    .option('--rate <n>', 'at most this many requests per second', parse.rate)
    .option(
      '--failed <file>',
      'write rows that were not accepted here, with the reason and line number (same format, to send again; default: trigger-failed-<date>-<time>.csv in this folder)',
    )
    .option('--journal <file>', "record each row's progress here, so that a run that was killed can be carried on with --resume")
    .option('--resume', 'carry on the batch the --journal records: rows already accepted or kept are not sent again')
    .option('--retry-unknown', 'send rows whose outcome an earlier run could not know (they may have been recorded)')
    .option('--shard <i>/<n>', 'send only shard i of n (split by a stable hash of the user id), for n jobs sharing one file', parse.shard)
    .option(
      '--after-line <n>',
      "skip the rows up to line n of the first file read (--from's, if given): what a stopped batch prints to send the rest",
      parse.afterLine,
    )
    .option('--from <file>', "start at this file of the inputs (a folder's: in name order); the files before it are not read")
    .addHelpText('after', HELP);
  addServiceOptions(batchCommand);
  batchCommand.options.find((o) => o.long === '--dry-run')!.description = 'check every row and send nothing (prints no curl commands)';
  return batchCommand.action(async (sources: string[], options: BatchCommandOptions) => batch(sources, options, ctx));
}

export async function batch(given: string[], options: BatchCommandOptions, { io, env, cwd, stdin }: Context): Promise<void> {
  // Every file named is the command's folder's: the input, the failed file and the journal.
  const sources = given.map((source) => inFolder(cwd, source));
  const at = (file: string | undefined) => (file === undefined ? undefined : inFolder(cwd, file));
  options = { ...options, failed: at(options.failed), journal: at(options.journal), from: at(options.from) };
  const message = `--max-concurrency goes with --concurrency auto; with --concurrency ${options.concurrency} it would do nothing`;
  if (options.concurrency !== 'auto' && options.maxConcurrency !== undefined) throw new UsageError(message, { hint: 'drop one of them' });
  checkPaths(sources, options);
  const columns = options.columns === undefined ? undefined : parseColumns(options.columns);
  const dryRun = options.dryRun === true;
  const { settings, catalog } = await commandSettings(options, !dryRun, { io, env, cwd }, !dryRun); // a dry run sends nothing
  options.where = whereFlags(options, settings, env, cwd);
  // A key from --api-key is printed as "$TRIGGER_API_KEY": said beside it when this shell's holds another (review26b F2: sent under it).
  const envKey = settings?.apiKeySource === 'flag' ? tryOr(() => normalizeApiKey(env.TRIGGER_API_KEY ?? '', ''), '') : settings?.apiKey;
  const note =
    envKey !== settings?.apiKey &&
    `note: each command above reads the API key from $TRIGGER_API_KEY, which ${env.TRIGGER_API_KEY ? 'here holds another key' : 'is not set here'}: set it to the key this batch was given with --api-key (in CI, that same secret) before running it`;
  const warn = (line: string) => io.stderr(io.errColors.warn(line));
  // An unknown --trigger stops the batch before it starts, as `fire` does.
  const found = options.trigger === undefined ? undefined : catalog?.resolve(options.trigger);
  if (found && !found.ok)
    throw new UsageError(`--trigger: ${found.message}`, { hint: 'see the known triggers with: trigger triggers list' });
  const check = catalog && (await import('../catalog/resolve.js')).rowChecker(catalog, warn);
  // Rows typed on the terminal: no progress line there, whose redraws would erase the line being typed (cli20).
  const typed = sources[0] === '-' && (stdin as { isTTY?: boolean } | undefined)?.isTTY === true;
  if (typed) {
    const format = FORMAT_TABLE[options.format ?? 'csv'].wording;
    io.stderr(io.errColors.dim(`reading rows from the terminal (${format}); press Ctrl-D on a new line to end them`));
  }
  // Without --failed, rows not accepted are kept here: unwritable, it stopped a batch at the first, others sent; now refused (audit27 #14).
  const here = options.failed || dryRun ? undefined : await fs.promises.access(cwd, fs.constants.W_OK).catch((error: unknown) => error);
  const cannot = `the current folder ${cwd} cannot be written (${errnoWords(here)}), and rows not accepted are kept there; nothing was sent`;
  if (here) throw new UsageError(cannot, { hint: 'pass --failed <file> in a folder you can write to' });
  const read = { trigger: options.trigger, check, columns };
  const input = await openInputs(sources, { format: options.format, stdin, read, afterLine: options.afterLine, from: options.from });
  const reader = input.read(read);
  const maxConcurrency = options.concurrency === 'auto' ? (options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY) : options.concurrency;
  const pace =
    options.concurrency === 'auto' && !dryRun
      ? new Pace({ max: maxConcurrency, now: monotonicMs, shared: !!options.shard, rota: shardRota(options.shard) })
      : undefined;
  // In this order, so that a mistake found on the way (bad options, an unwritable --failed, a journal
  // that refuses or that another batch holds) leaves no new journal and no temporary failed file behind.
  const client = dryRun ? undefined : clientFor(settings, options, io, { connections: maxConcurrency, env });
  const signals = stopSignals();
  let written: Written;
  try {
    const hashing = (files: string[]) => readForJournal(files, options, { io, env }, signals.heard);
    const made = { catalog: catalogFingerprint(catalog?.catalog), service: serviceOf(settings), stop: signals.heard };
    written = await openWritten(input, reader.header, options, made, inFolder(cwd, '.'), hashing);
  } catch (error) {
    signals.remove();
    await client?.destroy();
    input.close(); // a pipe that is still open must not keep a refused run waiting
    if (!(error instanceof TriggerError && error.kind === 'interrupted' && error.signal)) throw error;
    io.stderr(io.errColors.warn(error.message)); // readStopped's, worded as the sending's stop: no error:, no object with --json
    throw new TriggerError('interrupted', 'interrupted', { reported: true, signal: error.signal });
  }
  if (written.journal?.resumed)
    io.stderr(io.errColors.dim(`resuming from ${printable(written.journal.path)}: rows it records as done are not sent again`));
  await send({ io, env, cwd, options, input, rows: reader.rows, client, pace, maxConcurrency, typed, signals, note, ...written });
}

type OnStop = (signal: StopSignal, count: number) => void;
// The stop signals' one listener, from the locks to send()'s end, which takes a signal heard before it as its first: with none
// between the journal's hashing and send(), Node's default ended the batch without a word, its locks and .tmp left (review25 A3).
function stopSignals() {
  const [heard, to] = [new AbortController(), { on: undefined as OnStop | undefined }];
  const remove = onStopSignals((signal, count) => (to.on ? to.on(signal, count) : heard.abort(signal)));
  const listen = (on: OnStop) => ((to.on = on), heard.signal.aborted && on(heard.signal.reason as StopSignal, 1));
  return { heard: heard.signal, listen, remove };
}

/** The inputs' fingerprints for --journal, read a piece at a time: a line on a terminal says how far, a stop signal ends the batch (audit24). */
async function readForJournal(files: string[], options: BatchCommandOptions, { io, env }: Pick<Context, 'io' | 'env'>, heard: AbortSignal) {
  const [done, total] = [[] as InputFingerprint[], files.reduce((n, f) => n + fs.statSync(f).size, 0)];
  let read = 0;
  const line = (more = '') =>
    io.errColors.dim(`reading the input for --journal: ${formatCount(read / 1e6)} of ${formatCount(total / 1e6)} MB${more}`);
  const shown = spinnerWanted(env, io.terminal) && !options.quiet && !options.json && !options.verbose;
  const progress = shown ? new Progress(io, line) : undefined;
  progress?.draw(); // at once: a 4 GB export took seconds without a word
  progress?.start();
  // Without that line, one plain line once it takes long: a 50 GB export was a minute silent in CI before the batch's own (fix26a);
  // a dry run, which sends nothing, reads it too when its journal exists (review26 F6).
  let now = files[0];
  const next = options.dryRun ? 'its rows are checked once it is read; a dry run sends nothing' : 'sending starts once it is read';
  const said = () => io.stderr(line(` so far (${now}); ${next}`));
  const slow = shown || options.quiet ? undefined : setTimeout(said, SLOW_HASH_MS).unref();
  try {
    for (const file of files) done.push(await fingerprintOf((now = file), heard, (n) => (read += n)));
  } catch (error) {
    if (!heard.aborted) throw error;
  } finally {
    progress?.stop();
    clearTimeout(slow);
  }
  const signal = heard.reason as StopSignal | undefined; // heard after the last piece too: nothing is made yet
  if (signal) throw readStopped(signal, 'the input for --journal'); // said as the journal's read; nothing made is left (openWritten)
  return done;
}

interface Run extends Written, Pick<Context, 'io' | 'env' | 'cwd'> {
  options: BatchCommandOptions;
  input: Input;
  rows: AsyncIterable<Row[]>;
  client: TriggerClient | undefined;
  pace: Pace | undefined;
  maxConcurrency: number;
  typed: boolean;
  signals: ReturnType<typeof stopSignals>;
  note: string | false; // said after the summary when it prints a command
}

/** Sends the rows, settles the failed file and the journal, and reports. */
async function send(run: Run): Promise<void> {
  const { io, options, input, client, pace, failed, journal } = run;
  const stop = new AbortController();
  const progress = progressFor(run, () => ({ counts: recorder.counts, inFlight: runner.sending, stopped: stop.signal.aborted }));
  const stderr = (line: string) => {
    progress?.clear();
    io.stderr(line);
  };
  const recorder = new BatchRecorder({
    ...{ io, stop, failed, journal, stderr, concurrency: pace ? () => pace.limit : () => run.maxConcurrency },
    json: options.json === true,
    retryUnknown: options.retryUnknown === true,
    beforeStdout: () => progress?.clear(),
  });
  // What every row is sent with: one object, not one per row. With auto, every attempt is told to the
  // pace, a push-back comes back to the runner to be sent again, and retries wait for the shared pause.
  const fireOptions = {
    stopRetries: stop.signal,
    ...(pace && {
      throwPushBack: true,
      gate: pace,
      onAttempt: (status: number, ms: number, timedOut: boolean, retryAfterMs: number) =>
        pace.answered(answerOf(status, timedOut), ms, retryAfterMs),
    }),
  };
  const runner = new Runner({
    rows: options.shard ? shardRows(run.rows, options.shard) : run.rows,
    send: client ? (event) => client.fire(event, fireOptions) : undefined,
    concurrency: run.maxConcurrency,
    pace,
    halt: (reason) => recorder.stopWith(reason),
    rate: options.rate,
    stop: stop.signal,
    sink: recorder,
  });
  input.onDamage = (damage) => recorder.stopWith({ kind: 'damaged', ...damage });
  let stoppedBy: StopSignal | undefined;
  run.signals.listen((signal, count) => {
    if (count === 1) {
      stoppedBy = signal;
      stop.abort({ kind: 'signal', signal });
      // A pipe may not end before the grace period does: what was read is kept, the rest is the producer's. A file's
      // unread rows are kept for a quarter second's reading; the rest (all, with a journal) the summary's command sends.
      const resumable = journal !== undefined && !journal.error; // a journal behind cannot carry the rest on
      input.stopReading(resumable ? 0 : KEPT_AFTER_STOP, KEPT_FOR_MS);
      const kept = failed ? `; unsent rows go to ${printable(failed.path)}` : '';
      const waiting = options.dryRun
        ? `interrupted (${signal}): checking stopped`
        : `interrupted (${signal}): sending stopped, waiting for ${runner.sending} requests in flight${kept} (a second signal cancels them)`;
      stderr(io.errColors.warn(waiting));
    } else {
      client?.abortAll();
      if (count === 2) stderr(io.errColors.warn('cancelling the requests in flight; their outcome is unknown'));
    }
  });
  progress?.start();
  const stopCapping = capYoungGeneration();
  let result: RunResult | undefined;
  try {
    result = await runner.run();
  } finally {
    stopCapping();
    progress?.stop();
    run.signals.remove();
    recorder.close();
    await client?.destroy();
    // A run that threw (a bad header, say) settled nothing: an earlier failed file stays as it was.
    // Damage found midway: every row read is accepted or kept, and a resume would stop there again (docs/choices.md).
    const complete = result !== undefined && input.cut === undefined && (recorder.counts.unsent === 0 || !!input.damaged);
    const rest = input.damaged && !options.dryRun ? restCommand(input, options, input.damaged, run.cwd) : undefined;
    settleWritten(run, complete, result === undefined && recorder.counts.rows === 0, rest);
    if (result === undefined) input.close();
  }
  finish(run, recorder, result, stoppedBy, stderr);
}

/** The progress line on stderr (not started; progress.ts says how it shows), unless --quiet or --verbose. */
function progressFor(run: Run, now: () => { counts: Counts; inFlight: number; stopped: boolean }): Progress | undefined {
  const { io, options, input, pace } = run;
  if (options.quiet || options.verbose || run.typed) return undefined;
  const started = performance.now();
  let total: number | undefined;
  const render = () => {
    const { counts, inFlight, stopped } = now();
    return progressLine(counts, total, performance.now() - started, io.errColors, { inFlight, pushedBack: pace?.pushedBack ?? 0, stopped });
  };
  // One plain file's lines are counted for the total (a compressed file's bytes are not its lines).
  const [file, ...more] = input.files;
  if (file && !more.length && !file.compression && file.format !== 'parquet' && !options.shard) {
    const header = FORMAT_TABLE[file.format].kind === 'csv' ? 1 : 0;
    void countLines(file.path)
      .then((n) => (total = Math.max(0, n - header)))
      .catch(() => undefined);
  }
  return new Progress(io, render, { plain: !spinnerWanted(run.env, io.terminal) });
}

/**
 * The end of a batch: the summary (stdout, or stderr under --json, --quiet or a signal), the GitHub step summary and annotation, the
 * command that carries the batch on, and a reported error for the exit code when it did not all go well.
 */
function finish(run: Run, recorder: BatchRecorder, result: RunResult, signal: StopSignal | undefined, stderr: (line: string) => void) {
  const { io, env, cwd, options, input, failed, journal, pace } = run;
  const { counts } = recorder;
  const name = input.sources.join(' ');
  const hidden = counts.failed + counts.invalid + counts.unknown - recorder.shownFailures;
  if (hidden > 0 && recorder.shownFailures > 0 && !options.json) stderr(io.errColors.dim(`  … ${formatCount(hidden)} more not shown`));
  // A journal that could not be written is behind this run: carrying on from it would count rows
  // this run sent as of unknown outcome. The failed file is whole, so it is what to send next.
  const journalBehind = journal?.error ? { path: printable(journal.path), why: errnoWords(journal.error) } : undefined;
  const [cut, rest] = [input.cut, (at: RestOf) => (options.dryRun ? undefined : restCommand(input, options, at, cwd))];
  const resume =
    !options.dryRun && journal !== undefined && !journalBehind && (counts.unsent > 0 || !!cut?.file || !!failed?.error) && !input.damaged;
  const stopReason = recorder.stopReason;
  // In flight at most: what was sent, not the pace's limit (under --rate, lanes wait for the schedule holding turns).
  const most = Math.min(pace?.highest ?? 0, result.mostSending || Infinity);
  const summary: SummaryInput = {
    counts,
    elapsedMs: result.elapsedMs,
    dryRun: options.dryRun === true,
    signal,
    halted: signal || !stopReason || stopReason.kind === 'signal' ? undefined : printable(stopCause(stopReason)),
    failedFile: failed && printable(failed.path),
    notKept: failed?.error ? { rows: failed.notKept, kept: failed.rows, why: errnoWords(failed.error) } : undefined,
    next: resume
      ? { command: resumeCommand(input, { ...options, failed: failed?.path }), resume }
      : failed && !failed.inPlace
        ? { command: replayCommand(failed.path, input.format, options.trigger, replayNames(failed.path), options.where), resume }
        : undefined,
    notReadAfter: cut?.file
      ? { ...cut, rest: resume ? resumeCommand(input, { ...options, failed: failed?.path }) : rest(cut) }
      : cut
        ? { line: result.lastLine, dropped: cut.dropped }
        : input.damaged && { ...input.damaged, dropped: 0, damaged: true, rest: rest(input.damaged) },
    journalBehind,
    pace: pace && { ...pace, lowest: Math.min(pace.lowest, most), highest: most },
  };
  const notAccepted = options.dryRun ? counts.invalid + counts.failed + counts.unknown : rowsNotAccepted(counts); // exits as the run would (review27 F3)
  const lines = summaryLines(summary, options.json ? io.errColors : io.outColors);
  if (run.note && lines.some((line) => line.includes('"$TRIGGER_API_KEY"'))) lines.push(run.note);
  if (failed?.remade)
    lines.push(`note: the folder of ${printable(failed.path)} was removed while the batch ran; it was made again to keep the rows`);
  if (options.json || (options.quiet && (notAccepted > 0 || input.damaged)) || signal || io.stdoutError)
    for (const line of lines) io.stderr(line);
  else if (!options.quiet) for (const line of lines) io.stdout(line);
  if (env.GITHUB_STEP_SUMMARY) {
    try {
      fs.appendFileSync(env.GITHUB_STEP_SUMMARY, io.redact(stepSummary(printable(name), summary)));
    } catch (error) {
      io.stderr(`warning: cannot append to GITHUB_STEP_SUMMARY: ${(error as Error).message}`);
    }
  }
  if (signal) throw new TriggerError('interrupted', 'interrupted', { reported: true, signal });
  const { damaged } = input;
  if (notAccepted === 0 && !damaged) return;
  if (env.GITHUB_ACTIONS === 'true') {
    const kept = failed ? ` (kept in ${failed.path})` : '';
    const notAll = notAccepted > 0 && `${formatCount(notAccepted)} of ${formatCount(counts.rows)} rows not accepted${kept}`;
    const broken = damaged && `${damaged.file} is damaged ${damaged.line ? `after line ${damaged.line}` : 'at its start'}`; // fixfiles20: exit 2 with no annotation
    io.stderr(githubAnnotation(`trigger batch ${name}: ${[broken, notAll].filter(Boolean).join('; ')}`));
  }
  if (damaged) throw new UsageError(`${damaged.file} is damaged`, { reported: true });
  throw new TriggerError('refused', `${notAccepted} rows not accepted`, { reported: true });
}

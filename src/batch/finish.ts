/**
 * The end of a batch: the summary (stdout, or stderr under --json, --quiet or a signal), the GitHub
 * step summary and annotation, the command that carries the batch on, and how the process ends.
 */
import fs from 'node:fs';
import { TriggerError, type StopSignal } from '../errors.js';
import type { Output } from '../output/io.js';
import { githubAnnotation } from '../output/render.js';
import { describeWriteError, type FailedFile } from './failed.js';
import { replayCommand, resumeCommand, type BatchFiles } from './files.js';
import type { Input } from './input.js';
import type { Journal } from './journal.js';
import type { BatchRecorder } from './recorder.js';
import { replayNames } from './replay.js';
import { formatCount, stepSummary, summaryLines, type PaceUsed, type SummaryInput } from './report.js';
import type { RunResult } from './runner.js';
import { stopCause } from './stop.js';

export interface Finish {
  io: Output;
  env: NodeJS.ProcessEnv;
  options: BatchFiles & { json?: boolean | undefined; quiet?: boolean | undefined; dryRun?: boolean | undefined };
  input: Input;
  recorder: BatchRecorder;
  failed: FailedFile | undefined;
  journal: Journal | undefined;
  result: RunResult;
  /** The signal that stopped the batch, if one did. */
  signal: StopSignal | undefined;
  stderr: (line: string) => void;
  /** --concurrency auto: what the pace used. */
  pace?: PaceUsed | undefined;
}

/** Reports the batch; throws a reported TriggerError for the exit code when it did not all go well. */
export function finishBatch({ io, env, options, input, recorder, failed, journal, result, signal, stderr, pace }: Finish): void {
  const { counts } = recorder;
  const stoppedBy = signal;
  const dryRun = options.dryRun === true;
  const hidden = counts.failed + counts.invalid + counts.unknown - recorder.shownFailures;
  if (hidden > 0 && recorder.shownFailures > 0 && !options.json) stderr(io.errColors.dim(`  … ${formatCount(hidden)} more not shown`));

  // A journal that could not be written is behind this run: carrying on from it would count rows
  // this run sent as of unknown outcome. The failed file is whole, so it is what to send next.
  const journalBehind = journal?.error ? { path: journal.path, why: describeWriteError(journal.error) } : undefined;
  const resume = journal !== undefined && !journalBehind && counts.unsent > 0;
  const stopReason = recorder.stopReason;
  const summary: SummaryInput = {
    counts,
    elapsedMs: result.elapsedMs,
    dryRun,
    signal: stoppedBy,
    halted: stoppedBy || !stopReason || stopReason.kind === 'signal' ? undefined : stopCause(stopReason),
    failedFile: failed?.path,
    notKept: failed?.error ? { rows: failed.notKept, kept: failed.rows, why: describeWriteError(failed.error) } : undefined,
    next: resume
      ? { command: resumeCommand(input, options), resume }
      : failed && !failed.inPlace
        ? { command: replayCommand(failed.path, input.format, options.trigger, replayNames(failed.path)), resume }
        : undefined,
    notReadAfter: input.cut ? { line: result.lastLine, dropped: input.cut.dropped } : undefined,
    journalBehind,
    pace:
      pace && !dryRun
        ? { lowest: pace.lowest, highest: pace.highest, pushedBack: pace.pushedBack, widestGapMs: pace.widestGapMs }
        : undefined,
  };
  const notAccepted = recorder.notAccepted;
  const lines = summaryLines(summary, options.json ? io.errColors : io.outColors);
  const stdoutBroken = io.stdoutError !== undefined || recorder.stdoutError !== undefined;
  if (options.json || (options.quiet && notAccepted > 0) || stoppedBy || stdoutBroken) for (const line of lines) io.stderr(line);
  else if (!options.quiet) for (const line of lines) io.stdout(line);

  if (env.GITHUB_STEP_SUMMARY) {
    try {
      fs.appendFileSync(env.GITHUB_STEP_SUMMARY, io.redact(stepSummary(input.name, summary)));
    } catch (error) {
      io.stderr(`warning: cannot append to GITHUB_STEP_SUMMARY: ${(error as Error).message}`);
    }
  }

  if (stoppedBy) throw new TriggerError('interrupted', 'interrupted', { reported: true, signal: stoppedBy });
  if (notAccepted > 0) {
    if (env.GITHUB_ACTIONS === 'true') {
      io.stderr(
        githubAnnotation(
          `trigger batch ${input.name}: ${formatCount(notAccepted)} of ${formatCount(counts.rows)} rows not accepted${failed ? ` (kept in ${failed.path})` : ''}`,
        ),
      );
    }
    throw new TriggerError('refused', `${notAccepted} rows not accepted`, { reported: true });
  }
}

/**
 * What a batch prints: one NDJSON result per row, the progress line, the summary and the GitHub step
 * summary table. Pure functions; commands/batch.ts does the writing.
 */
import { rawJson, failureJson, formatMs, resultJson, toJson } from '../output/render.js';
import type { Palette } from '../output/colors.js';
import type { Counts, Outcome } from './runner.js';
import type { Row } from './rows.js';

let number: Intl.NumberFormat | undefined; // created on first use: Intl costs ~30 ms to start
export const fmt = (n: number): string => (number ??= new Intl.NumberFormat('en-US')).format(Math.round(n));

/** One NDJSON line for a row, with its input line number first. */
export function rowJson(row: Row, outcome: Outcome, unsentReason = UNSENT): string {
  const lead = { line: row.line };
  const event = { triggerId: row.triggerId, userId: row.userId, value: row.value };
  switch (outcome.kind) {
    case 'accepted':
      return resultJson(outcome.result, lead);
    case 'failed':
    case 'unknown':
      return failureJson(outcome.error, event, lead, { body: false });
    case 'checked':
      return toJson({ ...lead, ok: true, dryRun: true, ...event, value: rawJson(row.value) });
    case 'invalid':
    case 'unsent':
      return toJson({
        ...lead,
        ok: false,
        status: null,
        ...event,
        value: outcome.kind === 'invalid' ? (row.value ?? null) : rawJson(row.value),
        attempts: 0,
        durationMs: 0,
        requestId: null,
        error:
          outcome.kind === 'invalid'
            ? { kind: 'invalid', message: outcome.reason }
            : { kind: 'unsent', message: unsentReason },
      });
  }
}

const UNSENT = 'not sent: the batch was interrupted';

/** The reason a row goes to the failed file. */
export function failureReason(outcome: Outcome, unsentReason = UNSENT): string | undefined {
  switch (outcome.kind) {
    case 'failed':
      return outcome.error.message;
    case 'invalid':
      return `invalid, not sent: ${outcome.reason}`;
    case 'unsent':
      return unsentReason;
    case 'unknown':
      return 'cancelled in flight: it may or may not have been recorded; check before sending it again';
    default:
      return undefined;
  }
}

export function rateOf(counts: Counts, elapsedMs: number): number {
  const done = counts.accepted + counts.failed + counts.unknown + counts.checked;
  return elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
}

export function progressLine(counts: Counts, total: number | undefined, elapsedMs: number, c: Palette): string {
  const done = counts.rows - counts.inFlight;
  const rate = rateOf(counts, elapsedMs);
  const parts = [total ? `${fmt(done)}/${fmt(Math.max(total, counts.rows))} rows` : `${fmt(done)} rows`];
  const bad = counts.failed + counts.invalid;
  parts.push(bad ? c.error(`${fmt(bad)} failed`) : '0 failed');
  parts.push(`${fmt(rate)}/s`);
  if (total && rate > 0 && total > done) parts.push(`ETA ${formatMs(Math.round(((total - done) / rate) * 1000))}`);
  return `${c.dim('batch')} ${parts.join(c.dim(' · '))}`;
}

export interface SummaryInput {
  counts: Counts;
  elapsedMs: number;
  dryRun: boolean;
  interrupted: boolean;
  /** Why the batch stopped sending by itself, if it did. */
  halted?: string | undefined;
  failedFile: string | undefined;
  /** The command that sends the failed file again. */
  retryCommand: string | undefined;
  /** Rows after this line were not read (a second interrupt while reading stdin). */
  notReadAfter: number | undefined;
}

export function summaryLines(s: SummaryInput, c: Palette): string[] {
  const { counts } = s;
  const time = `${formatMs(Math.round(s.elapsedMs))} (${fmt(rateOf(counts, s.elapsedMs))}/s)`;
  if (s.dryRun) {
    const head = counts.invalid ? c.error('✖') : c.success('✔');
    return [
      `${head} dry run: ${fmt(counts.checked)} of ${fmt(counts.rows)} rows can be sent, ${fmt(counts.invalid)} invalid; nothing was sent (${formatMs(Math.round(s.elapsedMs))})`,
      ...keptLines(s, c),
    ];
  }
  const allGood = counts.accepted === counts.rows && !s.interrupted && s.notReadAfter === undefined;
  const head = allGood
    ? c.success('✔')
    : s.interrupted
      ? c.warn('⚠ interrupted:')
      : s.halted
        ? c.error(`✖ stopped early (${s.halted}):`)
        : c.error('✖');
  const parts = [c.success(`${fmt(counts.accepted)} accepted`)];
  if (!allGood || counts.rows === 0) {
    parts.push(`${fmt(counts.failed)} failed`, `${fmt(counts.invalid)} invalid`);
    if (counts.unsent) parts.push(`${fmt(counts.unsent)} not sent`);
    if (counts.unknown) parts.push(c.warn(`${fmt(counts.unknown)} outcome unknown`));
  }
  const lines = [`${head} ${parts.join(c.dim(' · '))} of ${fmt(counts.rows)} rows in ${time}`];
  if (s.notReadAfter !== undefined) lines.push(`  input not read after line ${s.notReadAfter}`);
  return [...lines, ...keptLines(s, c)];
}

function keptLines(s: SummaryInput, c: Palette): string[] {
  const kept = s.counts.rows - s.counts.accepted - s.counts.checked;
  if (kept === 0) return [];
  if (!s.failedFile) return [c.hint(`  pass --failed <file> to keep the rows that were not accepted, with the reason and line number`)];
  return [
    `  ${fmt(kept)} ${kept === 1 ? 'row' : 'rows'} kept in ${s.failedFile}${s.retryCommand ? `; ${s.interrupted ? 'send them later' : 'once the cause is fixed, send them'} with: ${s.retryCommand}` : ''}`,
  ];
}

/** A Markdown table for $GITHUB_STEP_SUMMARY. */
export function stepSummary(name: string, s: SummaryInput): string {
  const { counts } = s;
  const title = s.dryRun ? `trigger batch ${name} (dry run)` : `trigger batch ${name}${s.interrupted ? ' (interrupted)' : s.halted ? ' (stopped early)' : ''}`;
  const rows: Array<[string, string]> = [
    ['rows', fmt(counts.rows)],
    [s.dryRun ? 'valid (not sent)' : 'accepted', fmt(s.dryRun ? counts.checked : counts.accepted)],
    ['failed', fmt(counts.failed)],
    ['invalid', fmt(counts.invalid)],
    ['not sent', fmt(counts.unsent)],
    ['outcome unknown', fmt(counts.unknown)],
    ['time', formatMs(Math.round(s.elapsedMs))],
    ['rate', `${fmt(rateOf(counts, s.elapsedMs))}/s`],
  ];
  const table = ['| | |', '|---|---:|', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n');
  const kept = s.failedFile && counts.rows - counts.accepted - counts.checked > 0 ? `\nRows not accepted are in \`${s.failedFile}\`.\n` : '';
  return `### ${title.replaceAll('|', '\\|')}\n\n${table}\n${kept}\n`;
}

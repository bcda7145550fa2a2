/** What a batch prints: NDJSON per row, the progress line, the summary, the step summary. Pure: commands/batch.ts writes them. */
import { rawJson, failureJson, formatMs, printable, resultJson, toJson } from '../output/render.js';
import type { Palette } from '../output/colors.js';
import type { ServerMask } from '../output/redact.js';
import { ServiceError, type AttemptInfo } from '../errors.js';
import { parseValue } from '../client/request.js';
import type { Pace } from './pace.js';
import type { Counts } from './recorder.js';
import { UNKNOWN_MARK, type Row } from './rows.js';
import type { Outcome, OutcomeKind } from './runner.js';
import { unsentWords } from './stop.js';
import { tryOr } from '../try-or.js';

/** 1234567 as "1,234,567". Not Intl.NumberFormat: it costs about 10 ms to start, a twelfth of a one-row batch's CPU (perf22). */
export const formatCount = (n: number): string => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** One NDJSON line for a row, with its input line number first; what the server said is masked with `mask`. */
export function rowJson(row: Row, outcome: Outcome, mask: ServerMask): string {
  const lead = row.file === undefined ? { line: row.line } : { file: row.file, line: row.line };
  const event = { triggerId: row.triggerId, userId: row.userId, value: row.value };
  if (outcome.kind === 'accepted') return resultJson(outcome.result, mask, lead);
  // Sent, with an error (refused, or of unknown outcome: a 500, a time-out, cancelled in flight): as `fire --json` says it.
  if ((outcome.kind === 'failed' || outcome.kind === 'unknown') && outcome.error)
    return failureJson(outcome.error, mask, event, lead, { body: false });
  // Not sent by this run: no status, attempts or request id, but a stop's row pushed back (429, 503) has its answers' (audit24); a dry run's
  // row has the same fields. A value is a number, or null (its text was given: "abc", "4"; trust24).
  const value = outcome.kind === 'invalid' ? numberIn(row.value) : rawJson(row.value);
  const [ok, dry] = [outcome.kind === 'earlier' || outcome.kind === 'checked', outcome.kind === 'checked' && { dryRun: true }];
  const tried = outcome.kind === 'unsent' ? outcome.pushedBack : undefined;
  const [last, attempts] = [tried?.last as Partial<ServiceError> | undefined, tried?.attempts ?? 0];
  const [status, durationMs, requestId] = [last?.status ?? null, last?.durationMs ?? 0, last?.requestId && mask.server(last.requestId)];
  const notSent = { ...lead, ok, ...dry, status, ...event, value, attempts, durationMs, requestId: requestId ?? null };
  if (ok) return toJson(outcome.kind === 'earlier' ? { ...notSent, earlier: true } : notSent);
  // `recorded` as a sent row's error has it (audit23): "unknown" for a row an earlier run sent without an answer (it said "no", trust24).
  const error = { kind: outcome.kind, message: failureReason(outcome, mask), recorded: outcome.kind === 'unknown' ? 'unknown' : 'no' };
  return toJson({ ...notSent, error });
}

/** A value's JSON number (null: it is none, as for `fire --json`'s --value); the value of an invalid row is its text. */
const numberIn = (text: string | undefined) => tryOr(() => rawJson(text && parseValue(text, 'value').json), null);

/** What the server said, with its request id as `fire` gives it: a row of unknown outcome is checked with the service by it (audit26). */
function serverWords(outcome: { reason: string; error?: unknown }, mask: ServerMask): string {
  const requestId = (outcome.error as Partial<AttemptInfo> | undefined)?.requestId;
  const id = requestId ? ` (request id ${mask.server(requestId)})` : '';
  return (outcome.error instanceof ServiceError ? mask.server(outcome.reason) : outcome.reason) + id;
}

/**
 * The reason a row goes to the failed file (after "line N: "); undefined for rows that need none. A refusal's reason quotes the server, so
 * pieces of the key are masked in it; an invalid row's reason quotes the user's own data, shown as given.
 */
const REASONS: { [K in OutcomeKind]?: (outcome: Extract<Outcome, { kind: K }>, mask: ServerMask) => string } = {
  failed: serverWords,
  unsent: (outcome) => unsentWords(outcome.stop),
  invalid: (outcome) => `invalid, not sent: ${outcome.reason}`,
  unknown: (outcome, mask) => `${UNKNOWN_MARK}: ${serverWords(outcome, mask)}`, // a 500 quotes the server too
};

export const failureReason = (outcome: Outcome, mask: ServerMask): string | undefined =>
  (REASONS[outcome.kind] as ((outcome: Outcome, mask: ServerMask) => string) | undefined)?.(outcome, mask);

/** A row not accepted, as a line on stderr ("✖ line 4: invalid, not sent: ..."): the recorder's, and the Action's from --json's rows. */
export const failureLine = (line: number | string, reason: string, c: Palette): string =>
  `${c.error('✖')} ${typeof line === 'number' ? `line ${line}` : line}: ${printable(reason)}`;

/** Rows not accepted (and not merely checked by a dry run): the rows the failed file keeps. */
export const rowsNotAccepted = (c: Counts): number => c.rows - c.accepted - c.earlier - c.checked;

function rateOf(counts: Counts, elapsedMs: number): number {
  const done = counts.accepted + counts.failed + counts.unknown + counts.checked - counts.skippedUnknown;
  return elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
}

/** What is in flight now and, with --concurrency auto, how many answers pushed back so far. */
interface Live {
  inFlight: number;
  pushedBack?: number | undefined;
  stopped?: boolean | undefined; // Sending has stopped (a signal, or a reason of the batch's own): what is left ends unsent.
}

/**
 * The progress line. A row counts as done once it has ended as it really did (accepted, failed,
 * invalid, of unknown outcome, or by an earlier run); a row not sent is not done, and is counted
 * apart. Once sending has stopped there is nothing left to estimate: no ETA, and it says so.
 */
export function progressLine(counts: Counts, total: number | undefined, elapsedMs: number, c: Palette, live?: Live): string {
  const done = counts.rows - counts.unsent;
  const rate = rateOf(counts, elapsedMs);
  const parts = [total ? `${formatCount(done)}/${formatCount(Math.max(total, counts.rows))} rows` : `${formatCount(done)} rows`];
  parts.push(counts.failed ? c.error(`${formatCount(counts.failed)} failed`) : '0 failed');
  if (counts.invalid) parts.push(c.error(`${formatCount(counts.invalid)} invalid`));
  if (counts.unknown) parts.push(c.warn(`${formatCount(counts.unknown)} outcome unknown`));
  if (counts.unsent) parts.push(c.warn(`${formatCount(counts.unsent)} not sent`));
  parts.push(`${formatCount(rate)}/s`);
  if (live) parts.push(`${formatCount(live.inFlight)} in flight`);
  if (live?.pushedBack) parts.push(c.warn(`${formatCount(live.pushedBack)} pushed back`));
  const stopped = live?.stopped === true || counts.unsent > 0;
  if (stopped) parts.push(c.warn('stopping: nothing more is sent'));
  else if (total && rate > 0 && total > done) parts.push(`ETA ${formatMs(Math.round(((total - done) / rate) * 1000))}`);
  return `${c.dim('batch')} ${parts.join(c.dim(' · '))}`;
}

/** Not read after `line`: standard input (a signal; a partial line dropped), or a file damaged or left by a signal (and `later` files). */
type NotRead = { line: number; dropped: number; file?: string; damaged?: boolean; why?: string; later?: string[]; rest?: string };

export interface SummaryInput {
  counts: Counts;
  elapsedMs: number;
  dryRun: boolean;
  signal?: string | undefined;
  halted?: string | undefined; // Why the batch stopped sending by itself, if it did.
  failedFile: string | undefined;
  notKept?: { rows: number; kept: number; why: string } | undefined; // Rows for the failed file that could not be written to it, and why.
  next?: { command: string; resume: boolean } | undefined; // What carries the batch on: a replay of the failed file, or a --resume.
  notReadAfter: NotRead | undefined;
  journalBehind?: { path: string; why: string } | undefined; // The journal could not be written: behind this run, not to be carried on.
  pace?: PaceUsed | undefined; // --concurrency auto: the lowest and highest limit used, answers pushed back, the widest gap between starts.
}

/** "1 row", "1,024 rows". */
export const plural = (n: number, one: string): string => `${formatCount(n)} ${n === 1 ? one : `${one}s`}`;

const rows = (n: number) => plural(n, 'row');

export function summaryLines(s: SummaryInput, c: Palette): string[] {
  const { counts } = s;
  const time = `${formatMs(Math.round(s.elapsedMs))} (${formatCount(rateOf(counts, s.elapsedMs))}/s)`;
  const notRead = s.notReadAfter && notReadLine(s.notReadAfter, c, s.next?.resume);
  const interrupted = s.signal ? c.warn(`⚠ interrupted (${s.signal}):`) : undefined;
  if (s.dryRun) {
    const damaged = s.notReadAfter?.file ? [notRead!] : []; // standard input's stop is the producer's business
    // Stopped by a signal, it checked only the rows read: no ✔ (sig22).
    // Rows an earlier run left unaccepted (its journal's refused, a failed file's outcome unknown) are not sent: the run exits 1, so ⚠ (review27 F3).
    const left = counts.failed + counts.unknown;
    const head = interrupted ?? (counts.invalid || s.notReadAfter?.damaged ? c.error('✖') : left ? c.warn('⚠') : c.success('✔'));
    const accepted = counts.earlier ? `, ${formatCount(counts.earlier)} accepted by an earlier run` : '';
    const earlier = `${accepted}${left ? `, ${formatCount(left)} left by an earlier run, not sent again` : ''}`;
    const checked = `${head} dry run: ${formatCount(counts.checked)} of ${rows(counts.rows)}${s.signal ? ' read' : ''} can be sent, ${formatCount(counts.invalid)} invalid${earlier}; nothing was sent (${formatMs(Math.round(s.elapsedMs))})`;
    return [checked, ...damaged]; // it keeps no row: --failed is left as it was
  }
  const allGood = counts.accepted + counts.earlier === counts.rows && !s.signal && s.notReadAfter === undefined;
  const head = allGood ? c.success('✔') : (interrupted ?? (s.halted ? c.error(`✖ stopped early (${s.halted}):`) : c.error('✖')));
  const parts = [c.success(`${formatCount(counts.accepted)} accepted`)];
  if (counts.earlier) parts.push(`${formatCount(counts.earlier)} accepted in an earlier run`);
  if (!allGood || counts.rows === 0) {
    parts.push(`${formatCount(counts.failed)} failed`, `${formatCount(counts.invalid)} invalid`);
    if (counts.unsent) parts.push(`${formatCount(counts.unsent)} not sent`);
    if (counts.unknown) parts.push(c.warn(`${formatCount(counts.unknown)} outcome unknown`));
  }
  const lines = [`${head} ${parts.join(c.dim(' · '))} of ${rows(counts.rows)} in ${time}`];
  if (notRead) lines.push(notRead);
  if (s.pace) lines.push(c.dim(`  ${paceWords(s.pace)}`));
  return [...lines, ...keptLines(s, c)];
}

/** Where reading stopped: standard input or a file at a signal, or a file damaged midway (and what sends its rest). */
function notReadLine({ line, dropped, file: named, damaged, why, later = [], rest }: NotRead, c: Palette, resume?: boolean): string {
  const file = named && printable(named);
  const partial = dropped > 0 ? ` (a partial line of ${plural(dropped, 'byte')} after it was dropped)` : '';
  const send = (then: string) => (rest ? `${resume ? '; carry the batch on with' : then}: ${rest}` : '');
  const garbage = why?.startsWith('trailing garbage') && /are not (\w+)/.exec(why)![1]; // every row before them read (inputs22)
  const cut = why?.includes('truncate -s') ? '; cut them off as said above (or copy it whole again)' : '';
  const gone = why?.startsWith('since the batch began'); // audit27: a part removed or made unreadable after the listing, or one written on
  const moved = gone ? 'could not be read since the batch began' : why?.startsWith('it changed while') ? 'changed while it was read' : '';
  const after = `${line ? `, after line ${line}: its later rows` : ': its rows'} were not read and are in no file`;
  const sum = why?.startsWith('incorrect data check: ') && why.slice(22); // audit27 #8: the damage is before the line, not after it
  const damage = garbage
    ? `  ${file} has bytes after line ${line} that are not ${garbage}: every row before them was read${cut}`
    : moved
      ? `  ${file} ${moved}${after}; when it is ${gone ? 'back' : 'whole again'}`
      : sum
        ? `  ${file} is damaged: ${sum}, and were sent as read up to line ${line}; copy it whole again`
        : `  ${file} is damaged ${line ? `after line ${line}: its later rows` : 'at its start: its rows'} could not be read and are in no file; copy it whole again`;
  const then = garbage
    ? ', then send any rows after them with'
    : moved
      ? ', send them with'
      : `, then send ${sum ? 'any later rows' : 'them'} with`;
  if (damaged) return c.error(damage) + send(then);
  const files = later.length ? ` (and ${plural(later.length, 'later file')})` : '';
  if (file)
    return c.warn(`  the rows after line ${line} of ${file}${files} were not read (they are in no failed file)`) + send('; send them with');
  return line === 0 && dropped === 0
    ? '  nothing was read from standard input'
    : `  standard input was read up to line ${line}${partial}; what came after it was not read`;
}

type PaceUsed = Pick<Pace, 'lowest' | 'highest' | 'pushedBack' | 'widestGapMs'>;

/**
 * "concurrency auto, 4 to 64 at once; 12 answers pushed back (429/503), those rows sent again", with
 * "starts spaced up to 120 ms apart" when one at a time was too many.
 */
export function paceWords(pace: PaceUsed): string {
  const range = `${pace.lowest === pace.highest ? pace.lowest : `${pace.lowest} to ${pace.highest}`} at once`;
  const spaced = pace.widestGapMs > 0 ? `, starts spaced up to ${formatMs(Math.round(pace.widestGapMs))} apart` : '';
  return `concurrency auto, ${range}${spaced}; ${plural(pace.pushedBack, 'answer')} pushed back (429/503)${pace.pushedBack ? ', those rows sent again' : ''}`;
}

function keptLines(s: SummaryInput, c: Palette): string[] {
  const { counts } = s;
  const kept = rowsNotAccepted(counts);
  if (kept === 0) return [];
  if (!s.failedFile) return [c.hint(`  pass --failed <file> to keep the rows that were not accepted, with the reason and line number`)];
  const lines: string[] = [];
  if (s.notKept) {
    const lost = `  ${s.failedFile} could not be written (${s.notKept.why}): ${rows(s.notKept.rows)} could not be kept; it holds ${rows(s.notKept.kept)}`;
    // The journal knows which rows were kept: once there is room, --resume sends or keeps the others (audit24: no command was printed).
    lines.push(c.error(lost) + (s.next?.resume ? `; once there is room, carry the batch on with: ${s.next.command}` : ''));
  } else {
    const them = kept === 1 ? 'it' : 'them';
    const next =
      s.next && s.next.command !== s.notReadAfter?.rest
        ? `; ${s.next.resume ? 'carry the batch on with' : s.signal || s.halted ? `send ${them} later with` : `once the cause is fixed, send ${them} with`}: ${s.next.command}`
        : '';
    lines.push(`  ${rows(kept)} kept in ${s.failedFile}${next}`);
  }
  if (s.journalBehind) {
    const behind = `  the journal ${s.journalBehind.path} could not be written (${s.journalBehind.why}): it does not hold every outcome of this run, so do not carry the batch on with --resume; ${s.failedFile} holds every row not accepted`;
    lines.push(c.error(behind));
  }
  if (counts.unknown && !s.next?.resume) {
    const one = counts.unknown === 1;
    const unknown = `  ${one ? '1 of them is' : `${formatCount(counts.unknown)} of them are`} of unknown outcome (it may have been recorded): a replay skips ${one ? 'it' : 'them'}; add --retry-unknown once you know ${one ? 'it was' : 'they were'} not recorded`;
    lines.push(c.warn(unknown));
  }
  return lines;
}

/** A Markdown table for $GITHUB_STEP_SUMMARY. */
export function stepSummary(name: string, s: SummaryInput): string {
  const { counts, pace } = s;
  const title = `trigger batch ${name}${s.dryRun ? ' (dry run)' : s.signal ? ' (interrupted)' : s.halted ? ' (stopped early)' : ''}`;
  const rows: Array<[string, number | string]> = [
    ['rows', counts.rows],
    s.dryRun ? ['valid (not sent)', counts.checked] : ['accepted', counts.accepted],
  ];
  if (counts.earlier) rows.push(['accepted in an earlier run', counts.earlier]);
  rows.push(['failed', counts.failed], ['invalid', counts.invalid], ['not sent', counts.unsent], ['outcome unknown', counts.unknown]);
  rows.push(['time', formatMs(Math.round(s.elapsedMs))], ['rate', `${formatCount(rateOf(counts, s.elapsedMs))}/s`]);
  if (pace) {
    rows.push(['concurrency (auto)', pace.lowest === pace.highest ? `${pace.lowest}` : `${pace.lowest}–${pace.highest}`]);
    if (pace.widestGapMs > 0) rows.push(['starts spaced (auto)', `up to ${formatMs(Math.round(pace.widestGapMs))} apart`]);
    rows.push(['pushed back (429/503)', pace.pushedBack]);
  }
  const table = ['| | |', '|---|---:|', ...rows.map(([k, v]) => `| ${k} | ${typeof v === 'number' ? formatCount(v) : v} |`)].join('\n');
  const kept = s.failedFile && rowsNotAccepted(counts) > 0 ? `\nRows not accepted are in \`${s.failedFile}\`.\n` : '';
  const { file, line, rest } = s.notReadAfter ?? {}; // a file damaged, or left by a signal: its rest is in no failed file
  const unread = file ? `\nThe rows after line ${line} of \`${file}\` were not read${rest ? `; send them with: \`${rest}\`` : ''}.\n` : '';
  return `### ${title.replaceAll('|', '\\|')}\n\n${table}\n${kept}${unread}\n`;
}

/**
 * Rows of a batch, read from CSV, NDJSON or plain lines, each carrying what is needed to send it and to write it back, unchanged but for an
 * `error`, to the failed file. A malformed row never takes another with it: every reader works a line at a time on top of lines.ts.
 */
import type { Readable } from 'node:stream';
import { eventOf, parseValue, valueTextIn, type PreparedEvent } from '../client/request.js';
import type { RowCheck } from '../catalog/resolve.js';
import { UsageError } from '../errors.js';
import { excerpt } from '../output/excerpt.js';
import { FORMAT_TABLE, type Format } from './formats.js';
import { MAX_LINE_BYTES, readLines, withoutCr, type BadLine, type LineChunk, type Stopped } from './lines.js';

/** A file that cannot be read on midway (a .gz cut short, a Parquet page): the batch stops there, as on a signal (input.ts). */
export class Damaged extends UsageError {}

/** How a row is written back to the failed file, by the kind of its format (formats.ts). */
type RowRecord =
  /** `fields` as parsed, or `raw` (the line as read) when the record could not be parsed. */
  | { format: 'csv'; fields: string[]; raw?: undefined }
  | { format: 'csv'; fields?: undefined; raw: string }
  | { format: 'ndjson'; object: Record<string, unknown> | undefined; valueText: string | undefined; raw: string; asRead?: boolean };

export interface Row {
  line: number; // The input line the row starts on (1-based; a Parquet file's row number).
  file?: string | undefined; // The file it came from, when the batch reads several.
  at?: number | undefined; // Its place in the whole input, for the journal and the shard (default: `line`).
  record: RowRecord;
  triggerId: string | undefined;
  userId: string | undefined;
  value: string | undefined; // The value as JSON number text, or as it was given when invalid.
  event?: PreparedEvent; // Set when the row can be sent.
  invalid?: string; // Why the row cannot be sent; such rows are never sent.
  unknownBefore?: boolean; // A failed file's row whose outcome an earlier run could not know (see UNKNOWN_MARK).
}

export interface RowSource {
  rows: AsyncIterable<Row[]>; // Rows in input order, a chunk at a time.
  header(): string[] | undefined; // CSV only: the header as read (known once the first row is out).
}

/** The file's own names of the three columns (--columns). */
type ColumnNames = Record<'triggerId' | 'userId' | 'value', string>;
const DEFAULT_COLUMNS: ColumnNames = { triggerId: 'triggerId', userId: 'userId', value: 'value' };

/** Parses --columns triggerId=<name>,userId=<name>,value=<name> (any of them, in any order): the names given, each one the file must have. */
export function parseColumns(text: string): Partial<ColumnNames> {
  const names: Partial<ColumnNames> = {};
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim() as keyof ColumnNames;
    const name = part.slice(eq + 1).trim();
    if (eq < 0 || !Object.hasOwn(DEFAULT_COLUMNS, key) || name === '') {
      const hint = "name the file's own columns, e.g. --columns userId=user_id,triggerId=event_name,value=amount";
      throw new UsageError(`--columns takes triggerId=<name>,userId=<name>,value=<name>; got ${JSON.stringify(part)}`, { hint });
    }
    // The last would win without a word (userId=user_id,userId=event_name, a slip for triggerId=: every event to one user).
    if (Object.hasOwn(names, key))
      throw new UsageError(`--columns names ${key} twice; nothing was sent`, { hint: 'name each of triggerId, userId and value once' });
    names[key] = name;
  }
  return names;
}

/** --columns as the names it gives, each key once in one order (what a journal compares): triggerId=event,userId=uid,value=value. */
export const columnsWords = (text: string) =>
  Object.entries({ ...DEFAULT_COLUMNS, ...parseColumns(text) })
    .map(([key, name]) => `${key}=${name}`)
    .join(',');

export interface ReadOptions {
  emptyIsNoRows?: boolean | undefined; // An input with no header and no rows has no rows (a part file of a folder), not an error.
  /** The file's names of the columns given with --columns (default: triggerId, userId, value, each optional but userId). */
  columns?: Partial<ColumnNames> | undefined;
  trigger?: string | undefined; // The trigger for rows that have none (and for every row with --format lines).
  check?: RowCheck | undefined; // The catalog's check of a row's trigger and value (src/catalog/resolve.ts): the id to send, or why not.
  stopped?: Stopped | undefined; // Standard input, which a signal may stop reading.
  name?: string | undefined; // The file read, as named (for its messages; none: standard input).
}

/**
 * The failed file marks a row whose outcome is unknown with this after "line N: ". A replay skips
 * such rows unless --retry-unknown, so following the printed replay command never sends twice.
 */
export const UNKNOWN_MARK = 'outcome unknown';
const UNKNOWN_ERROR = /^line \d+: outcome unknown\b/;
/** A failed file's row that is the start of a line over 1 MiB (lines.ts): never sent, kept as it was (audit23: its cut id went). */
const CUT_ERROR = /^line \d+: (?:invalid, not sent: )?(the line is [\d,]+ bytes, over the 1 MiB limit.*)/;

/** A failed file's row kept as read (an open quote's, or one whose text is only in its error): never sent as it was kept. */
const KEPT_ERROR = /^line \d+: (?:invalid, not sent: )?(a quoted field opens on this line and .*|.* \(as read: .*\))$/s;

/** A row's fields as read, those its format has (its value as text: an NDJSON number as its digits are written). */
type Fields = Partial<Pick<Row, 'triggerId' | 'userId' | 'value'>> & { error?: unknown };

const blank = (options: ReadOptions) => (options.trigger === '' ? ' (the --trigger given is empty)' : ''); // `--trigger "$UNSET"`

/** Validates one row's fields; never throws for bad data, it marks the row invalid instead. */
export function makeRow(line: number, record: RowRecord, fields: Fields, options: ReadOptions): Row {
  const triggerId = fields.triggerId || options.trigger;
  const unknownBefore = (typeof fields.error === 'string' && UNKNOWN_ERROR.test(fields.error)) || undefined;
  const given = fields.value || undefined;
  // Every row has every member from the start: one object shape for V8, however the row turns out.
  const row: Row = { line, record, triggerId, userId: fields.userId, value: given, event: undefined, invalid: undefined, unknownBefore };
  const cut = typeof fields.error === 'string' ? CUT_ERROR.exec(fields.error) : null;
  if (cut) row.invalid = cut[1]!.includes('mend it') ? cut[1] : `${cut[1]} (mend it in the file it came from, and send it from there)`;
  else if (!triggerId) row.invalid = `no triggerId: add a triggerId column or field, or pass --trigger${blank(options)}`;
  else if (!fields.userId) row.invalid = 'empty userId';
  if (row.invalid !== undefined) return row;
  try {
    const value = row.value === undefined ? undefined : parseValue(row.value, 'value');
    row.value = value?.json;
    const checked = options.check?.(triggerId!, row.value, line);
    if (checked?.invalid !== undefined) row.invalid = checked.invalid;
    else row.event = eventOf(checked?.id ?? triggerId!, fields.userId!, value);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    row.invalid = error.message;
  }
  return row;
}

/** Rows handed on at once, at most: lines read again after a malformed record can be many, and a Parquet slice is. */
export const MAX_CHUNK_ROWS = 1024;

function invalidRow(line: number, record: RowRecord, reason: string): Row {
  return { line, record, triggerId: undefined, userId: undefined, value: undefined, invalid: reason };
}

/** Where a batch's columns are among a file's (-1: not there). */
type Columns = Record<'trigger' | 'user' | 'value' | 'error', number> & { ours?: boolean }; // ours: the file is trigger's failed file

/** Where `name` is among `names`: the name as given, else in any case, white space around it aside. */
export function columnAt(names: readonly string[], name: string): number {
  const exact = names.indexOf(name);
  return exact >= 0 ? exact : names.findIndex((n) => n.trim().toLowerCase() === name.toLowerCase());
}

/**
 * Finds a batch's columns among a file's (a CSV header, a Parquet file's columns). A column named twice, one --columns names that the file
 * lacks, no userId column, and no triggerId column without --trigger are usage errors, each listing the file's columns. `noUser`: the hint
 * when there is no userId column (a CSV's first row may not be a header at all).
 */
export function findColumns(
  names: readonly string[],
  options: ReadOptions,
  where: string,
  noUser = 'name it with --columns userId=<name>',
): Columns {
  const keys = names.map((name) => name.trim().toLowerCase());
  const twice = keys.findIndex((key, i) => keys.indexOf(key) !== i);
  if (twice >= 0) throw new UsageError(`${where} names the column "${names[twice]}" twice`, { hint: 'each column needs its own name' });
  const wanted = { ...DEFAULT_COLUMNS, ...options.columns };
  const at = (name: string) => columnAt(names, name);
  const missing = (key: keyof ColumnNames, hint: string) =>
    new UsageError(`${where} has no ${wanted[key]} column (its columns: ${excerpt(names.join(', '))})`, { hint });
  // A name given is needed even when it is the default's (value=value): was read as absent, the events sent without values (inputs22).
  const named = (Object.keys(options.columns ?? {}) as Array<keyof ColumnNames>).find((key) => at(wanted[key]) < 0);
  // Left out, a role reads its default column: offered only when that works (audit27 #10: userId= left out was "no userId column").
  const out = named && (at(DEFAULT_COLUMNS[named]) >= 0 || named === 'value' || (named === 'triggerId' && options.trigger));
  if (named)
    throw missing(named, `check --columns ${named}=${wanted[named]}: name a column the file has${out ? `, or leave ${named}= out` : ''}`);
  const columns = { trigger: at(wanted.triggerId), user: at(wanted.userId), value: at(wanted.value), error: at('error') };
  // One column for two roles (userId=uid,value=uid sent the user id as each value: audit24): refused when both were named; a default
  // on a column named for another role is not read (userId=value: the file's value column is the user's, not a value).
  const given = options.columns ?? {};
  const roleKey = { trigger: 'triggerId', user: 'userId', value: 'value' } as const;
  // prettier-ignore
  const pairs = [['trigger', 'user'], ['trigger', 'value'], ['user', 'value']] as const;
  for (const [a, b] of pairs) {
    if (columns[a] < 0 || columns[a] !== columns[b]) continue;
    const why = `--columns reads the column ${names[columns[a]]} as both ${roleKey[a]} and ${roleKey[b]}; nothing was sent`;
    const [first, second] = [Object.hasOwn(given, roleKey[a]), Object.hasOwn(given, roleKey[b])];
    if (first && second) throw new UsageError(why, { hint: 'name a column of its own for each' });
    // The user's (or, without --trigger, the trigger's) column taken by another role: name its own, not "has no userId column" (review24b).
    const [taken, by] = first ? [b, a] : [a, b];
    if (taken === 'user' || (taken === 'trigger' && !options.trigger))
      throw new UsageError(`--columns reads the column ${names[columns[a]]} as ${roleKey[by]}; nothing was sent`, {
        hint: `name the ${roleKey[taken]} column too: --columns ${roleKey[by]}=${names[columns[a]]},${roleKey[taken]}=<name>`,
      });
    columns[taken] = -1;
  }
  if (columns.user < 0) throw missing('userId', noUser);
  if (columns.trigger < 0 && !options.trigger)
    throw missing('triggerId', `add one, name it with --columns triggerId=<name>, or pass --trigger <id> for every row${blank(options)}`);
  return columns;
}

function csvRow(fields: string[], line: number, header: string[], columns: Columns, options: ReadOptions): Row {
  const record: RowRecord = { format: 'csv', fields };
  // A failed file's row kept as read stays invalid while it is as kept: its open quote's field, or its text only in `error` (audit23).
  // Only with an error column: fields[-1], read on every row, cost 0.09 us a row (a 1M-row dry run 0.69 -> 0.79 s).
  let error = columns.error >= 0 && (fields[fields.length === header.length ? columns.error : fields.length - 1] ?? '');
  // A user's own error column is data: a failed file's first error says "line N: ", as openInputs tells one (review24 F6: refused).
  if (error && !(columns.ours ??= /^line \d+: /.test(error))) [error, columns.error] = [false, -1];
  const kept = error !== false && (!fields[columns.user] || fields.some((f) => f.startsWith('"'))) && KEPT_ERROR.exec(error);
  // Text only in its error leaves the user's field empty: a row with its user is kept so only by its open quote's words.
  if (kept && (!fields[columns.user] || kept[1]!.startsWith('a quoted field'))) return invalidRow(line, record, kept[1]!);
  if (fields.length !== header.length)
    return invalidRow(line, record, `expected ${header.length} fields as in the header, got ${fields.length}`);
  // `cat part-*.csv | trigger batch -` repeats each part's header: an event for the trigger named like a column (inputs20); Excel's
  // "CSV UTF-8" parts repeat it after their byte-order mark, which only line 1 drops (audit27 #7: "\uFEFFuser_id" was sent as a user).
  const again = fields.every((text, i) => text === header[i] || (i === 0 && text.charCodeAt(0) === 0xfeff && text.slice(1) === header[0]));
  if (again) return invalidRow(line, record, 'the header again (give the files, not cat of them)');
  const at = (column: number) => (column >= 0 ? fields[column] : undefined);
  const named = { triggerId: at(columns.trigger), userId: fields[columns.user], value: at(columns.value), error: at(columns.error) };
  return makeRow(line, record, named, options);
}

type Item = { line: number; item: string | BadLine };

const QUOTE = 34;

interface OpenRecord {
  line: number;
  items: Item[]; // Its lines so far, to be read again after the first should it be given up.
  size: number;
  fields: string[];
  field: string; // The quoted field being read.
  opened?: number; // Where its quote is in the line.
}

/**
 * Delimited records (RFC 4180, with the format's separator), read a physical line at a time so that a record whose quote is still open
 * after MAX_LINE_BYTES, or at the end of the input, is one invalid row at the line where it started, and reading carries on at the line
 * after that one (its lines are held, at most 1 MiB of them, to be read again), which a stream parser cannot do. Quotes inside an unquoted
 * field are text (`5" screen`), and so is whatever follows a closing quote up to the next separator (`"x"y` is `x"y`).
 */
class CsvRecords {
  readonly pending: Item[] = []; // Lines to read again (an open record's, given up), the next one last: read before the rest of the slice.
  slice: LineChunk & { at: number } = { first: 1, items: [], at: 0 }; // The lines from lines.ts, read from `at` (no Item a line).
  #open: OpenRecord | undefined;

  constructor(
    readonly separator: string,
    readonly toRow: (fields: string[], line: number, out: Row[]) => void,
  ) {}

  /** Reads the next waiting line (at the end, gives up a record still open); false when none waits. */
  read(out: Row[], atEnd: boolean): boolean {
    const again = this.pending.pop();
    const { first, items, at } = this.slice;
    const line = again ? again.line : first + at;
    const item = again ? again.item : at < items.length ? items[this.slice.at++] : undefined;
    if (item === undefined) {
      if (atEnd && this.#open) this.#giveUp('a quoted field opens on this line and never closes', out);
      return this.pending.length > 0;
    }
    if (typeof item !== 'string') {
      if (!this.#open) out.push(invalidRow(line, { format: 'csv', raw: withoutCr(item.raw) }, item.reason));
      else {
        this.pending.push({ line, item }); // read again once the open record is given up
        this.#giveUp('a quoted field opens on this line and never closes', out);
      }
      return true;
    }
    const record = this.#open ?? { line, items: [], size: 0, fields: [], field: '' };
    if (this.#parse(record, item, this.#open !== undefined)) {
      this.#open = undefined;
      this.toRow(record.fields, record.line, out);
      return true;
    }
    this.#open = record;
    record.items.push({ line, item });
    record.size += item.length + 1;
    if (record.size > MAX_LINE_BYTES) this.#giveUp('a quoted field opens on this line and does not close within 1 MiB', out);
    return true;
  }

  /** Reads a line into the record; false when it ends inside a quoted field (`quoted`: it starts in one). */
  #parse(record: OpenRecord, line: string, quoted: boolean): boolean {
    let i = 0;
    for (;;) {
      if (!quoted) {
        if (line.charCodeAt(i) !== QUOTE) {
          // Most fields have no quote: up to the separator, by indexOf (split() calls the runtime per line: a third of the time).
          const at = line.indexOf(this.separator, i);
          if (at < 0) {
            record.fields.push(withoutCr(line.slice(i)));
            return true;
          }
          record.fields.push(line.slice(i, at));
          i = at + 1;
          continue;
        }
        record.field = '';
        record.opened = i++;
        quoted = true;
      }
      const quote = line.indexOf('"', i);
      if (quote < 0) {
        record.field += `${line.slice(i)}\n`;
        return false;
      }
      record.field += line.slice(i, quote);
      if (line.charCodeAt(quote + 1) === QUOTE) {
        record.field += '"';
        i = quote + 2;
        continue;
      }
      // Text after the closing quote is kept up to the next separator: a stray quote never carries the record on into later lines.
      const at = line.indexOf(this.separator, quote + 1);
      const tail = at < 0 ? withoutCr(line.slice(quote + 1)) : line.slice(quote + 1, at);
      record.fields.push(tail === '' ? record.field : `${record.field}"${tail}`);
      if (at < 0) return true;
      i = at + 1;
      quoted = false;
    }
  }

  /** Gives up the open record: its first line is invalid, the others are read again. */
  #giveUp(reason: string, out: Row[]): void {
    const { line, items } = this.#open!;
    out.push(invalidRow(line, { format: 'csv', raw: withoutCr(items[0]!.item as string) }, reason));
    for (let i = items.length - 1; i > 0; i--) this.pending.push(items[i]!);
    this.#open = undefined;
  }

  /** A line kept as read, as fields: an open quote's rest as written is the last (so its failed-file line has an error column). */
  static kept(raw: string, separator: string): string[] {
    const record: OpenRecord = { line: 0, items: [], size: 0, fields: [], field: '' };
    const whole = new CsvRecords(separator, () => undefined).#parse(record, raw, false);
    return whole ? record.fields : [...record.fields, raw.slice(record.opened)];
  }
}
export const keptFields = CsvRecords.kept;

/** CSV (or another delimited format), a physical line at a time. */
function readCsv(stream: Readable, options: ReadOptions, format: Format): RowSource {
  const separator = FORMAT_TABLE[format].separator ?? ',';
  let header: string[] | undefined;
  let columns: Columns;
  const csv = new CsvRecords(separator, (fields, line, out) => {
    if (fields.length === 1 && fields[0] === '') return; // a blank line
    if (header) return void out.push(csvRow(fields, line, header, columns, options));
    const noUser =
      'the first row must name the columns, e.g. triggerId,userId,value (or name yours with --columns userId=<name>); for one userId per line use --format lines --trigger <id>';
    columns = findColumns(fields, options, `the CSV header (line ${line})`, noUser);
    header = fields;
  });

  /** Reads the waiting lines (at the end, gives up a record still open), handing rows on in chunks. */
  function* take(atEnd: boolean): Generator<Row[]> {
    let out: Row[] = [];
    while (csv.read(out, atEnd)) {
      if (out.length < MAX_CHUNK_ROWS) continue;
      yield out;
      out = [];
    }
    if (out.length) yield out;
  }

  async function* rows(): AsyncGenerator<Row[]> {
    for await (const { first, items } of readLines(stream, options.stopped, options.name)) {
      csv.slice = { first, items, at: 0 };
      yield* take(false);
    }
    yield* take(true);
    // Standard input stopped by a signal before its header came has nothing wrong with it: nothing was read.
    const hint = 'the first row must name the columns, e.g. triggerId,userId,value';
    if (!header && !options.emptyIsNoRows && !options.stopped?.stopped)
      throw new UsageError('the CSV input is empty: no header row', { hint });
  }

  return { rows: rows(), header: () => header };
}

type ToRow = (line: number, text: string | BadLine) => Row | undefined;

async function* mapLines(stream: Readable, options: ReadOptions, toRow: ToRow): AsyncGenerator<Row[]> {
  for await (const chunk of readLines(stream, options.stopped, options.name)) {
    const out: Row[] = [];
    for (let i = 0; i < chunk.items.length; i++) {
      const row = toRow(chunk.first + i, chunk.items[i]!);
      if (row) out.push(row);
    }
    if (out.length) yield out;
  }
}

const describe = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

/** Whether `quoted` (a name as JSON) is a member of the object `text` holds more than once (JSON.parse keeps the last; others the first). */
function twice(text: string, quoted: string, escaped: boolean): boolean {
  if (!escaped && text.indexOf(quoted) === text.lastIndexOf(quoted)) return false; // the common case, without a scan
  let [depth, seen] = [0, 0];
  for (let at = 0; at < text.length; at++) {
    const c = text[at];
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === '"') {
      const start = at;
      for (at++; text[at] !== '"'; at++) if (text[at] === '\\') at++;
      // A name may be written with escapes (Python's json.dumps writes \\u for every letter past ASCII): read as JSON reads it.
      const key =
        escaped && text.slice(start, at).includes('\\') ? JSON.stringify(JSON.parse(text.slice(start, at + 1))) : text.slice(start, at + 1);
      if (depth === 1 && key === quoted && /^\s*:/.test(text.slice(at + 1, at + 40)) && ++seen > 1) return true;
    }
  }
  return false;
}

function readNdjson(stream: Readable, options: ReadOptions): RowSource {
  const names = { ...DEFAULT_COLUMNS, ...options.columns };
  const quoted = [names.triggerId, names.userId, names.value].map((name) => JSON.stringify(name));
  let [first, ours] = [true, undefined as boolean | undefined]; // ours: the file is trigger's failed file
  const toRow: ToRow = (line, text) => {
    if (typeof text !== 'string') return invalidNdjson(line, text.raw, text.reason);
    if (text.trim() === '') return undefined;
    // A JSON array (a .json export) read a line at a time sends the lines that happen to hold a whole object, and a rerun
    // of the file made right sends them twice: refused before anything is sent.
    if (first && text.trimStart().startsWith('['))
      throw new UsageError(`the input is a JSON array (line ${line}), not one JSON object a line; nothing was sent`, {
        hint: "make it NDJSON: jq -c '.[]' rows.json > rows.ndjson",
      });
    first = false;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return invalidNdjson(line, withoutCr(text), `not valid JSON (${(error as Error).message})`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return invalidNdjson(line, withoutCr(text), `expected a JSON object, got ${describe(parsed)}`);
    const object = parsed as Record<string, unknown>;
    const [triggerId, userId, value, error] = [object[names.triggerId], object[names.userId], object[names.value], object.error];
    // A user's own error member is data: a failed file's first error says "line N: ", as for a CSV's column (fix25b, review24 F6).
    if (error != null && error !== '') ours ??= typeof error === 'string' && /^line \d+: /.test(error);
    const valueText = typeof value === 'number' ? valueTextIn(text, value, names.value) : undefined;
    const record: RowRecord = { format: 'ndjson', object, valueText, raw: withoutCr(text) };
    const escaped = text.includes('\\');
    const repeated = quoted.find((name) => twice(text, name, escaped));
    const problem = repeated
      ? `${repeated} is in the object twice: keep one (JSON readers differ on which counts)`
      : triggerId !== undefined && triggerId !== null && typeof triggerId !== 'string'
        ? `"${names.triggerId}" must be a string, not ${describe(triggerId)}`
        : typeof userId === 'number' && !Number.isSafeInteger(userId)
          ? `"${names.userId}" is a number too large (or not whole) to keep exactly; write it as a string, e.g. "${names.userId}":"${valueTextIn(text, userId, names.userId)}"`
          : userId !== undefined && typeof userId !== 'string' && typeof userId !== 'number'
            ? `"${names.userId}" must be a string, not ${describe(userId)}`
            : value !== undefined && value !== null && typeof value !== 'number' && typeof value !== 'string'
              ? `"${names.value}" must be a number, not ${describe(value)}`
              : undefined;
    if (problem) {
      // Its ids as read where their members are fine (--json said null), as makeRow takes them; no columns hold the row (asRead).
      const bad = (key: keyof ColumnNames) => JSON.stringify(names[key]) === repeated;
      return {
        ...invalidRow(line, { ...record, asRead: true }, problem),
        triggerId:
          bad('triggerId') || (triggerId != null && typeof triggerId !== 'string') ? undefined : (triggerId as string) || options.trigger,
        userId: bad('userId') || !(typeof userId === 'string' || Number.isSafeInteger(userId)) ? undefined : String(userId),
        value: bad('value') ? undefined : (valueText ?? (typeof value === 'string' ? value : undefined)),
      };
    }
    const fields = {
      triggerId: (triggerId as string | null | undefined) ?? undefined,
      userId: userId === undefined ? undefined : String(userId),
      value: typeof value === 'number' ? valueText : ((value as string | null | undefined) ?? undefined),
      error: ours && error,
    };
    return makeRow(line, record, fields, options);
  };
  const rows = mapLines(stream, options, toRow);
  return { rows: options.columns ? withMembers(rows, options.columns) : rows, header: () => undefined };
}

/** NDJSON has no header: a member --columns names that no object of the first lines has is mistyped, as in a CSV header. */
async function* withMembers(rows: AsyncGenerator<Row[]>, wanted: Partial<ColumnNames>): AsyncGenerator<Row[]> {
  const first = await rows.next();
  if (first.done) return;
  const objects = first.value.flatMap((row) => (row.record.format === 'ndjson' && row.record.object ? [row.record.object] : []));
  const absent = (Object.keys(wanted) as Array<keyof ColumnNames>).find((k) => !objects.some((o) => wanted[k]! in o));
  const members = excerpt([...new Set(objects.flatMap((o) => Object.keys(o)))].join(', '));
  const lines = `${first.value[0]!.line}-${first.value.at(-1)!.line}`;
  const hint = `check --columns ${absent}=${absent && wanted[absent]}`;
  if (objects.length && absent)
    throw new UsageError(`no object of lines ${lines} has a "${wanted[absent]}" member (theirs: ${members})`, { hint });
  yield first.value;
  yield* rows;
}

const invalidNdjson = (line: number, raw: string, reason: string) =>
  invalidRow(line, { format: 'ndjson', object: undefined, valueText: undefined, raw }, reason);

/**
 * One userId per line, exactly as written (white space included); only empty lines are skipped. The
 * rows are CSV rows of triggerId,userId, so their failed file is a CSV that replays as one.
 */
function readLineIds(stream: Readable, options: ReadOptions): RowSource {
  if (options.trigger === '') throw new UsageError('--trigger is empty: each line is only a userId; give the trigger id to send them to');
  if (!options.trigger) throw new UsageError('--format lines needs --trigger <id>: each line is only a userId');
  const toRow: ToRow = (line, item) => {
    if (typeof item !== 'string') return invalidRow(line, { format: 'csv', fields: [options.trigger!, item.raw] }, item.reason);
    const userId = withoutCr(item);
    if (userId === '') return undefined;
    return makeRow(line, { format: 'csv', fields: [options.trigger!, userId] }, { userId }, options);
  };
  return { rows: mapLines(stream, options, toRow), header: () => ['triggerId', 'userId'] };
}

const READERS = { csv: readCsv, ndjson: readNdjson, lines: readLineIds } as const;

/** The rows of a stream; a Parquet file is read from its file instead (parquet.ts), never from here. */
export const readRows = (stream: Readable, format: Format, options: ReadOptions): RowSource =>
  READERS[FORMAT_TABLE[format].kind as keyof typeof READERS](stream, options, format);

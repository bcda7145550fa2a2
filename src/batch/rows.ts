/**
 * Rows of a batch, read from CSV, NDJSON or plain lines, each carrying what is needed to send it and
 * to write it back, unchanged but for an `error`, to the failed file.
 */
import { Readable } from 'node:stream';
import { parse, type CsvError } from 'csv-parse';
import { parseValue, prepareEvent, valueTextIn, type PreparedEvent } from '../client/request.js';
import { UsageError } from '../errors.js';
import { lineChunks, readableChunks, slices } from './chunks.js';
import type { Format } from './input.js';

/** How a row is written back to the failed file, in its input format. */
export type RowRecord =
  | { format: 'csv'; fields: string[] }
  | { format: 'ndjson'; object: Record<string, unknown> | undefined; valueText: string | undefined; raw: string }
  | { format: 'lines'; triggerId: string | undefined; userId: string };

export interface Row {
  /** The input line the row starts on (1-based). */
  line: number;
  record: RowRecord;
  triggerId: string | undefined;
  userId: string | undefined;
  /** The value as JSON number text, or as it was given when invalid. */
  value: string | undefined;
  /** Set when the row can be sent. */
  event?: PreparedEvent;
  /** Why the row cannot be sent; such rows are never sent. */
  invalid?: string;
}

export interface RowSource {
  format: Format;
  /** Rows in input order, a chunk at a time. */
  rows: AsyncIterable<Row[]>;
  /** CSV only: the header as read (known once the first row is out). */
  header(): string[] | undefined;
}

export interface ReadOptions {
  /** The trigger for rows that have none (and for every row with --format lines). */
  trigger?: string | undefined;
}

interface Fields {
  triggerId: string | undefined;
  userId: string | undefined;
  value: string | number | undefined;
}

/** Validates one row's fields; never throws for bad data, it marks the row invalid instead. */
export function makeRow(line: number, record: RowRecord, fields: Fields, options: ReadOptions, valueText?: string): Row {
  const triggerId = fields.triggerId === undefined || fields.triggerId === '' ? options.trigger : fields.triggerId;
  const given = fields.value;
  const row: Row = {
    line,
    record,
    triggerId,
    userId: fields.userId,
    value: typeof given === 'number' ? (valueText ?? JSON.stringify(given)) : given || undefined,
  };
  if (!triggerId) {
    row.invalid = 'no triggerId: add a triggerId column or field, or pass --trigger';
  } else if (fields.userId === undefined || fields.userId === '') {
    row.invalid = 'empty userId';
  } else {
    try {
      const value = given === undefined || given === '' ? undefined : typeof given === 'number' ? row.value : parseValue(given, 'value').json;
      row.event = prepareEvent({ triggerId, userId: fields.userId, value });
      row.value = row.event.value?.json;
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      row.invalid = error.message;
    }
  }
  return row;
}

function columnIndex(header: string[], name: string): number {
  const exact = header.indexOf(name);
  return exact >= 0 ? exact : header.findIndex((h) => h.trim().toLowerCase() === name.toLowerCase());
}

function newlinesIn(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * CSV through csv-parse. Line numbers are counted here (each record takes one line plus the line
 * breaks inside its quoted fields): csv-parse's own `info` option triples its parsing time.
 */
export function readCsv(stream: Readable, options: ReadOptions): RowSource {
  let header: string[] | undefined;
  let columns: { trigger: number; user: number; value: number } | undefined;
  /** Records csv-parse could not parse, and how many records came before each. */
  const skipped: Array<{ after: number; lines: number; message: string }> = [];
  const parser = Readable.from(slices(stream), { objectMode: false }).pipe(
    parse({
      bom: true,
      relax_column_count: true,
      skip_records_with_error: true,
      max_record_size: 1024 * 1024,
      on_skip: (error: CsvError | undefined) => {
        if (!error) return;
        const raw: unknown = (error as unknown as { raw?: unknown }).raw;
        skipped.push({ after: Number(error.records) || 0, lines: 1 + (typeof raw === 'string' ? newlinesIn(raw) : 0), message: error.message.replace(/ (on|at) line \d+\.?/, '') });
      },
    }),
  );
  stream.on('error', (error) => parser.destroy(error));
  let nextLine = 1;
  let records = 0;

  const invalid = (line: number, record: RowRecord, reason: string): Row => ({ line, record, triggerId: undefined, userId: undefined, value: undefined, invalid: reason });

  const readHeader = (fields: string[], line: number) => {
    header = fields;
    const seen = new Set<string>();
    for (const name of header) {
      const key = name.trim().toLowerCase();
      if (seen.has(key)) throw new UsageError(`the CSV header names the column "${name}" twice`, { hint: 'each column needs its own name' });
      seen.add(key);
    }
    columns = { trigger: columnIndex(header, 'triggerId'), user: columnIndex(header, 'userId'), value: columnIndex(header, 'value') };
    if (columns.user < 0) {
      throw new UsageError(`the CSV header (line ${line}) has no userId column: ${header.join(',')}`, {
        hint: 'the first row must name the columns, e.g. triggerId,userId,value; for one userId per line use --format lines --trigger <id>',
      });
    }
    if (columns.trigger < 0 && !options.trigger) {
      throw new UsageError('the CSV has no triggerId column', { hint: 'add one, or pass --trigger <id> for every row' });
    }
  };

  const flushSkipped = (upTo: number, out: Row[]) => {
    while (skipped.length && skipped[0]!.after <= upTo) {
      const skip = skipped.shift()!;
      out.push(invalid(nextLine, { format: 'csv', fields: (header ?? []).map(() => '') }, `malformed CSV: ${skip.message}`));
      nextLine += skip.lines;
    }
  };

  const toRow = (fields: string[], out: Row[]) => {
    flushSkipped(records, out);
    records++;
    const line = nextLine;
    let breaks = 0;
    for (const field of fields) if (field.includes('\n')) breaks += newlinesIn(field);
    nextLine += 1 + breaks;
    if (fields.length === 1 && fields[0] === '') return; // a blank line
    if (!header || !columns) return readHeader(fields, line);
    const record: RowRecord = { format: 'csv', fields };
    if (fields.length !== header.length) {
      out.push(invalid(line, record, `expected ${header.length} fields as in the header, got ${fields.length}`));
      return;
    }
    out.push(
      makeRow(
        line,
        record,
        {
          triggerId: columns.trigger >= 0 ? fields[columns.trigger] : undefined,
          userId: fields[columns.user],
          value: columns.value >= 0 ? fields[columns.value] : undefined,
        },
        options,
      ),
    );
  };

  async function* rows(): AsyncGenerator<Row[]> {
    for await (const chunk of readableChunks<string[]>(parser)) {
      const out: Row[] = [];
      for (const fields of chunk) toRow(fields, out);
      if (out.length) yield out;
    }
    const rest: Row[] = [];
    flushSkipped(Infinity, rest);
    if (rest.length) yield rest;
    if (!header) throw new UsageError('the CSV input is empty: no header row', { hint: 'the first row must name the columns, e.g. triggerId,userId,value' });
  }

  return { format: 'csv', rows: rows(), header: () => header };
}

async function* mapLines(stream: Readable, toRow: (line: string) => Row | undefined): AsyncGenerator<Row[]> {
  for await (const lines of lineChunks(stream)) {
    const out: Row[] = [];
    for (const line of lines) {
      const row = toRow(line);
      if (row) out.push(row);
    }
    if (out.length) yield out;
  }
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

export function readNdjson(stream: Readable, options: ReadOptions): RowSource {
  let line = 0;
  const toRow = (rawLine: string): Row | undefined => {
    line++;
    const text = line === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine;
    if (text.trim() === '') return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return invalidNdjson(line, text, undefined, `not valid JSON (${(error as Error).message})`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return invalidNdjson(line, text, undefined, `expected a JSON object, got ${describe(parsed)}`);
    }
    const object = parsed as Record<string, unknown>;
    const { triggerId, userId, value } = object;
    const valueText = typeof value === 'number' ? valueTextIn(text, value) : undefined;
    const record: RowRecord = { format: 'ndjson', object, valueText, raw: text };
    const problem =
      triggerId !== undefined && triggerId !== null && typeof triggerId !== 'string'
        ? `"triggerId" must be a string, not ${describe(triggerId)}`
        : userId !== undefined && typeof userId !== 'string' && !(typeof userId === 'number' && Number.isSafeInteger(userId))
          ? `"userId" must be a string, not ${describe(userId)}`
          : value !== undefined && value !== null && typeof value !== 'number' && typeof value !== 'string'
            ? `"value" must be a number, not ${describe(value)}`
            : undefined;
    if (problem) return invalidNdjson(line, text, object, problem, valueText);
    return makeRow(
      line,
      record,
      {
        triggerId: (triggerId as string | null | undefined) ?? undefined,
        userId: userId === undefined ? undefined : String(userId),
        value: (value as string | number | null | undefined) ?? undefined,
      },
      options,
      valueText,
    );
  };
  return { format: 'ndjson', rows: mapLines(stream, toRow), header: () => undefined };
}

function invalidNdjson(line: number, raw: string, object: Record<string, unknown> | undefined, reason: string, valueText?: string): Row {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    line,
    record: { format: 'ndjson', object, valueText, raw },
    triggerId: str(object?.triggerId),
    userId: str(object?.userId),
    value: valueText ?? str(object?.value),
    invalid: reason,
  };
}

export function readLines(stream: Readable, options: ReadOptions): RowSource {
  if (!options.trigger) {
    throw new UsageError('--format lines needs --trigger <id>: each line is only a userId');
  }
  let line = 0;
  const toRow = (rawLine: string): Row | undefined => {
    line++;
    const userId = line === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine;
    if (userId.trim() === '') return undefined;
    return makeRow(line, { format: 'lines', triggerId: options.trigger, userId }, { triggerId: undefined, userId, value: undefined }, options);
  };
  return { format: 'lines', rows: mapLines(stream, toRow), header: () => undefined };
}

export function readRows(stream: Readable, format: Format, options: ReadOptions): RowSource {
  switch (format) {
    case 'csv':
      return readCsv(stream, options);
    case 'ndjson':
      return readNdjson(stream, options);
    case 'lines':
      return readLines(stream, options);
  }
}

/**
 * The failed file: every row that was not accepted, in its input format plus an `error` column or field ("line 12: 404 Not Found: ..."), so
 * that the file can be fed back to `trigger batch` as it is. Rows from --format lines are written as CSV (triggerId,userId,error): a plain
 * list has no room for the reason, and the CSV reads back without options.
 *
 * The file is written beside its final name and renamed over it at the end, so a run never leaves it half-written and a run that sends
 * nothing leaves an earlier one as it was. A target that is not a regular file (a FIFO, /dev/stdout) is written in place: renaming over a
 * device would replace it. Writes are synchronous and buffered, so a failure (a full disk) is known row by row.
 */
import fs from 'node:fs';
import path from 'node:path';
import { rawJson, toJson } from '../output/render.js';
import { FORMAT_TABLE, type Format } from './formats.js';
import { columnAt, keptFields, type Row } from './rows.js';
import { throughLinks } from '../lock.js';
import { tryOr } from '../try-or.js';

const csvField = (text: string, separator = ','): string =>
  /["\r\n]/.test(text) || text.includes(separator) ? `"${text.replaceAll('"', '""')}"` : text;

const csvLine = (fields: readonly string[], separator = ','): string => `${fields.map((f) => csvField(f, separator)).join(separator)}\n`;

/** The failed-file line for a row; `header` is the input's header (delimited formats only). */
export function failedLine(row: Row, error: string, header: readonly string[] | undefined, separator = ','): string {
  const record = row.record;
  // A row replayed from a failed file of several files keeps its line there: the `file` column beside it names that file.
  const named =
    header && record.format === 'csv' && record.fields?.[columnAt(header, 'file')] ? record.fields[columnAt(header, 'error')] : '';
  const reason = `line ${/^line (\d+):/.exec(named ?? '')?.[1] ?? row.line}: ${error}`;
  switch (record.format) {
    case 'csv': {
      const errorAt = header ? columnAt(header, 'error') : -1;
      // A line kept as read, to be fixed by hand, goes as its fields: as it was, its open quote swallowed the error (audit23).
      const fields = record.raw === undefined ? [...record.fields] : keptFields(record.raw, separator);
      const width = header?.length ?? fields.length;
      while (fields.length < width) fields.push(''); // a short row still lines up with the header
      if (errorAt >= 0 && fields.length === width) fields[errorAt] = reason;
      // A row with a field too many was kept with its reason as one more: replayed, that field is the error column's (replaced, not added).
      else if (errorAt === width - 1 && fields.length > width) fields[fields.length - 1] = reason;
      else fields.push(reason);
      return csvLine(fields, separator);
    }
    case 'ndjson': {
      if (!record.object) return `${JSON.stringify({ error: reason, input: record.raw })}\n`;
      if (!('error' in record.object)) {
        // The line as written, plus the reason: every digit and member order kept as the user wrote it.
        const raw = record.raw.trimEnd();
        const empty = Object.keys(record.object).length === 0;
        return `${raw.slice(0, -1).trimEnd()}${empty ? '' : ','}"error":${JSON.stringify(reason)}}\n`;
      }
      // A replayed row: its error is replaced, and its value keeps the digits it was written with.
      const { error: _, ...members } = record.object;
      if (typeof members.value === 'number' && record.valueText) members.value = rawJson(record.valueText);
      return `${toJson({ ...members, error: reason })}\n`;
    }
  }
}

/** The header line a failed file starts with, if its format is delimited (has a separator). */
export function failedHeader(header: readonly string[] | undefined, separator: string | undefined = ','): string | undefined {
  if (!separator || !header) return undefined;
  return csvLine(columnAt(header, 'error') >= 0 ? header : [...header, 'error'], separator);
}

const FLUSH_BYTES = 64 * 1024;

export class FailedFile {
  readonly path: string;
  rows = 0; // Rows written (or waiting in the buffer to be).
  notKept = 0; // Rows that could not be kept because the file could not be written.
  error: Error | undefined; // The write error, once there was one; nothing more is written after it.
  remade = false; // Its folder was removed while the batch ran, and made again to put the file in (audit27).
  readonly #separator: string | undefined; // The separator of the failed file's format (none: NDJSON).
  readonly #header: () => readonly string[] | undefined;
  readonly #target: string; // Where the rows are written: a temporary file beside `path`, or `path` itself.
  readonly #real: string; // The file `path` names, through links.
  readonly inPlace: boolean; // True when the target is not a regular file (a FIFO, a device): there is nothing to replay later.
  #fd: number | undefined; // Open once there is a row to keep (or at once, unless lazy).
  #buffer = '';
  #bufferedRows = 0;
  #headerDone = false;
  /** Rows written as triggerId,userId,value(,file),error: an input with several files, Parquet, or --columns. */
  readonly #normalized: { file: boolean } | undefined;
  readonly #mode: number;

  /**
   * Opens the file to write; throws (with a code) when it cannot be created. A `lazy` one (the
   * default failed file, when --failed is not given) is made only once there is a row to keep.
   */
  constructor(
    file: string,
    format: Format,
    header: () => readonly string[] | undefined,
    options: { lazy?: boolean; normalized?: { file: boolean } | undefined } = {},
  ) {
    this.path = file;
    this.#normalized = options.normalized;
    this.#separator = FORMAT_TABLE[FORMAT_TABLE[format].failedAs].separator;
    this.#header = header;
    const existing = fs.statSync(file, { throwIfNoEntry: false });
    if (existing?.isDirectory()) throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
    this.inPlace = existing !== undefined && !existing.isFile();
    // One name, not one per process: the file's lock (files.ts) keeps every other run off it, so a
    // temporary file found there was left by a run that was killed, and is written over.
    // Through a link to the file it names: renamed over the link, the rows would replace it (audit23).
    this.#real = this.inPlace ? file : throughLinks(file);
    this.#target = this.inPlace ? file : path.join(path.dirname(this.#real), `.${path.basename(this.#real)}.tmp`);
    this.#mode = existing?.isFile() ? existing.mode & 0o777 : 0o666;
    if (!options.lazy) this.#fd = fs.openSync(this.#target, this.inPlace ? 'w' : 'w+', this.#mode);
  }

  /** Writes one row's line; false when the file is broken and the row could not be kept. */
  write(row: Row, reason: string): boolean {
    if (this.#fd === undefined && !this.error) {
      try {
        this.#fd = fs.openSync(this.#target, this.inPlace ? 'w' : 'w+', this.#mode); // read back if its folder goes (#remake)
      } catch (error) {
        this.error = error as Error;
      }
    }
    if (!this.error) this.#writeHeader();
    if (this.error) {
      this.notKept++;
      return false;
    }
    this.#buffer += this.#normalized ? this.#normalizedLine(row, reason) : failedLine(row, reason, this.#header(), this.#separator);
    this.#bufferedRows++;
    this.rows++;
    if (this.#buffer.length >= FLUSH_BYTES) this.#flush();
    return !this.error;
  }

  /** The row as the columns a batch sends, its file, and the reason (with the line as read, if unreadable). */
  #normalizedLine(row: Row, reason: string): string {
    const { record } = row;
    // Kept as read where the columns cannot hold the row, to be fixed by hand: unreadable, or a field too many, or a member
    // --columns names missing (inputs20: such a row was kept as ',,,', its user id gone). Its text is made only for those.
    const text = () => (record.format === 'csv' ? (record.raw ?? csvLine(record.fields).trimEnd()) : record.raw.trimEnd());
    // A member of the wrong kind (a value true) too, its columns left empty: as t,u it replayed and was sent without its value.
    const unreadable = record.format === 'csv' ? record.raw !== undefined : !record.object || record.asRead;
    const columns = unreadable ? ['', '', ''] : [row.triggerId ?? '', row.userId ?? '', row.value ?? ''];
    const kept = unreadable || ((!row.triggerId || !row.userId) && text() !== csvLine(columns).trimEnd());
    const file = this.#normalized!.file ? [row.file ?? ''] : [];
    return csvLine([...columns, ...file, `line ${row.line}: ${reason}${kept ? ` (as read: ${text()})` : ''}`]);
  }

  /** The header goes out on its own, so that a file cut short by a full disk still replays. */
  #writeHeader(): void {
    if (this.#headerDone) return;
    this.#headerDone = true;
    const normalized = this.#normalized && ['triggerId', 'userId', 'value', ...(this.#normalized.file ? ['file'] : [])];
    this.#buffer += failedHeader(normalized || this.#header(), this.#separator) ?? '';
    this.#flush();
  }

  #flush(): void {
    const fd = this.#fd;
    if (fd === undefined || this.error || this.#buffer === '') return;
    const [bytes, rows] = [Buffer.from(this.#buffer), this.#bufferedRows];
    [this.#buffer, this.#bufferedRows] = ['', 0];
    let done = 0;
    try {
      while (done < bytes.length) done += fs.writeSync(fd, bytes, done);
    } catch (error) {
      this.error = error as Error;
      this.notKept += rows;
      this.rows -= rows;
      // A torn last row would read back as a different row: cut the file back to whole rows.
      // If this fails, the rows before it are still whole; the message says which could not be kept.
      if (done > 0 && !this.inPlace) tryOr(() => fs.ftruncateSync(fd, fs.fstatSync(fd).size - done));
    }
  }

  /**
   * Writes what is left and puts the file in place, or (`keep` false: nothing of this run needs
   * keeping) leaves an earlier file as it was. A lazy file that kept nothing was never made.
   */
  close(keep: boolean): void {
    const fd = this.#fd;
    if (fd === undefined) return; // a lazy file that kept nothing, or one that could not be made
    if (keep) {
      this.#writeHeader(); // a file with no rows still replays (as zero rows)
      this.#flush();
      // Not every file system syncs; the rename below is still atomic.
      if (!this.inPlace && !this.error) tryOr(() => fs.fsyncSync(fd));
    }
    this.#fd = undefined;
    // Its folder removed while the batch ran (a workspace cleaned up): the rows are still in the open file, to be put where named (audit27).
    const gone = keep && !this.inPlace && fs.fstatSync(fd).nlink === 0;
    if (gone) this.#remake(fd);
    fs.closeSync(fd);
    if (this.inPlace || gone) return;
    if (keep) fs.renameSync(this.#target, this.#real);
    else fs.rmSync(this.#target, { force: true });
  }

  /** The file written again from its removed copy, its folder made again; else its rows are said not kept (exit 1). */
  #remake(from: number): void {
    try {
      copyOpen(from, this.#target, this.#mode); // a new file, renamed over the name: never through a link planted there (review27b R1)
      fs.renameSync(this.#target, this.#real);
      this.remade = true;
    } catch (error) {
      [this.error, this.notKept, this.rows] = [error as Error, this.notKept + this.rows, 0];
    }
  }
}

/**
 * Copies what an open file holds (its name gone: its folder removed) into a new file `to`, its folder made again 0700 (the user ids it
 * holds: not a world-readable folder, review27b R3); a file already at `to` is refused (EEXIST), never written through.
 */
export function copyOpen(from: number, to: string, mode: number): void {
  fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
  const [fd, buffer] = [fs.openSync(to, 'wx', mode), Buffer.allocUnsafe(FLUSH_BYTES)];
  try {
    for (let [at, n] = [0, 0]; (n = fs.readSync(from, buffer, 0, buffer.length, at)) > 0; at += n) fs.writeSync(fd, buffer, 0, n);
  } finally {
    fs.closeSync(fd);
  }
}

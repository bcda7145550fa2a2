/**
 * The failed file: every row that was not accepted, in its input format plus an `error` column or
 * field ("line 12: 404 Not Found: ..."), so that the file can be fed back to `trigger batch` as it is.
 * Rows from --format lines are written as CSV (triggerId,userId,error): a plain list has no room for
 * the reason, and the CSV reads back without options.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import type { Row } from './rows.js';

export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\n`;
}

/** The failed-file line for a row; `header` is the input's CSV header (CSV only). */
export function failedLine(row: Row, error: string, header: readonly string[] | undefined): string {
  const reason = `line ${row.line}: ${error}`;
  const record = row.record;
  switch (record.format) {
    case 'csv': {
      const errorAt = header ? header.findIndex((h) => h.trim().toLowerCase() === 'error') : -1;
      const fields = [...record.fields];
      const width = header?.length ?? fields.length;
      while (fields.length < width) fields.push(''); // a short row still lines up with the header
      if (errorAt >= 0 && fields.length === width) fields[errorAt] = reason;
      else fields.push(reason);
      return csvLine(fields);
    }
    case 'ndjson': {
      if (!record.object) return `${JSON.stringify({ error: reason, input: record.raw })}\n`;
      const members = Object.entries(record.object)
        .filter(([key]) => key !== 'error')
        .map(([key, value]) => {
          const text = key === 'value' && typeof value === 'number' && record.valueText ? record.valueText : JSON.stringify(value);
          return `${JSON.stringify(key)}:${text}`;
        });
      members.push(`"error":${JSON.stringify(reason)}`);
      return `{${members.join(',')}}\n`;
    }
    case 'lines':
      return csvLine([record.triggerId ?? '', record.userId, reason]);
  }
}

/** The header line a failed file starts with, if its format has one. */
export function failedHeader(format: Row['record']['format'], header: readonly string[] | undefined): string | undefined {
  if (format === 'lines') return csvLine(['triggerId', 'userId', 'error']);
  if (format === 'csv' && header) {
    return header.some((h) => h.trim().toLowerCase() === 'error') ? csvLine(header) : csvLine([...header, 'error']);
  }
  return undefined;
}

/** Writes failed rows to a file as they come, honouring back-pressure. */
export class FailedFile {
  readonly path: string;
  count = 0;
  #stream: fs.WriteStream;
  #headerWritten = false;
  #error: Error | undefined;

  constructor(file: string) {
    this.path = file;
    this.#stream = fs.createWriteStream(file, { flags: 'w' });
    this.#stream.on('error', (error) => (this.#error = error));
  }

  /** Waits until the file is open, so that an unwritable path fails before anything is sent. */
  async ready(): Promise<void> {
    if (this.#stream.pending) {
      await Promise.race([once(this.#stream, 'ready'), once(this.#stream, 'error').then(([e]) => Promise.reject(e as Error))]);
    }
  }

  /** Writes one row; returns a promise only when the file asks to wait (back-pressure). */
  write(row: Row, error: string, header: readonly string[] | undefined): Promise<void> | undefined {
    if (this.#error) return Promise.reject(this.#error);
    let text = failedLine(row, error, header);
    if (!this.#headerWritten) {
      this.#headerWritten = true;
      text = (failedHeader(row.record.format, header) ?? '') + text;
    }
    this.count++;
    return this.#stream.write(text) ? undefined : once(this.#stream, 'drain').then(() => undefined);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.#stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
}

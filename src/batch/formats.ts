/**
 * The input formats a batch reads, in one table: how a file is told to be one (its extensions), which reader reads it and which writer
 * keeps its failed rows (`kind`), its field separator, and how it is named to a person. A new delimited format is one entry here; a new
 * kind of reader is one entry plus its reader (rows.ts) and its failed-file writer (failed.ts). cli.ts takes the option choices from here,
 * so this module stays free of the readers: `fire` never loads them.
 */
import path from 'node:path';

interface FormatEntry {
  /**
   * The format whose reader reads it: fields under a header (any delimited format is of kind csv), one
   * JSON object a line, one user id a line, or a Parquet file's columns (by row group, never from a pipe).
   */
  kind: Format;
  extensions: readonly string[]; // File name endings (lowercase), told apart by the last one.
  separator?: string; // The field separator (delimited formats only).
  wording: string; // What a row is, in words (the terminal prompt, messages).
  failedAs: Format; // The format the failed file is written in (a list of ids has no room for the reason).
  namesTriggers: boolean; // Whether its rows name their triggers (what `triggers import` can read).
}

export type Format = 'csv' | 'ndjson' | 'lines' | 'parquet';

// prettier-ignore
export const FORMAT_TABLE: Readonly<Record<Format, FormatEntry>> = {
  csv: { kind: 'csv', extensions: ['.csv'], separator: ',', wording: 'CSV, a header row first', failedAs: 'csv', namesTriggers: true },
  ndjson: { kind: 'ndjson', extensions: ['.ndjson', '.jsonl', '.json'], wording: 'one JSON object a line', failedAs: 'ndjson', namesTriggers: true },
  lines: { kind: 'lines', extensions: [], wording: 'one user id a line', failedAs: 'csv', namesTriggers: false },
  parquet: { kind: 'parquet', extensions: ['.parquet'], wording: 'a Parquet file', failedAs: 'csv', namesTriggers: true },
};

/** Compressed input, told by the last extension or (standard input) by the first bytes; streamed. */
export type Compression = 'gzip' | 'zstd';
// prettier-ignore
export const COMPRESSIONS: Readonly<Record<Compression, { extension: string; magic: readonly number[] }>> = {
  gzip: { extension: '.gz', magic: [0x1f, 0x8b] },
  zstd: { extension: '.zst', magic: [0x28, 0xb5, 0x2f, 0xfd] },
};

/** The compression a file's name says, and the name without its extension. */
export function compressionFromName(file: string): { compression: Compression | undefined; inner: string } {
  const ext = path.extname(file).toLowerCase();
  const compression = (Object.keys(COMPRESSIONS) as Compression[]).find((c) => COMPRESSIONS[c].extension === ext);
  return { compression, inner: compression ? file.slice(0, -ext.length) : file };
}

export function compressionOf(bytes: Uint8Array): Compression | undefined {
  // pzstd starts with a skippable frame (magic 0x184D2A5?), which every zstd reader passes over.
  if ((bytes[0]! & 0xf0) === 0x50 && bytes[1] === 0x2a && bytes[2] === 0x4d && bytes[3] === 0x18) return 'zstd';
  return (Object.keys(COMPRESSIONS) as Compression[]).find((c) => COMPRESSIONS[c].magic.every((b, i) => bytes[i] === b));
}

export const FORMATS = Object.keys(FORMAT_TABLE) as Format[];
/** What `triggers import` reads: the formats that name their triggers. */
export const IMPORT_FORMATS = FORMATS.filter((f) => FORMAT_TABLE[f].namesTriggers);

/** The format a file's name says, if any (`part-0.csv.gz` is CSV). */
export function formatFromName(file: string): Format | undefined {
  const ext = path.extname(compressionFromName(file).inner).toLowerCase();
  return FORMATS.find((f) => FORMAT_TABLE[f].extensions.includes(ext));
}

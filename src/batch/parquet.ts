/**
 * Rows of a Parquet file, read with hyparquet (pure JavaScript, no native code, maintained, reads
 * by row group): one row group at a time, so memory holds one group, never the file. The value
 * column's numbers keep their exact digits: an int64 comes as a bigint, and a decimal is read as its
 * unscaled integer (hyparquet would turn it into a double) and written out with its scale.
 */
import zlib from 'node:zlib';
import type { AsyncBuffer, DecodedArray, FileMetaData, ParquetScan, SchemaElement } from 'hyparquet';
import { UsageError } from '../errors.js';
import { DEFAULT_COLUMNS, makeRow, type ReadOptions, type Row, type RowSource } from './rows.js';

/** What is known of a file once its footer was read: everything a row group read needs. */
export interface ParquetPlan {
  file: string;
  name: string;
  metadata: FileMetaData;
  /** The columns read, in this order: triggerId (if any), userId, value (if any). */
  columns: string[];
  has: { trigger: boolean; value: boolean };
  /** How the value column's raw values become number text. */
  valueText: (raw: unknown) => string | undefined;
  rows: number;
}

/** Decompressors hyparquet leaves to its user (it has Snappy itself). */
const compressors = {
  GZIP: (input: Uint8Array) => new Uint8Array(zlib.gunzipSync(input)),
  BROTLI: (input: Uint8Array) => new Uint8Array(zlib.brotliDecompressSync(input)),
  ...('zstdDecompressSync' in zlib
    ? {
        ZSTD: (input: Uint8Array) =>
          new Uint8Array((zlib as unknown as { zstdDecompressSync(b: Uint8Array): Buffer }).zstdDecompressSync(input)),
      }
    : {}),
};

/** The shortest decimal text that reads back as this float32 (a FLOAT column's 0.1 is "0.1"). */
function float32Text(x: number): string {
  for (let p = 1; p < 9; p++) {
    const text = String(Number(x.toPrecision(p)));
    if (Math.fround(Number(text)) === x) return text;
  }
  return String(x);
}

/** A two's complement big-endian integer (a decimal's bytes). */
function bigIntOf(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const byte of bytes) n = (n << 8n) | BigInt(byte);
  return bytes.length && bytes[0]! & 0x80 ? n - (1n << BigInt(bytes.length * 8)) : n;
}

/** An unscaled integer and a scale as decimal text: every digit kept (12345 and 2 give "123.45"). */
export function decimalText(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString();
  if (scale <= 0) return `${negative ? '-' : ''}${digits}${'0'.repeat(-scale)}`;
  const padded = digits.padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
}

/** The value column's text maker, for its physical and logical type. */
function valueReader(element: SchemaElement): (raw: unknown) => string | undefined {
  const decimal = element.converted_type === 'DECIMAL' || element.logical_type?.type === 'DECIMAL';
  if (decimal) {
    const scale = element.scale ?? (element.logical_type as { scale?: number } | undefined)?.scale ?? 0;
    return (raw) =>
      raw === null || raw === undefined
        ? undefined
        : decimalText(raw instanceof Uint8Array ? bigIntOf(raw) : BigInt(raw as number | bigint), scale);
  }
  if (element.type === 'FLOAT') return (raw) => (typeof raw === 'number' ? float32Text(raw) : undefined);
  return (raw) => {
    if (raw === null || raw === undefined) return undefined;
    if (typeof raw === 'number') return Number.isFinite(raw) ? String(raw) : String(raw);
    if (typeof raw === 'bigint' || typeof raw === 'string') return String(raw);
    return JSON.stringify(raw) ?? String(raw);
  };
}

function broken(name: string, why: string): UsageError {
  return new UsageError(`${name} is not a readable Parquet file: ${why}; nothing was sent`, {
    hint: 'check that the export finished and the file was copied whole (a Parquet file ends with its footer)',
  });
}

/** Reads a file's footer and finds its columns; a broken file or a missing column is a usage error. */
export async function planParquet(file: string, name: string, options: ReadOptions): Promise<ParquetPlan> {
  const { asyncBufferFromFile, parquetMetadataAsync } = await import('hyparquet');
  let metadata: FileMetaData;
  try {
    const buffer = await asyncBufferFromFile(file);
    if (buffer.byteLength < 12) throw new Error(`it is only ${buffer.byteLength} bytes`);
    metadata = await parquetMetadataAsync(buffer);
  } catch (error) {
    throw broken(name, (error as Error).message.replace(/^parquet /, ''));
  }
  const names = options.columns ?? DEFAULT_COLUMNS;
  const top = metadata.schema.slice(1).filter((e) => !e.num_children);
  const find = (wanted: string) => top.find((e) => e.name === wanted) ?? top.find((e) => e.name.toLowerCase() === wanted.toLowerCase());
  const user = find(names.userId);
  const trigger = find(names.triggerId);
  const value = find(names.value);
  const listed = top.map((e) => e.name).join(', ');
  if (!user)
    throw new UsageError(`${name} has no column ${names.userId} (its columns: ${listed})`, {
      hint: 'name it with --columns userId=<name>',
    });
  if (!trigger && !options.trigger)
    throw new UsageError(`${name} has no column ${names.triggerId} (its columns: ${listed})`, {
      hint: 'name it with --columns triggerId=<name>, or pass --trigger <id> for every row',
    });
  if (options.columns && names.value !== 'value' && !value)
    throw new UsageError(`${name} has no column ${names.value} (its columns: ${listed})`, {
      hint: 'name another with --columns value=<name>',
    });
  if (value && (value.converted_type === 'DECIMAL' || value.logical_type?.type === 'DECIMAL')) {
    // Read as the unscaled integer: hyparquet would divide it into a double and lose digits.
    const plain: SchemaElement = { ...value, converted_type: undefined, logical_type: undefined };
    metadata = { ...metadata, schema: metadata.schema.map((e) => (e === value ? plain : e)) };
  }
  return {
    file,
    name,
    metadata,
    columns: [trigger?.name, user.name, value?.name].filter((c): c is string => c !== undefined),
    has: { trigger: trigger !== undefined, value: value !== undefined },
    valueText: value ? valueReader(value) : () => undefined,
    rows: Number(metadata.num_rows),
  };
}

/** Rows handed on at once: what the other readers hand on from a slice of text. */
const CHUNK_ROWS = 1024;

/**
 * Rows decoded at once. A row group can hold millions of rows (Spark writes 128 MB groups), and
 * decoding one whole, as hyparquet's row reads do, held a group's rows at once. A slice decodes only
 * the pages it covers, into one array per column; but a page is decoded whole, and one page of a
 * column of doubles holds up to 131,072 values (1 MiB), so a slice much smaller than a page decodes
 * the same page again for each slice: 16,384 rows made the reader four times slower. 65,536 rows
 * decodes such a page at most twice and kept the reader's own peak lowest (146 MB against 195 MB for
 * whole groups of 125,000 rows, reading 1,000,000 rows alone).
 */
const SLICE_ROWS = 65_536;

/**
 * The file as hyparquet reads it, with the three columns' compressed chunks of the current row
 * group read once and kept: each slice asks for the chunk again, and reading it from disk a
 * slice at a time would read a group's bytes many times over.
 */
function groupCache(file: AsyncBuffer): AsyncBuffer & { keep(spans: [number, number][]): void } {
  let kept: { start: number; end: number; bytes: Promise<ArrayBuffer> }[] = [];
  return {
    byteLength: file.byteLength,
    keep(spans) {
      kept = spans.map(([start, end]) => ({ start, end, bytes: Promise.resolve(file.slice(start, end)) }));
    },
    slice(start, end = file.byteLength) {
      const hit = kept.find((k) => start >= k.start && end <= k.end);
      return hit ? hit.bytes.then((b) => b.slice(start - hit.start, end - hit.start)) : file.slice(start, end);
    },
  };
}

export function readParquet(plan: ParquetPlan, options: ReadOptions): RowSource {
  const text = (v: unknown) => (v === null || v === undefined ? undefined : String(v));
  async function* rows(): AsyncGenerator<Row[]> {
    const { asyncBufferFromFile, parquetScan } = await import('hyparquet');
    const file = groupCache(await asyncBufferFromFile(plan.file));
    let scan: ParquetScan;
    try {
      // Whole chunks from the cache; the offset index would only split them into more reads.
      scan = await parquetScan({ file, metadata: plan.metadata, columns: plan.columns, compressors, useOffsetIndex: false });
    } catch (error) {
      throw broken(plan.name, (error as Error).message);
    }
    let groupStart = 0;
    const groups = plan.metadata.row_groups.map((group) => {
      const start = groupStart;
      groupStart += Number(group.num_rows);
      return { start, end: groupStart, group };
    });
    for (const range of scan.ranges) {
      const { group } = groups.find((g) => range.rowStart >= g.start && range.rowStart < g.end)!;
      file.keep(
        group.columns
          .map((c) => c.meta_data)
          .filter((m) => m !== undefined && plan.columns.includes(m.path_in_schema[0]!))
          .map((m) => {
            const start = Number(m!.dictionary_page_offset || m!.data_page_offset);
            return [start, start + Number(m!.total_compressed_size)];
          }),
      );
      for (let start = range.rowStart; start < range.rowEnd; start += SLICE_ROWS) {
        const end = Math.min(start + SLICE_ROWS, range.rowEnd);
        let columns: DecodedArray[];
        try {
          columns = await Promise.all(plan.columns.map((column) => scan.readColumn({ column, rowStart: start, rowEnd: end })));
        } catch (error) {
          throw broken(plan.name, `row ${start + 1} on: ${(error as Error).message}`);
        }
        let k = 0;
        const triggers = plan.has.trigger ? columns[k++] : undefined;
        const users = columns[k++]!;
        const values = plan.has.value ? columns[k] : undefined;
        for (let i = 0; i < end - start; i += CHUNK_ROWS) {
          const out: Row[] = [];
          for (let j = i; j < Math.min(i + CHUNK_ROWS, end - start); j++) {
            const triggerId = triggers ? text(triggers[j]) : undefined;
            const userId = text(users[j]);
            const value = values ? plan.valueText(values[j]) : undefined;
            out.push(
              makeRow(
                start + j + 1,
                { format: 'csv', fields: [triggerId ?? '', userId ?? '', value ?? ''] },
                { triggerId, userId, value },
                options,
              ),
            );
          }
          yield out;
        }
      }
    }
    file.keep([]);
  }
  return { format: 'parquet', rows: rows(), header: () => undefined };
}

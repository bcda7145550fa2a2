/**
 * Rows of a Parquet file, read with hyparquet (pure JavaScript, no native code, maintained, reads by row group): one row group at a time,
 * so memory holds one group, never the file. Numbers keep their exact digits: an int64 comes as a bigint, and a decimal is read as its
 * unscaled integer (hyparquet would turn it into a double) and written out with its scale. An id column (userId, triggerId) must hold text
 * or whole numbers, sent as the file holds them; any other type is refused.
 */
import zlib from 'node:zlib';
import type { FileMetaData, ParquetScan, SchemaElement, SchemaTree } from 'hyparquet';
import { UsageError } from '../errors.js';
import { youngGenerationForParquet } from '../startup.js';
import { tryOr } from '../try-or.js';
import { columnAt, Damaged, findColumns, makeRow, MAX_CHUNK_ROWS, type ReadOptions, type Row, type RowSource } from './rows.js';

/** Decompressors hyparquet leaves to its user (it has Snappy itself). */
const zstd = (zlib as { zstdDecompressSync?: (input: Uint8Array) => Buffer }).zstdDecompressSync;
const compressors = {
  GZIP: (input: Uint8Array) => new Uint8Array(zlib.gunzipSync(input)),
  BROTLI: (input: Uint8Array) => new Uint8Array(zlib.brotliDecompressSync(input)),
  ...(zstd && { ZSTD: (input: Uint8Array) => new Uint8Array(zstd(input)) }),
};

/** The shortest decimal text that reads back as this float32 (a FLOAT column's 0.1 is "0.1"). */
function float32Text(x: number): string {
  if (Object.is(x, -0)) return '-0'; // as a CSV's -0 is sent, which String() would write 0 (audit26 #14)
  for (let p = 1; p < 9; p++) {
    const text = String(Number(x.toPrecision(p)));
    if (Math.fround(Number(text)) === x) return text;
  }
  return String(x);
}

/** A two's complement big-endian integer (a decimal's bytes). */
const bigIntOf = (bytes: Uint8Array): bigint =>
  BigInt.asIntN(bytes.length * 8, BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex') || '0'}`));

/**
 * An unscaled integer and a scale as decimal text: every digit kept (12345 and 2 give "123.45"). The
 * format says a scale is never negative, but nothing stops a writer making one (123 and -2 give "12300").
 */
export function decimalText(unscaled: bigint, scale: number): string {
  const sign = unscaled < 0n ? '-' : '';
  const digits = (unscaled < 0n ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return scale > 0 ? `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}` : `${sign}${digits}${'0'.repeat(-scale)}`;
}

/** Text, or bytes that are not UTF-8 as they are (hyparquet would put U+FFFD in their place); untyped bytes stay bytes. */
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }); // a U+FEFF that starts an id is its own (audit24)
const stringFromBytes = (bytes: Uint8Array | undefined) => tryOr(() => bytes && strict.decode(bytes), bytes);
const decoding = { compressors, parsers: { stringFromBytes }, utf8: false };

const annotation = (e: SchemaElement) => e.logical_type?.type ?? e.converted_type;
const scaleOf = (e: SchemaElement) => e.scale ?? (e.logical_type as { scale?: number } | undefined)?.scale ?? 0;
const typeOf = (e: SchemaElement, kind = annotation(e)) =>
  kind === 'DECIMAL' ? `DECIMAL(${e.precision},${scaleOf(e)})` : (kind ?? (e.num_children ? 'STRUCT' : e.type));
/** What a value column may be: a number of any kind, or text (each row's text is checked as a CSV's is). */
const VALUE_TYPES = /^(INT(32|64)( U?INT(EGER|_\d+)| DECIMAL)?|FLOAT|DOUBLE|(FIXED_LEN_)?BYTE_ARRAY( UTF8| STRING| DECIMAL)?)$/;
/** What an id column may be (its type and annotation): text (UTF-8, untyped bytes, an enum, a UUID) or a whole number. */
const ID_TYPES = /^(INT(32|64)( U?INT(EGER|_\d+))?|BYTE_ARRAY( UTF8| STRING| ENUM)?|FIXED_LEN_BYTE_ARRAY UUID)$/;

/**
 * An id column's text maker (userId, triggerId): its text, or its whole number with every digit. Another type is the wrong column (a
 * timestamp, a flag), refused before a row is sent; bytes not UTF-8 make their row invalid (as a CSV line's; they stopped the batch).
 */
function idReader(e: SchemaElement, what: string, name: string): (raw: unknown) => string | undefined | { why: string; text: string } {
  const decimal = annotation(e) === 'DECIMAL';
  if (decimal ? scaleOf(e) > 0 : e.num_children || !ID_TYPES.test([e.type, annotation(e)].filter(Boolean).join(' '))) {
    const hint = `a ${what} is text or a whole number: name another column with --columns ${what}=<name>, or cast it in the export`;
    throw new UsageError(`${name}: the ${what} column ${e.name} is ${typeOf(e)}, not an id; nothing was sent`, { hint });
  }
  const [text, why] = [valueReader(e), `its ${what} (${e.name}) is not valid UTF-8 text; save it as UTF-8 in the export`];
  return (raw) => {
    const utf8 = decimal || !(raw instanceof Uint8Array) ? text(raw) : stringFromBytes(raw);
    // Its text kept as a CSV line's is, U+FFFD for the bad bytes (review24b: kept as `t,,,`); an object for such a row only.
    return typeof utf8 === 'object' ? { why, text: Buffer.from(utf8).toString() } : utf8;
  };
}

/** A column's text maker, for its physical and logical type. */
function valueReader(element: SchemaElement): (raw: unknown) => string | undefined {
  if (annotation(element) === 'DECIMAL') {
    const scale = scaleOf(element);
    return (raw) =>
      raw === null || raw === undefined
        ? undefined
        : decimalText(raw instanceof Uint8Array ? bigIntOf(raw) : BigInt(raw as number | bigint), scale);
  }
  if (element.type === 'FLOAT') return (raw) => (typeof raw === 'number' ? float32Text(raw) : undefined);
  return (raw) => {
    if (raw === null || raw === undefined) return undefined;
    if (raw instanceof Uint8Array) return Buffer.from(raw).toString();
    return typeof raw === 'object' ? (JSON.stringify(raw) ?? String(raw)) : Object.is(raw, -0) ? '-0' : String(raw);
  };
}

/** What went wrong in hyparquet's words when they say it (PAR1 missing, a length past the end), not its internals' (a TypeError, thrift). */
const said = (error: unknown, part: string) =>
  error instanceof TypeError || error instanceof RangeError || /^thrift /.test((error as Error).message)
    ? `${part} is damaged: it could not be decoded`
    : (error as Error).message.replace(/^parquet /, '');
const WHOLE = 'check that the export finished and the file was copied whole (a Parquet file ends with its footer)';
const broken = (name: string, why: string) =>
  new UsageError(`${name} is not a readable Parquet file: ${why}; nothing was sent`, { hint: WHOLE });
/**
 * Rows that cannot be read once reading began (a page, or a later part of a folder whose earlier parts were sent): the batch stops there,
 * keeps the rows read and not sent, and prints the command for the rest, as for a .gz cut short (audit24: "nothing was sent" after 2,500).
 */
const damaged = (name: string, row: number, error: unknown) =>
  new Damaged(`${name}: its rows from ${row} on cannot be read (${said(error, 'a page')})`, { hint: WHOLE, cause: error as Error });

/**
 * Rows decoded at once. A row group can hold millions of rows (Spark writes 128 MB groups), and decoding one whole, as hyparquet's row
 * reads do, held a group's rows at once. A slice decodes only the pages it covers, into one array per column; but a page is decoded whole,
 * and one page of a column of doubles holds up to 131,072 values (1 MiB), so a slice much smaller than a page decodes the same page again
 * for each slice: 16,384 rows made the reader four times slower. 65,536 rows decodes such a page at most twice and kept the reader's own
 * peak lowest (146 MB against 195 MB for whole groups of 125,000 rows, reading 1,000,000 rows alone).
 */
const SLICE_ROWS = 65_536;

/** A codec this Node cannot read (ZSTD before Node 22.15, LZ4): refused as the file opens, not at its first page with earlier parts sent. */
function refuseCodecs(metadata: FileMetaData, name: string, read: (string | undefined)[]): void {
  const chunks = metadata.row_groups.flatMap((g) => g.columns.filter((c) => read.includes(c.meta_data?.path_in_schema[0])));
  const codecs = chunks.map((c) => c.meta_data?.codec ?? 'UNCOMPRESSED');
  const unread = codecs.find((codec) => codec !== 'UNCOMPRESSED' && codec !== 'SNAPPY' && !(codec in compressors));
  const hint = unread === 'ZSTD' ? 'use Node 22.15 or later (it reads zstd), or export with SNAPPY' : 'export it with SNAPPY or ZSTD';
  if (unread) throw new UsageError(`${name} is compressed with ${unread}, which this Node cannot read; nothing was sent`, { hint });
}

// Counts that do not add up are damage: a group's count lost read as 0 rows, exit 0; 10^12 rows over 1,000 made up rows until the disk was
// full (audit27). A column read holds a value a row of each group: REQUIRED, exactly; OPTIONAL, at most (its nulls counted or not).
function refuseCounts(metadata: FileMetaData, name: string, read: (SchemaElement | undefined)[]): void {
  const counts = metadata.row_groups.map((g) => g.num_rows);
  const rows = counts.every((n) => typeof n === 'bigint') ? counts.reduce((sum, n) => sum + n, 0n) : 'an unknown number of';
  if (rows !== metadata.num_rows) throw broken(name, `its row groups hold ${rows} rows, and its footer says ${metadata.num_rows}`);
  for (const [i, group] of metadata.row_groups.entries())
    for (const e of read.filter((e): e is SchemaElement => e !== undefined && e.repetition_type !== 'REPEATED')) {
      const n = group.columns.find((c) => c.meta_data?.path_in_schema[0] === e.name)?.meta_data?.num_values;
      if (n === undefined || n > group.num_rows || (e.repetition_type === 'REQUIRED' && n !== group.num_rows))
        throw broken(name, `its column ${e.name} holds ${n ?? 'no'} values in row group ${i + 1}, which has ${group.num_rows} rows`);
    }
}

/** Finds a file's columns from its footer (broken, or a column missing: a usage error); gives its rows' reader, by row group slices. */
export async function openParquet(file: string, name: string, options: ReadOptions): Promise<(options: ReadOptions) => RowSource> {
  const { asyncBufferFromFile, parquetMetadataAsync, parquetScan, parquetSchema } = await import('hyparquet');
  let metadata: FileMetaData;
  try {
    const buffer = await asyncBufferFromFile(file);
    if (buffer.byteLength < 12) throw new Error(`it is only ${buffer.byteLength} bytes`);
    metadata = await parquetMetadataAsync(buffer);
  } catch (error) {
    throw broken(name, said(error, 'its footer'));
  }
  const tree = parquetSchema(metadata);
  const top = tree.children.map((c) => c.element);
  const names = top.map((e) => e.name);
  // A field inside a struct (GA4's event_params.value, user_properties.value) is no column: --columns naming one is refused naming each.
  const leaves = (n: SchemaTree): string[] => n.children.flatMap((c) => (c.children.length ? leaves(c) : [c.path.join('.')]));
  for (const [key, wanted] of Object.entries(options.columns ?? {}).filter(([, n]) => columnAt(names, n) < 0)) {
    const found = leaves(tree).filter((f) => `.${f.replace(/\.list\.element\b/g, '')}.`.includes(`.${wanted}.`));
    const problem = `${name}: ${wanted} is a field inside a struct (${found.join(', ')}), and trigger reads top-level columns only; nothing was sent`;
    const hint = `make it a column in the export (GA4 in BigQuery: (SELECT value.double_value FROM UNNEST(event_params) WHERE key = 'value') AS ${key})`;
    if (found.length) throw new UsageError(problem, { hint });
  }
  const at = findColumns(names, options, name);
  const [trigger, user, value] = [top[at.trigger], top[at.user]!, top[at.value]];
  const userText = idReader(user, 'userId', name);
  const triggerText = trigger && idReader(trigger, 'triggerId', name);
  // A decimal is read as its unscaled integer: hyparquet would divide it into a double and lose digits.
  const plain = (e: SchemaElement) => (annotation(e) === 'DECIMAL' ? { ...e, converted_type: undefined, logical_type: undefined } : e);
  metadata = { ...metadata, schema: metadata.schema.map((e) => ([trigger, user, value].includes(e) ? plain(e) : e)) };
  const kind = value && [value.type, annotation(value)].filter(Boolean).join(' ');
  if (value && (value.num_children || !VALUE_TYPES.test(kind!))) {
    const hint = 'a value is a number (or its text): name another column with --columns value=<name>, or leave value out';
    throw new UsageError(`${name}: the value column ${value.name} is ${typeOf(value)}, not a number; nothing was sent`, { hint });
  }
  const valueText = value ? valueReader(value) : () => undefined;
  refuseCodecs(metadata, name, [trigger?.name, user.name, value?.name]);
  refuseCounts(metadata, name, [trigger, user, value]);

  async function* rows(options: ReadOptions): AsyncGenerator<Row[]> {
    youngGenerationForParquet();
    let scan: ParquetScan;
    try {
      const columns = [trigger?.name, user.name, value?.name].filter((c) => c !== undefined);
      scan = await parquetScan({ file: await asyncBufferFromFile(file), metadata, columns, ...decoding });
    } catch (error) {
      throw damaged(name, 1, error);
    }
    const read = async (column: string | undefined, rowStart: number, rowEnd: number) => {
      try {
        const values = column === undefined ? undefined : await scan.readColumn({ column, rowStart, rowEnd });
        // Fewer than its rows (pages cut short, or past the file's end), or a hole (an index past its dictionary): damage, not rows with no id.
        if (values && (values.length !== rowEnd - rowStart || Array.prototype.includes.call(values, undefined)))
          throw new Error(`its column ${column} does not hold the ${rowEnd - rowStart} values of these rows`);
        return values;
      } catch (error) {
        throw damaged(name, rowStart + 1, error);
      }
    };
    for (const range of scan.ranges) {
      for (let start = range.rowStart; start < range.rowEnd; start += SLICE_ROWS) {
        const end = Math.min(start + SLICE_ROWS, range.rowEnd);
        const [triggers, users, values] = await Promise.all([trigger, user, value].map((column) => read(column?.name, start, end)));
        for (let i = 0; i < end - start; i += MAX_CHUNK_ROWS) {
          const out: Row[] = [];
          for (let j = i; j < Math.min(i + MAX_CHUNK_ROWS, end - start); j++) {
            const [t, u] = [triggerText?.(triggers![j]), userText(users![j])];
            const [triggerId, userId] = [typeof t === 'object' ? t.text : t, typeof u === 'object' ? u.text : u];
            const row = { triggerId, userId, value: values && valueText(values[j]) };
            const made = makeRow(start + j + 1, { format: 'csv', fields: [triggerId ?? '', userId ?? '', row.value ?? ''] }, row, options);
            const bad = typeof t === 'object' ? t : typeof u === 'object' ? u : undefined;
            out.push(bad ? Object.assign(made, { invalid: bad.why, event: undefined }) : made);
          }
          yield out;
        }
      }
    }
  }
  return (options) => ({ rows: rows(options), header: () => undefined });
}

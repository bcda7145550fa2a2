/**
 * Opening a batch's input: files, folders (their regular files in name order, hidden ones skipped) or `-` for stdin, each maybe compressed,
 * and deciding each one's format: --format, else the file's extension, else a look at its first bytes ("{" means NDJSON, anything else CSV
 * with a header). Every file is looked at before a row is sent: a file that is not what its name says stops the batch before it starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline, Readable } from 'node:stream';
import zlib from 'node:zlib';
import { errnoWords } from '../errno.js';
import { UsageError } from '../errors.js';
import { shellQuote } from '../output/render.js';
import { tryOr } from '../try-or.js';
import { COMPRESSIONS, compressionFromName, compressionOf, FORMAT_TABLE, formatFromName } from './formats.js';
import type { Compression, Format } from './formats.js';
import type { Stopped } from './lines.js';
import { formatCount, plural } from './report.js';
import { Damaged, readRows, type ReadOptions, type Row, type RowSource } from './rows.js';

interface InputFile {
  path: string;
  name: string; // As shown in messages and rows: the path as given, or the folder as given and the file's name.
  compression: Compression | undefined;
  format: Format; // From --format, its name, or its first bytes.
  /** Its rows: its format's reader over its bytes, or a Parquet file's row groups (its footer read when it was opened). */
  read(options: ReadOptions): RowSource;
  close(): void; // Lets go of what `read` opened (a run refused before reading).
}

export interface Input {
  files: InputFile[]; // The files read, in order (none for stdin).
  sources: string[]; // The sources as given (files, folders or "-").
  format: Format; // The format the failed file is written in: the input's own, or CSV for a normalized one.
  /**
   * Set when the failed file cannot be the input's own format (several files, Parquet, --columns):
   * it is then a CSV of triggerId,userId,value (and file, for several files) and error.
   */
  normalized: { file: boolean } | undefined;
  read(options: ReadOptions): RowSource; // The rows of every file in turn (a row of several files names its file).
  /** The first signal: standard input ends (up to its last whole line read); files after `more` rows, or `ms` of reading on (a chunk's end). */
  stopReading(more: number, ms?: number): void;
  close(): void; // Lets go of standard input at once, read or not (a run that ends with an error).
  /** Set when reading stopped before the end: standard input's partial last line dropped, or a file's rows after `line` (and `later` files) not read. */
  cut: { dropped: number; file?: undefined } | { dropped: 0; file: string; line: number; later: string[]; check: string } | undefined;
  /** Set when a file could not be read past `line` (0: from its first line): the rest of that file is in no place. */
  damaged?: { file: string; line: number; why: string; check?: string };
  /** Told when `damaged` is set, before a later file's row is handed on. */
  onDamage?: ((damage: NonNullable<Input['damaged']>) => void) | undefined;
}

/**
 * Standard input, until it ends or `stop()` is called. A pipe whose producer is still writing never ends by itself: without this a batch
 * kept reading after SIGTERM until it was killed (timeout -k, Kubernetes), and every row it had read was lost. After `stop()` the bytes
 * already taken from the pipe are handed on and the input ends there: the line reader drops a partial last line (and counts it), never
 * sends it cut short; the rest is the producer's.
 */
function stoppable(source: Readable, mark: Stopped): { stream: Readable; stop(): void } {
  const drained: Array<Buffer | string> = [];
  async function* chunks(): AsyncGenerator<Buffer | string> {
    // Iterating starts with the first read, so a run that ends before reading leaves stdin alone.
    try {
      yield* source as AsyncIterable<Buffer | string>;
    } catch (error) {
      if (!mark.stopped) throw error;
    }
    yield* drained;
  }
  return {
    stream: Readable.from(chunks(), { objectMode: false }),
    stop: () => {
      if (mark.stopped || source.readableEnded) return;
      mark.stopped = true;
      for (let more; (more = source.read() as Buffer | string | null) !== null;) drained.push(more);
      source.destroy();
    },
  };
}

/** The first bytes of a stream (read until `more` says they are enough), and a stream that still starts with them. */
async function peek(source: Readable, more: (head: Buffer) => boolean = () => false): Promise<{ head: Buffer; stream: Readable }> {
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  let head = Buffer.alloc(0);
  let next: IteratorResult<Buffer | string>;
  do {
    next = await chunks.next();
    if (!next.done) head = Buffer.concat([head, Buffer.from(next.value)]);
  } while (!next.done && more(head));
  async function* all(): AsyncGenerator<Buffer> {
    if (head.length) yield head;
    if (next.done) return;
    for (let n = await chunks.next(); !n.done; n = await chunks.next()) yield Buffer.from(n.value);
  }
  return { head, stream: Readable.from(all(), { objectMode: false }) };
}

async function sniff(source: Readable): Promise<{ format: Format; stream: Readable }> {
  const { head, stream } = await peek(source);
  return { format: /^\s*\{/.test(head.toString('utf8')) ? 'ndjson' : 'csv', stream }; // \s takes a byte-order mark too
}

const zstd = (zlib as unknown as { createZstdDecompress?: (options?: zlib.ZlibOptions) => NodeJS.ReadWriteStream }).createZstdDecompress;

/** Decompressed bytes in pieces as big as a plain file's read (zlib's default: 16 KiB): per-piece costs paid over as many rows. */
const INFLATED_CHUNK = 64 * 1024;

function noZstd(name: string): UsageError {
  // Not `zstd -dc F | trigger batch -`: for a folder's part it sent that part alone, and for a pipe it named "standard input" (audit24).
  const first = name === 'standard input' ? 'in the pipe: ... | zstd -dc | trigger batch -' : `in place: zstd -d --rm ${shellQuote(name)}`;
  const hint = `run trigger with Node 22.15 or later, or decompress it first, ${first}`;
  const problem = `${name} is zstd-compressed, and Node ${process.version} has no zstd (Node 22.15 and 24 have it); nothing was sent`;
  return new UsageError(problem, { hint });
}

type ZstdAt = 'frame' | 'block';
/**
 * The bytes a zstd header takes once `b` holds enough of it (RFC 8878: a frame's header or a block's),
 * the bytes after it to pass over (a block and, after the last, the frame's checksum; a skippable frame).
 */
function zstdStep(at: ZstdAt, b: Buffer, sum: number): { used: number; skip: number; at: ZstdAt; sum: number } | undefined {
  if (at === 'block') {
    if (b.length < 3) return undefined;
    const [header, last] = [b.readUIntLE(0, 3), b[0]! & 1];
    return { used: 3, skip: (((header >> 1) & 3) === 1 ? 1 : header >> 3) + (last ? sum : 0), at: last ? 'frame' : 'block', sum };
  }
  if (b.length < 8 && !(b.length >= 5 && b.readUInt32LE(0) === 0xfd2fb528)) return undefined;
  if ((b.readUInt32LE(0) & ~0xf) >>> 0 === 0x184d2a50) return { used: 8, skip: b.readUInt32LE(4), at: 'frame', sum };
  const [flags, single] = [b[4]!, (b[4]! >> 5) & 1];
  const used = 5 + (single ? 0 : 1) + [0, 1, 2, 4][flags & 3]! + [single, 2, 4, 8][flags >> 6]!;
  return b.length < used ? undefined : { used, skip: 0, at: 'block', sum: (flags >> 2) & 1 ? 4 : 0 };
}

/** Whether `b` may start a zstd frame or a skippable one (its first 4 bytes, as many as came). */
const frameAhead = (b: Buffer) =>
  [0xfd2fb528, 0x184d2a50 | (b[0]! & 15)].some((m) => b.subarray(0, 4).every((x, k) => x === (m >>> (8 * k)) % 256));

/**
 * zstd data passed on as it comes, its frames walked by their headers, `undefined` after each frame; at the end, what is wrong with it: cut
 * in a frame (Node 22's decompressor ends a cut frame without an error, and its cut last line was sent), or bytes after the last frame that
 * are not zstd (trailing; zeros alone are padding as for gzip: they were "damaged: copy it whole").
 */
async function* zstdFrames(chunks: AsyncIterator<Buffer>, name: string): AsyncGenerator<Buffer | undefined, string | undefined> {
  let [held, skip, at, sum, ended, frames, read] = [Buffer.alloc(0), 0, 'frame' as ZstdAt, 0, false, 0, 0];
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
    const chunk = next.value;
    let [from, end] = [0, chunk.length];
    for (let i = 0; i < chunk.length;) {
      const passed = Math.min(skip, chunk.length - i);
      [skip, i] = [skip - passed, i + passed];
      if (i === chunk.length) break;
      const before = held.length;
      held = Buffer.concat([held, chunk.subarray(i, i + 18)]); // 18 bytes hold any header
      if (at === 'frame' && !frameAhead(held)) {
        if (i > from) yield chunk.subarray(from, i);
        const first = Buffer.concat([held.subarray(0, before), chunk.subarray(i)]); // a header held back is of them
        return trailing(first, chunks, `zstd frame ${frames}`, 'zstd', read + i - before, name);
      }
      const step = zstdStep(at, held, sum);
      if (!step && ended) end = i; // a header the piece cuts is held back, to go first to the frame it opens (or to be no frame)
      if (!step) break;
      if (ended) {
        if (i > from) yield chunk.subarray(from, i);
        yield undefined;
        if (before) yield held.subarray(0, before);
        [from, ended] = [i, false];
      }
      [i, held, skip, at, sum, ended] = [i + step.used - before, Buffer.alloc(0), step.skip, step.at, step.sum, step.at === 'frame'];
      frames += Number(ended);
    }
    if (from < end) yield chunk.subarray(from, end);
    read += chunk.length;
  }
  return held.length > 0 || skip > 0 || at !== 'frame' ? 'it ends within a frame, as a file cut short does' : undefined;
}

/** Why bytes after the last gzip member or zstd frame (`what`), `first` then the rest of `chunks`, from `at`, stop a batch (zeros: padding). */
async function trailing(first: Buffer, chunks: AsyncIterator<Buffer>, what: string, kind: string, at: number, name: string) {
  let [bytes, zeros] = [first.length, first.every((b) => b === 0)];
  for (let next = await chunks.next(); !next.done; next = await chunks.next())
    [bytes, zeros] = [bytes + next.value.length, zeros && next.value.every((b) => b === 0)];
  const cut = name === 'standard input' ? '' : `; cut them off with: truncate -s ${at} ${shellQuote(name)}`;
  if (zeros) return undefined;
  return `trailing garbage: the bytes after ${what} are not ${kind} (${bytes} of them); every row before them was read${cut}`;
}

/** Each zstd frame through a decompressor of its own: Node's reads one frame and ends, and the frames after it were lost. */
async function* unzstd(source: Readable, name: string, stopped?: Stopped): AsyncGenerator<Buffer> {
  const pieces = zstdFrames(source[Symbol.asyncIterator](), name);
  let next: IteratorResult<Buffer | undefined, string | undefined> | undefined;
  while (!next?.done) {
    async function* frame(): AsyncGenerator<Buffer> {
      for (next = await pieces.next(); !next.done && next.value; next = await pieces.next()) yield next.value;
    }
    yield* pipeline(Readable.from(frame()), zstd!({ chunkSize: INFLATED_CHUNK }), () => undefined) as AsyncIterable<Buffer>;
  }
  // Thrown once all that was read is handed on, before the end: the line reader never ends on a cut line.
  if (next.value && !stopped?.stopped) throw new Error(next.value);
}

/**
 * gzip members read one by one (RFC 1952: a header, deflate data, its CRC and size). Node's gunzip fails on bytes after a member that are
 * not another (gzip's "trailing garbage": a log line appended, a tool's padding) and drops the rows it inflated in that step (up to 64 KB, a
 * small file's all): here every member's rows are handed on first, then the bytes after member K are named. Zeros alone there are padding.
 */
async function* gunzip(source: AsyncIterable<Buffer>, name: string): AsyncGenerator<Buffer> {
  const chunks = source[Symbol.asyncIterator]();
  let [held, at] = [Buffer.alloc(0) as Buffer, 0]; // the bytes read and not yet taken; where they start in the file
  const more = async () => {
    const next = await chunks.next();
    if (!next.done) held = Buffer.concat([held, next.value]);
    return !next.done;
  };
  const fill = async (n: number) => {
    while (held.length < n) if (!(await more())) throw Error('unexpected end of file'); // zlib's words for a .gz cut short
  };
  for (let member = 0; held.length > 0 || (await more()); member++) {
    if (member > 0 && held.length < 2) await more();
    if (member > 0 && (held[0] !== 0x1f || held[1] !== 0x8b)) {
      const why = await trailing(held, chunks, `gzip member ${member}`, 'gzip', at, name);
      if (why) throw Error(why);
      return;
    }
    await fill(10);
    const flags = held[3]!;
    if (held[2] !== 8) throw Error('unknown compression method');
    if (flags & 0xe0) throw Error('unknown header flags set');
    let used = 10; // the header's own bytes: an extra field, a name and a comment (each ended by a zero), a CRC
    if (flags & 4) await fill((used += 2)).then(() => (used += held.readUInt16LE(used - 2)));
    for (const field of [8, 16]) if (flags & field) for (await fill(used + 1); held[used++] !== 0;) await fill(used + 1);
    await fill((used += flags & 2));
    const inflater = zlib.createInflateRaw({ chunkSize: INFLATED_CHUNK });
    let [fed, last, crc, size] = [0, held.subarray(used), 0, 0];
    // One piece written at a time: the bytes after the deflate data (fed, not taken) are then the last piece's end.
    const feeding = (async () => {
      for (let piece = last; ;) {
        [fed, last] = [fed + piece.length, piece];
        if (piece.length) await new Promise((done) => inflater.write(piece, done));
        if (inflater.destroyed || inflater.bytesWritten < fed) return;
        const next = await chunks.next();
        if (next.done) return void inflater.end();
        piece = next.value;
      }
    })().catch((error: Error) => inflater.destroy(error)); // a read that failed ends the inflated stream with its error
    for await (const out of inflater as AsyncIterable<Buffer>) {
      [crc, size] = [zlib.crc32(out, crc), size + out.length];
      yield out;
    }
    await feeding;
    held = last.subarray(last.length - (fed - inflater.bytesWritten));
    await fill(8);
    // Found at a member's end, its rows handed on by then (audit27 #8: one was a user mistyped): which member, and that they may be wrong.
    const check = `incorrect data check: gzip member ${member + 1} failed its checksum, so the rows read from it may be wrong`;
    if (held.readUInt32LE(0) !== crc || held.readUInt32LE(4) !== size % 2 ** 32) throw Error(check);
    [held, at] = [held.subarray(8), at + used + inflater.bytesWritten + 8];
  }
}

/** Files a warehouse or a shell may hand over that trigger does not read, by their first 4 bytes; each with its way round. */
const FOREIGN: Array<[string, string, (name: string) => string]> = [
  ['BZh', 'bzip2-compressed', (name) => `decompress it first: bzip2 -dc ${name} | trigger batch -`],
  ['\xfd7zX', 'xz-compressed', (name) => `decompress it first: xz -dc ${name} | trigger batch -`],
  ['\x04"M\x18', 'lz4-compressed', (name) => `decompress it first: lz4 -dc ${name} | trigger batch -`],
  ['PK\x03\x04', 'a zip archive', (name) => `unpack it first: unzip -p ${name} | trigger batch -`],
  ['Obj\x01', 'an Avro file', () => 'export it as CSV, NDJSON or Parquet'],
];
const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');

/**
 * A decompressed stream whose errors name the file (a .gz cut short, or a gzip header failing after the first, checked at open: bytes
 * after a member that gzip calls trailing garbage): found midway, the rows read before are kept, the message names the file. When
 * reading stops early (`stopped`, standard input at a signal), the compressed bytes end mid-stream:
 * what was decompressed is handed on, and the line reader drops a partial last line.
 */
async function* decompressed(source: Readable, compression: Compression, name: string, stopped?: Stopped): AsyncGenerator<Buffer> {
  if (compression === 'zstd' && !zstd) throw noZstd(name);
  try {
    yield* compression === 'gzip' ? gunzip(source, name) : unzstd(source, name, stopped);
  } catch (error) {
    if (stopped?.stopped) return;
    if (error instanceof Damaged) throw error; // its file changed while it was read, or went (bytesOf)
    const message = `${name}: the ${compression} data cannot be read on (${(error as Error).message}); nothing was sent`;
    throw new Damaged(message, { hint: 'check that the file was copied whole', cause: error as Error });
  } finally {
    source.destroy();
  }
}

/** Parquet through standard input: found by its first bytes, or asked for with `--format parquet`. */
const parquetOnStdin = (what = 'standard input is a Parquet file') =>
  new UsageError(`${what}, which is read from its footer and cannot come through a pipe`, {
    hint: 'give the file by its name: trigger batch export.parquet',
  });

/** Standard input, decompressed when its first bytes are gzip or zstd; a Parquet file cannot come this way. */
async function* sniffedStdin(source: Readable, mark: Stopped): AsyncGenerator<Buffer> {
  // A magic number may come split over two reads of a pipe (waiting only while the bytes could be one).
  const magics = [...Object.values(COMPRESSIONS).map((c) => c.magic), [...Buffer.from('PAR1')]];
  const mayBeMagic = (bytes: Buffer) => bytes.length < 4 && magics.some((m) => bytes.every((b, i) => i >= m.length || m[i] === b));
  const { head, stream } = await peek(source, mayBeMagic);
  if (head.subarray(0, 4).toString('latin1') === 'PAR1') throw parquetOnStdin();
  const compression = compressionOf(head);
  if (!compression) return yield* stream;
  yield* decompressed(stream, compression, 'standard input', mark);
}

// A folder is an export: its part files, not its markers (`_SUCCESS`, `_committed_*`), nor what is hidden (`.part-0.crc`). Hadoop, Spark
// and the warehouses skip the same names. Redshift's UNLOAD ... MANIFEST writes its list of parts as `<prefix>manifest`, JSON beside them.
export const isPart = (name: string) => !name.startsWith('.') && !name.startsWith('_') && !/(^|_)manifest$/.test(name);

/** A source's or a folder entry's stat (through links), or the usage error that says why it cannot be read. */
function statOf(at: string, name: string, hint: string, after = ''): fs.Stats {
  try {
    return fs.statSync(at);
  } catch (error) {
    throw new UsageError(`cannot read ${name}: ${errnoWords(error, 'reading')}${after}`, { hint });
  }
}

/** The regular files a source names: itself, or a folder's files in name order (hidden and `_` ones skipped). */
function filesOf(source: string, cwd: string): Array<{ path: string; name: string }> {
  const at = path.resolve(cwd, source);
  const stat = statOf(at, source, 'give CSV, NDJSON or Parquet files or folders of them, or - for standard input');
  if (stat.isFile()) return [{ path: at, name: source }];
  // A file is looked at before it is read, so a pipe's rows would be gone by then.
  const hint = `pipe it to standard input: cat ${source} | trigger batch -`;
  if (!stat.isDirectory()) throw new UsageError(`${source} is not a regular file or folder`, { hint });
  return fs
    .readdirSync(at)
    .filter(isPart)
    .sort()
    .map((name) => ({ path: path.join(at, name), name: path.join(source, name) }))
    .filter((f) => isFile(f));
}

/**
 * That a folder's entry is a regular file, through a link; a link to nothing, a loop of links, a folder (Hive's `date=2026-01-01/`) or
 * a device, FIFO or socket (audit27 #12: a FIFO may be a part still streamed in) is an input error: their rows would be left out unsaid.
 */
function isFile(file: { path: string; name: string }): boolean {
  const stat = statOf(file.path, file.name, 'mend or remove it, or name the files to read', '; nothing was sent');
  const hint = `name the folders inside it: trigger batch ${path.join(path.dirname(file.name), '*')}/`;
  const message = `${file.name} is a folder inside a folder given: its files are read only if it is named; nothing was sent`;
  if (stat.isDirectory()) throw new UsageError(message, { hint });
  const kind = stat.isFIFO() ? 'a FIFO' : stat.isSocket() ? 'a socket' : 'a device'; // named as it is (review28 F5)
  const odd = `${file.name} is not a regular file (${kind}), which a folder's parts are; nothing was sent`;
  if (!stat.isFile()) throw new UsageError(odd, { hint: 'move it out of the folder, or name the files to read' });
  return true;
}

/**
 * Looks at a file's first bytes, read once: what its name says must be what they are, and without a
 * name that says, they decide its format (4 bytes tell what a file is; a chunk of its text, its format).
 */
async function openFile(file: { path: string; name: string }, options: OpenOptions, listed: fs.Stats): Promise<InputFile> {
  const { compression, inner } = compressionFromName(file.name);
  const format = options.format ?? formatFromName(inner);
  const probe = fs.createReadStream(file.path, { highWaterMark: format ? 4 : 64 * 1024 });
  let text: Readable | undefined;
  try {
    const first = await peek(probe).catch((error: unknown) => {
      throw new UsageError(`cannot read ${file.name}: ${errnoWords(error, 'reading')}`);
    });
    const head = Buffer.concat([first.head.subarray(0, 4), Buffer.alloc(4)]).subarray(0, 4); // an empty file's are zeros
    if (compression && first.head.length === 0)
      throw new UsageError(`${file.name} is empty (0 bytes), not ${compression} data; nothing was sent`);
    const foreign = FOREIGN.find(([magic]) => head.toString('latin1').startsWith(magic));
    const hint = foreign?.[2](shellQuote(file.name));
    if (foreign) throw new UsageError(`${file.name} is ${foreign[1]}, which trigger does not read; nothing was sent`, { hint });
    const found = compressionOf(head);
    const isParquet = head.toString('latin1') === 'PAR1';
    const notWhatItSays = (what: string, hint: string) =>
      new UsageError(`${file.name} is not ${what} (its first bytes are ${hex(head)}); nothing was sent`, { hint });
    if (compression && found !== compression)
      throw notWhatItSays(`${compression} data`, `rename it without ${COMPRESSIONS[compression].extension} if it is not compressed`);
    if (compression === 'zstd' && !zstd) throw noZstd(file.name);
    if (!compression && found) {
      const extension = COMPRESSIONS[found].extension;
      const message = `${file.name} is ${found}-compressed, but its name does not end in ${extension}; nothing was sent`;
      throw new UsageError(message, { hint: `rename it to ${file.name}${extension}` });
    }
    if (format === 'parquet' || (format === undefined && isParquet)) {
      if (compression) throw new UsageError(`${file.name}: a Parquet file compresses its own pages; it cannot be read compressed again`);
      if (!isParquet) throw notWhatItSays('a Parquet file', 'a Parquet file starts and ends with PAR1');
      const { openParquet } = await import('./parquet.js');
      const read = await openParquet(file.path, file.name, options.read ?? {});
      return { ...file, compression, format: 'parquet', read, close: () => undefined };
    }
    if (isParquet) throw notWhatItSays(FORMAT_TABLE[format!].wording, `name it ${inner}.parquet`);
    const inflated = (raw: Readable) =>
      compression ? Readable.from(decompressed(raw, compression, file.name), { objectMode: false }) : raw;
    text = inflated(first.stream);
    const known = format ?? (await sniff(text)).format;
    let stream: Readable | undefined;
    return {
      ...file,
      compression,
      format: known,
      read: (read) => readRows((stream = inflated(listedBytes(file, listed))), known, { ...read, name: file.name }),
      // An open still under way may end after its file is gone, which is no longer anyone's error.
      close: () => stream?.on('error', () => undefined).destroy(),
    };
  } finally {
    // The sniffed bytes were only looked at: the decompressor made for them goes with the probe.
    text?.destroy();
    probe.destroy();
  }
}

/** A file's bytes as listed; one that says it is empty may not be (/proc, /sys, some FUSE files: review27b F4): read as it comes. */
const listedBytes = (file: { path: string; name: string }, listed: fs.Stats) =>
  listed.size ? Readable.from(bytesOf(file, listed), { objectMode: false }) : fs.createReadStream(file.path, { highWaterMark: 64 * 1024 });

/**
 * A file's bytes up to its size when listed, each piece checked to be of that file still (its size and time), before it is handed on
 * (audit27): a CSV cut short while read sent its torn last line as a user and ended as a success, one written on sent rows its journal had
 * not hashed. A file removed or made unreadable after the listing is damage too, not "a bug in trigger". The file behind standard input
 * (review27b F3: the same torn line) is read on from the offset it was handed over at, `from`; where that cannot be told (null), to its end.
 */
async function* bytesOf(file: { path: string; name: string }, listed: fs.Stats, from?: number | null): AsyncGenerator<Buffer> {
  const gone = (error: Error) =>
    new Damaged(`cannot read ${file.name}`, { cause: new Error(`since the batch began: ${errnoWords(error, 'reading')}`) });
  const handle = from === undefined ? await fs.promises.open(file.path).catch((error: Error) => Promise.reject(gone(error))) : undefined;
  const [fd, size, it] = [handle?.fd ?? 0, from === null ? Infinity : listed.size, handle ? 'it' : 'the file behind it'];
  // Written on at its end (a log still written, review27b F2): the bytes it had when listed are read, no more, unless its last line was
  // still being written then. Cut, or written again in place at its size: damage (any change, when where it ends is not known).
  let end = 0x0a; // its last byte read
  const same = (last: boolean, now = fs.fstatSync(fd)) => {
    const on = now.size > listed.size && size < Infinity;
    if (now.size === listed.size ? now.mtimeMs === listed.mtimeMs : on && !(last && end !== 0x0a)) return;
    const torn = on && 'its last line was still being written when the batch began (a file still written: send a copy)';
    const how =
      now.size === listed.size ? 'written again' : torn || `${plural(listed.size, 'byte')} when listed, ${formatCount(now.size)} now`;
    throw new Damaged(`${file.name} changed while it was read`, { cause: new Error(`${it} changed while it was read: ${how}`) });
  };
  try {
    for (let [at, n] = [from ?? 0, 1]; n > 0 && at < size; at += n) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, size - at));
      n = await new Promise<number>((ok, no) => fs.read(fd, chunk, 0, chunk.length, handle ? at : null, (e, k) => (e ? no(e) : ok(k))));
      if (n > 0) end = chunk[n - 1]!;
      yield (same(false), chunk.subarray(0, n)); // a write begun sets the time first: these bytes are the listed file's
    }
    same(true); // its last line torn by a cut, or by a write still under way at its end
  } finally {
    await handle?.close();
  }
}

interface OpenOptions {
  format?: Format | undefined;
  stdin?: Readable | undefined;
  cwd?: string | undefined; // The folder the sources are named in (default: this process's).
  read?: ReadOptions | undefined; // How rows will be read: a Parquet file's columns are found when it is opened.
  afterLine?: AfterLine | undefined; // The first file's rows up to this line are not read (--after-line), held to its check.
  from?: string | undefined; // --from: the files before this one are not read
}

/**
 * A file's rows, until damage found midway: that is told to `onDamage` (the batch stops as on a signal,
 * keeping the rows read and not sent) and the file ends there. Rows are numbered from `base` when set.
 */
async function* rowsUntilDamage(name: string, { rows }: RowSource, input: Input, base?: number): AsyncGenerator<Row[], number> {
  let last = 0;
  try {
    for await (const chunk of rows) {
      for (const row of chunk) {
        if (base !== undefined) [row.file, row.at] = [name, base + row.line];
        last = row.line;
      }
      yield chunk;
    }
  } catch (error) {
    if (!(error instanceof Damaged) || !input.onDamage) throw error; // triggers check: exit 2 as it stands
    input.onDamage((input.damaged ??= { file: name, line: last, why: (error.cause as Error).message }));
  }
  return last;
}

/** After a signal: rows left to read; and the first file's rows up to `after` not read at all (--after-line), their rowsSum `check`. */
type Stop = { more?: number; until?: number; after?: number | undefined; check?: string | undefined };
/** --after-line <n>, and the check a stopped batch prints with it (<n>:<check>). */
export type AfterLine = { line: number; check?: string | undefined };

const damagedBefore = ({ file, line, why }: NonNullable<Input['damaged']>, after: number) =>
  new UsageError(`${file} could not be read past line ${line} (${why}), before line ${after} where the batch stopped; nothing was sent`, {
    hint: 'copy it whole again, then run the same command',
  });

/**
 * FNV-1a over rows' ids and values, to the line a batch stopped reading at, printed as its rest's `--after-line <n>:<check>`: read again,
 * the file must give the same (audit24: an export written anew between stop and paste sent 19,673 rows twice, as many never, silently).
 */
function rowsSum(sum: number, rows: Row[]): number {
  for (const row of rows) sum = textSum(textSum(textSum(sum, row.triggerId), row.userId), row.value); // no array a row
  return sum;
}
function textSum(sum: number, text = ''): number {
  for (let k = 0; k < text.length; k++) sum = Math.imul(sum ^ text.charCodeAt(k), 0x01000193);
  return Math.imul(sum ^ 0x1f, 0x01000193); // a separator: "ab","c" is not "a","bc"
}
const sumText = (sum: number) => (sum >>> 0).toString(16).padStart(8, '0');
const changed = (file: string, line: number) =>
  new UsageError(`${file} has changed since the batch stopped: its rows up to line ${line} are not the ones it read; nothing was sent`, {
    hint: 'run the command as printed (its --columns and --trigger too) on the file that batch read; of a file written anew, which rows were sent cannot be told',
  });

// audit24: "0 of 0 rows", exit 0, for a line past the end (a file written again with fewer rows sent nothing and said all was well).
const pastEnd = (file: string, rows: number, last: number, after: number) => {
  const message = `--after-line ${after} is past the end of ${file}: it has ${plural(rows, 'row')}${rows ? `, the last at line ${last}` : ''}`;
  return new UsageError(`${message}; nothing was sent`, { hint: 'give a line of the file: the rows after it are sent' });
};

/** Whether the rows a signal left to read (`more`), or its time, were spent before `chunk`; if not, the rows are counted down by it. */
function spent(stop: Stop, chunk: Row[]): boolean {
  if (stop.more === undefined || chunk.length === 0) return false;
  stop.more -= chunk.length;
  return stop.more + chunk.length <= 0 || Date.now() >= stop.until!;
}
const stopAt = (stop: Stop, more: number, ms = Infinity) =>
  void (stop.more === undefined && Object.assign(stop, { more, until: Date.now() + ms }));

/** A file behind standard input (`< big.csv`), read until a signal's `more` rows are spent: then it ends as a pipe stopped does. */
async function* untilSpent(rows: AsyncIterable<Row[]>, stop: Stop, mark: Stopped): AsyncGenerator<Row[]> {
  for await (const chunk of rows) {
    if (spent(stop, chunk)) return void Object.assign(mark, { stopped: true, dropped: 0 });
    yield chunk;
  }
}

/** Every file's rows in turn (`one`: a file's own; else named, numbered across files), until `stop.more` rows after a signal. */
async function* rowsOfFiles(input: Input, options: ReadOptions, stop: Stop, one?: RowSource): AsyncGenerator<Row[]> {
  let base = 0;
  for (const [i, file] of input.files.entries()) {
    const rows = rowsUntilDamage(file.name, one ?? file.read({ ...options, emptyIsNoRows: true }), input, one ? undefined : base);
    let next: IteratorResult<Row[], number>;
    let [sum, held, skips] = [0x811c9dc5, !stop.check || i > 0, 0]; // held: the rows up to --after-line are found to be those of its check
    const hold = () => {
      const damage = input.damaged; // damaged again before the line: not "changed" (review24b F2)
      if (damage?.file === file.name && damage.line < stop.after!) throw damagedBefore(damage, stop.after!);
      if (sumText(sum) !== stop.check) throw changed(file.name, stop.after!);
      held = true;
    };
    while (!(next = await rows.next()).done) {
      if (i === 0 && stop.after) {
        const skipped = next.value.filter((row) => row.line <= stop.after!);
        [sum, skips] = [rowsSum(sum, skipped), skips + skipped.length];
        if (!(next.value = next.value.slice(skipped.length)).length) continue;
      }
      if (!held) hold(); // before a row of the file is handed on
      // Once a file was damaged the rows after it are all kept: the summary prints one command for the rest, its own.
      if (!input.damaged && spent(stop, next.value)) {
        const later = input.files.slice(i + 1).map((f) => f.name);
        input.cut = { dropped: 0, file: file.name, line: next.value[0]!.line - 1, later, check: sumText(sum) };
        await rows.return(0);
        return;
      }
      sum = rowsSum(sum, next.value);
      yield next.value;
    }
    if (!held) hold(); // a file that ends before the line is not the one read either
    if (i === 0 && stop.after && next.value < stop.after && !input.damaged) throw pastEnd(file.name, skips, next.value, stop.after);
    if (input.damaged?.file === file.name) input.damaged.check ??= sumText(sum);
    base += next.value;
  }
}

/** A file's first rows (a CSV's header), read before any file's row is sent: a later part that lacks a column is exit 2 naming it. */
async function checkHeader(file: InputFile, { columns, trigger }: ReadOptions): Promise<boolean> {
  const source = file.read({ columns, trigger, emptyIsNoRows: true });
  const rows = source.rows[Symbol.asyncIterator]();
  try {
    const record = ((await rows.next()).value as Row[] | undefined)?.[0]?.record;
    const header = source.header();
    // Whether it is one of trigger's failed files, told by its error column's "line N: " words (see openInputs).
    const reason = record?.format === 'csv' ? header && record.fields?.[header.lastIndexOf('error')] : record?.object?.['error'];
    return typeof reason === 'string' && /^line \d+: /.test(reason);
  } catch (error) {
    throw error instanceof UsageError && !(error instanceof Damaged)
      ? new UsageError(`${file.name}: ${error.message}`, { hint: error.hint })
      : error;
  } finally {
    await rows.return?.(undefined);
    file.close();
  }
}

export async function openInputs(sources: string[], options: OpenOptions = {}): Promise<Input> {
  const columns = options.read?.columns !== undefined;
  if (sources.includes('-')) {
    if (sources.length > 1)
      throw new UsageError('- (standard input) cannot be read with other files', { hint: 'give the files, or pipe them all in' });
    return openStdin(options, columns);
  }
  const cwd = options.cwd ?? process.cwd();
  const files: InputFile[] = [];
  const named = new Map<string, string>(); // each file by its device and inode: the name it was given first
  let skip = options.from !== undefined; // a stopped batch's rest: a folder, from the part it stopped in (from23)
  for (const source of sources)
    for (const file of filesOf(source, cwd)) {
      const listed = fs.statSync(file.path);
      const first = named.get(`${listed.dev}:${listed.ino}`);
      // A folder and a glob of its parts, or one file by two paths: read twice, each of its rows would go twice.
      if (first !== undefined) throw new UsageError(`${file.name} is ${first} again; nothing was sent`, { hint: 'name each file once' });
      named.set(`${listed.dev}:${listed.ino}`, file.name);
      if (!(skip &&= file.path !== path.resolve(cwd, options.from!))) files.push(await openFile(file, options, listed));
    }
  const hint = "name one of them (a folder's parts, not its markers) as the stopped batch printed it, or leave --from out";
  if (skip) throw new UsageError(`--from ${options.from} is not one of the input files; nothing was sent`, { hint });
  if (files.length === 0)
    throw new UsageError(`${sources.join(' ')}: no files to read (hidden files and markers such as _SUCCESS are skipped)`);
  // Parquet's columns were found when it was opened.
  const failed: string[] = [];
  for (const file of files.length > 1 ? files : [])
    if (file.format !== 'parquet' && (await checkHeader(file, options.read ?? {}))) failed.push(file.name);
  // One of trigger's failed files beside other input (its default folder is the current one: a folder run from inside it, or
  // `export/*`): its rows would go with their own originals (a folder run twice sent every failed row twice). Alone, a replay.
  const twice = `${failed[0]}: a failed file trigger wrote: read with its folder, its rows would be sent twice; nothing was sent`;
  if (failed.length > 0 && failed.length < files.length)
    throw new UsageError(twice, { hint: 'move it out of the folder, and send it with the command its batch printed' });
  const one = files.length === 1 && sources.length === 1 && files[0]!.name === sources[0] ? files[0] : undefined;
  const parquet = files.some((f) => f.format === 'parquet');
  const normalized = !one || parquet || columns ? { file: !one } : undefined;
  const stop: Stop = { after: options.afterLine?.line, check: options.afterLine?.check };
  const input: Input = {
    files,
    sources,
    format: normalized ? 'csv' : one!.format,
    normalized,
    read: (read) => {
      const source = one?.read(read);
      return { rows: rowsOfFiles(input, read, stop, source), header: source?.header ?? (() => undefined) };
    },
    stopReading: (more, ms) => stopAt(stop, more, ms),
    // A run refused before reading (an unwritable --failed, say) lets go of the file it opened.
    close: () => one?.close(),
    cut: undefined,
  };
  return input;
}

async function openStdin(options: OpenOptions, columns: boolean): Promise<Input> {
  const given = options.stdin;
  if (given === undefined) throw new Error("a batch from - needs the command context's stdin");
  if (options.format && FORMAT_TABLE[options.format].kind === 'parquet') throw parquetOnStdin('--format parquet reads a Parquet file');
  const [mark, stop]: [Stopped, Stop] = [{ stopped: false }, {}];
  const listed = given === process.stdin ? tryOr(() => fs.fstatSync(0)) : undefined;
  const fdinfo = listed ? tryOr(() => fs.readFileSync('/proc/self/fdinfo/0', 'latin1'), '') : '';
  // `< folder` read as empty, `0>>file` (open for writing only) failed as "a bug in trigger" (EBADF): said as what they are (review28 F8).
  if (listed?.isDirectory()) throw new UsageError('standard input is a folder; nothing was sent', { hint: 'name the folder instead of -' });
  const writeOnly = (parseInt(/^flags:\s*(\d+)$/m.exec(fdinfo)?.[1] ?? '0', 8) & 3) === 1; // O_WRONLY
  if (writeOnly) throw new UsageError('standard input is open for writing only; nothing was sent', { hint: 'give the file with < file' });
  const stdin = listed?.isFile() ? undefined : stoppable(given, mark);
  // A file behind stdin (`< rows.csv`) ends, and is read as a named file is (review27b F3), from its offset (`{ head -n1; trigger batch -; }
  // < f`; Linux tells it, else to its end): unsent rows kept likewise. A pipe or a terminal may not end: reading stops at the first signal.
  const at = tryOr(() => Number(/^pos:\s*(\d+)$/m.exec(fdinfo)![1]), null);
  const file = !stdin && listed!.size ? Readable.from(bytesOf({ path: '-', name: 'standard input' }, listed!, at)) : undefined;
  const stream = Readable.from(sniffedStdin(file ?? stdin?.stream ?? given, mark), { objectMode: false });
  const sniffed = options.format ? { format: options.format, stream } : await sniff(stream);
  const input: Input = {
    files: [],
    sources: ['-'],
    format: columns ? 'csv' : sniffed.format,
    normalized: columns ? { file: false } : undefined,
    read: (read) => {
      const source = readRows(sniffed.stream, sniffed.format, { ...read, stopped: mark });
      const rows = rowsUntilDamage('standard input', source, input);
      return { ...source, rows: stdin ? rows : untilSpent(rows, stop, mark) };
    },
    stopReading: (more, ms) => (stdin ? stdin.stop() : stopAt(stop, more, ms)),
    close: () => stdin && given.destroy(),
    get cut() {
      return mark.stopped ? { dropped: mark.dropped ?? 0 } : undefined;
    },
  };
  return input;
}

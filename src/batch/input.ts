/**
 * Opening a batch input (a file or `-` for stdin) and deciding its format: --format, else the file's
 * extension, else a look at its first bytes ("{" means NDJSON, anything else CSV with a header).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { errnoWords } from '../errno.js';
import { UsageError } from '../errors.js';

export type Format = 'csv' | 'ndjson' | 'lines';
export const FORMATS: readonly Format[] = ['csv', 'ndjson', 'lines'];

const EXTENSIONS: Record<string, Format> = {
  '.csv': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'ndjson',
};

export interface Input {
  stream: Readable;
  format: Format;
  /** The file's path, or undefined for stdin. */
  file: string | undefined;
  /** Display name: the path, or "stdin". */
  name: string;
}

export function formatFromName(file: string): Format | undefined {
  return EXTENSIONS[path.extname(file).toLowerCase()];
}

/** Reads the first chunk and decides the format from it; returns a stream that still starts with it. */
async function sniff(stream: Readable): Promise<{ format: Format; stream: Readable }> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const first = await chunks.next();
  if (first.done) return { format: 'csv', stream: Readable.from([], { objectMode: false }) };
  const text = String(first.value)
    .replace(/^\uFEFF/, '')
    .trimStart();
  async function* all() {
    yield first.value;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  return { format: text.startsWith('{') ? 'ndjson' : 'csv', stream: Readable.from(all(), { objectMode: false }) };
}

export async function openInput(source: string, options: { format?: Format | undefined; stdin?: Readable } = {}): Promise<Input> {
  let stream: Readable;
  let file: string | undefined;
  if (source === '-') {
    stream = options.stdin ?? process.stdin;
  } else {
    file = source;
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(source, 'r');
      const stat = await handle.stat();
      if (stat.isDirectory()) {
        await handle.close();
        throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      }
    } catch (error) {
      const reason = errnoWords(error, 'reading');
      throw new UsageError(`cannot read ${source}: ${reason}`, { hint: 'give a CSV or NDJSON file, or - for standard input' });
    }
    stream = handle.createReadStream({ highWaterMark: 64 * 1024 });
  }
  const known = options.format ?? (file ? formatFromName(file) : undefined);
  const sniffed = known ? { format: known, stream } : await sniff(stream);
  return { stream: sniffed.stream, format: sniffed.format, file, name: file ?? 'stdin' };
}

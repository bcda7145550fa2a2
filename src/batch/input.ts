/**
 * Opening a batch input (a file or `-` for stdin) and deciding its format: --format, else the file's
 * extension, else a look at its first bytes ("{" means NDJSON, anything else CSV with a header).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
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

/** Reads the first chunk, decides the format from it, and puts it back. */
async function sniff(stream: Readable): Promise<Format> {
  const first = await new Promise<Buffer | null>((resolve, reject) => {
    const onReadable = () => {
      const chunk = stream.read() as Buffer | null;
      if (chunk === null && !stream.readableEnded) return; // not yet
      cleanup();
      resolve(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(null);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
  if (first === null) return 'csv';
  stream.unshift(first);
  const text = first.toString('utf8').replace(/^\uFEFF/, '').trimStart();
  return text.startsWith('{') ? 'ndjson' : 'csv';
}

export async function openInput(
  source: string,
  options: { format?: Format | undefined; stdin?: Readable } = {},
): Promise<Input> {
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
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message;
      throw new UsageError(`cannot read ${source}: ${reason}`, { hint: 'give a CSV or NDJSON file, or - for standard input' });
    }
    stream = handle.createReadStream({ highWaterMark: 256 * 1024 });
  }
  const format = options.format ?? (file ? formatFromName(file) : undefined) ?? (await sniff(stream));
  return { stream, format, file, name: file ?? 'stdin' };
}

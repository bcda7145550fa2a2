/**
 * Opening a batch input (a file or `-` for stdin) and deciding its format: --format, else the file's
 * extension, else a look at its first bytes ("{" means NDJSON, anything else CSV with a header).
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { errnoWords } from '../errno.js';
import { UsageError } from '../errors.js';

import { formatFromName, type Format } from './formats.js';

export type { Format } from './formats.js';

export interface Input {
  stream: Readable;
  format: Format;
  /** The file's path, or undefined for stdin. */
  file: string | undefined;
  /** Display name: the path, or "stdin". */
  name: string;
  /**
   * Stops reading standard input (the first signal): what was already read is still handed on, up to
   * its last whole line, and then the input ends. A file is always read to its end.
   */
  stopReading(): void;
  /** Lets go of standard input at once, read or not (a run that ends with an error). */
  close(): void;
  /** Set when reading stopped before the end of the input: the bytes of a partial last line dropped. */
  cut: { dropped: number } | undefined;
}

/** Held back while no newline comes, at most: a longer line is the line reader's to report. */
const MAX_HELD = 2 * 1024 * 1024;

/**
 * Standard input, a whole line at a time, until it ends or `stop()` is called. A pipe whose
 * producer is still writing never ends by itself: without this a batch kept reading after SIGTERM
 * until it was killed (timeout -k, Kubernetes), and every row it had read was lost. After `stop()`
 * the bytes already taken from the pipe are handed on up to their last newline; a partial line after
 * it is dropped (and counted), never sent cut short; the rest is the producer's.
 */
function stoppable(source: Readable): { stream: Readable; stop(): void; close(): void; cut(): { dropped: number } | undefined } {
  let stopRequested = false;
  let ended = false;
  let failure: unknown;
  let cut: { dropped: number } | undefined;
  let wake: (() => void) | undefined;
  const wakeUp = () => wake?.();
  async function* chunks(): AsyncGenerator<Buffer> {
    // Listening starts with the first read, so a run that ends before reading leaves stdin alone.
    source.on('readable', wakeUp);
    source.on('end', () => {
      ended = true;
      wakeUp();
    });
    source.on('error', (error) => {
      failure = error;
      wakeUp();
    });
    let held: Buffer | undefined;
    const take = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      held = held ? Buffer.concat([held, bytes]) : bytes;
    };
    for (;;) {
      let chunk: Buffer | string | null;
      while ((chunk = source.read() as Buffer | string | null) === null && !ended && !stopRequested && failure === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
      if (failure !== undefined) throw failure;
      if (chunk !== null) take(chunk);
      if (stopRequested && !ended) {
        for (let more = source.read() as Buffer | string | null; more !== null; more = source.read() as Buffer | string | null) take(more);
        const end = held ? held.lastIndexOf(10) + 1 : 0;
        cut = { dropped: (held?.length ?? 0) - end };
        source.destroy();
        if (end > 0) yield held!.subarray(0, end);
        return;
      }
      if (chunk === null) {
        if (held) yield held; // the end of the input: a last line without a newline is whole
        return;
      }
      const end = held!.lastIndexOf(10) + 1;
      if (end === 0 && held!.length < MAX_HELD) continue;
      const whole = end === 0 ? held!.length : end;
      const out = held!.subarray(0, whole);
      held = whole < held!.length ? held!.subarray(whole) : undefined;
      yield out;
    }
  }
  return {
    stream: Readable.from(chunks(), { objectMode: false }),
    stop: () => {
      stopRequested = true;
      wakeUp();
    },
    close: () => source.destroy(),
    cut: () => cut,
  };
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

function stdinIsFile(): boolean {
  try {
    return fs.fstatSync(0).isFile();
  } catch {
    return false;
  }
}

export async function openInput(source: string, options: { format?: Format | undefined; stdin?: Readable } = {}): Promise<Input> {
  let stream: Readable;
  let file: string | undefined;
  let stdin: ReturnType<typeof stoppable> | undefined;
  if (source === '-') {
    const given = options.stdin ?? process.stdin;
    // A file behind stdin (`< rows.csv`) ends, so it is read to its end like a named file: its unsent
    // rows are all kept. A pipe or a terminal may not end: reading stops at the first signal.
    const isFile = given === process.stdin && stdinIsFile();
    if (isFile) stream = given;
    else {
      stdin = stoppable(given);
      stream = stdin.stream;
    }
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
  return {
    stream: sniffed.stream,
    format: sniffed.format,
    file,
    name: file ?? 'stdin',
    stopReading: () => stdin?.stop(),
    close: () => stdin?.close(),
    get cut() {
      return stdin?.cut();
    },
  };
}

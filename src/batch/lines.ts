/**
 * The lines of a byte stream, found with indexOf over bytes and decoded as strict UTF-8. Every row reader starts here, so the guarantees
 * hold for all formats: time linear in the input, memory flat (a line over MAX_LINE_BYTES is reported, not held), and bytes that are not
 * UTF-8 make their line invalid instead of reaching the service as U+FFFD.
 */
import type { Readable } from 'node:stream';
import { UsageError } from '../errors.js';
import { shellQuote } from '../output/render.js';

export const MAX_LINE_BYTES = 1024 * 1024;
const CR = Buffer.from('\r');

const KEPT_OF_LONG_LINE = 1024; // How much of an over-long line is kept, for the failed file and the message.

/**
 * Input is handed on 4 KiB at a time (about 190 rows of a typical CSV). A pipe delivers 64 KiB and a file stream more; the rows made from
 * one piece are all alive at once, they outlive V8's young collections, and the more of them, the more V8 grows its heap and the more time
 * it spends copying them: smaller pieces keep peak memory and CPU time down (figures: docs/performance.md).
 */
const SLICE_BYTES = 4 * 1024;

/** A line that cannot be read as text: not UTF-8, or too long to hold. */
export interface BadLine {
  line: number;
  reason: string;
  raw: string; // The line as far as it is kept, bad bytes shown as U+FFFD.
}

/** The lines read from one slice: texts in order (each without its "\n"; a "\r" before it stays). */
export interface LineChunk {
  first: number; // The number of items[0] (1-based).
  items: Array<string | BadLine>;
}

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** For line 1, whose byte-order mark (Excel's "CSV UTF-8" writes one) is no part of its text: dropped here, for every reader. */
const lineOne = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

function decodeLine(bytes: Uint8Array, line: number): string | BadLine {
  try {
    return (line === 1 ? lineOne : strict).decode(bytes);
  } catch {
    const raw = lenient.decode(bytes);
    // The first replacement character marks the first bad sequence (a U+FFFD that was in the input
    // itself would come first only if it stood earlier; the message is a pointer, not a proof).
    const at = Buffer.byteLength(raw.slice(0, Math.max(0, raw.indexOf('\uFFFD'))));
    const byte = `byte ${at + 1} (0x${(bytes[at] ?? 0).toString(16).toUpperCase().padStart(2, '0')})`;
    return { line, reason: `not valid UTF-8 text at ${byte}; save the file as UTF-8`, raw };
  }
}

/**
 * The encoding of text that starts with these bytes, when it is UTF-16 or UTF-32 (as Excel's "Unicode text" and PowerShell 5's `>` write
 * it): its NULs and byte-order mark would otherwise be reported as a broken header on line 2.
 */
export function wideEncoding(bytes: Uint8Array): string | undefined {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe) return c === 0 && d === 0 ? 'UTF-32' : 'UTF-16';
  if (a === 0xfe && b === 0xff) return 'UTF-16';
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return 'UTF-32';
  if (bytes.length >= 4 && ((a !== 0 && b === 0 && d === 0) || (a === 0 && b !== 0 && c === 0))) return 'UTF-16';
  return undefined;
}

/** The start of a line that a slice did not end: held until its newline comes, up to MAX_LINE_BYTES. */
class PartialLine {
  #pending: Buffer[] = []; // Its bytes so far; once it is known to be too long, its start only, for the failed file.
  bytes = 0; // Its length so far (0: no line is open).

  hold(bytes: Buffer): void {
    const long = this.bytes > MAX_LINE_BYTES;
    this.bytes += bytes.length;
    if (long || bytes.length === 0) return;
    this.#pending.push(Buffer.from(bytes)); // a copy: the slice's memory may be reused by the stream
    // A copy of the start only: a view would keep the whole megabyte alive until the line ends.
    if (this.bytes > MAX_LINE_BYTES) this.#pending = [Buffer.from(Buffer.concat(this.#pending).subarray(0, KEPT_OF_LONG_LINE))];
  }

  /** The whole line, ended by `tail`, as line number `line`. */
  finish(tail: Uint8Array, line: number): string | BadLine {
    const total = this.bytes + tail.length;
    const bytes = Buffer.concat([...this.#pending, tail]);
    this.#pending = [];
    this.bytes = 0;
    if (total <= MAX_LINE_BYTES) return decodeLine(bytes, line);
    return {
      line,
      reason: `the line is ${total.toLocaleString('en-US')} bytes, over the 1 MiB limit; only its first ${KEPT_OF_LONG_LINE} bytes are kept`,
      raw: lenient.decode(bytes.subarray(0, KEPT_OF_LONG_LINE)),
    };
  }
}

/** Adds the lines of `bytes` (whole lines, the last newline left out) to `items`; returns how many. */
function wholeLines(bytes: Uint8Array, line: number, items: Array<string | BadLine>): number {
  // A newline never splits a UTF-8 sequence, so the whole lines of a slice decode together.
  try {
    const lines = (line === 1 ? lineOne : strict).decode(bytes).split('\n');
    for (const text of lines) items.push(text);
    return lines.length;
  } catch {
    let n = 0;
    for (let from = 0; from <= bytes.length; n++) {
      let end = bytes.indexOf(10, from);
      if (end < 0) end = bytes.length;
      items.push(decodeLine(bytes.subarray(from, end), line + n));
      from = end + 1;
    }
    return n;
  }
}

/** Standard input a signal stopped (input.ts): a last line the stop cut short is dropped, its bytes counted, not read as a shorter one. */
export interface Stopped {
  stopped: boolean;
  dropped?: number;
}

export async function* readLines(stream: Readable, stop?: Stopped, name?: string): AsyncGenerator<LineChunk> {
  let next = 1; // the number of the next line to hand out
  const partial = new PartialLine();
  let [first, crOnly, cr] = [true, undefined as boolean | undefined, false];
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    let all = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const wide = first ? wideEncoding(all) : undefined;
    first = false;
    // Lines ended by CR alone (an old Mac's "CSV (Macintosh)"), told by the first piece that ends a line: read as `tr '\r' '\n'` would
    // (was: one line, no rows, exit 0). A CR ending a piece may be half a CRLF a pipe split: it waits for the next (was: line 1 ran on).
    if (cr) all = Buffer.concat([CR, all]);
    crOnly ??= all.includes(10) ? false : all.subarray(0, -1).includes(13) || undefined;
    cr = crOnly === undefined && all.at(-1) === 13;
    if (cr) all = all.subarray(0, -1);
    if (crOnly) all = Buffer.from(all.toString('latin1').replaceAll('\r', '\n'), 'latin1'); // byte for byte
    if (wide) {
      const [file, to] = [shellQuote(name ?? ''), shellQuote(`${name?.replace(/(\.[a-z0-9]+)+$/i, '')}-utf8.csv`)];
      const cat = { gz: 'gzip', zst: 'zstd' }[/\.(gz|zst)$/i.exec(name ?? '')?.[1]?.toLowerCase() ?? ''];
      const iconv = `iconv -f ${wide} -t UTF-8`;
      const convert = !name ? `pipe it through ${iconv}` : cat ? `${cat} -dc ${file} | ${iconv} > ${to}` : `${iconv} ${file} > ${to}`;
      const hint = `save it as UTF-8 (in Excel: "CSV UTF-8"), or convert it: ${convert}`;
      throw new UsageError(`${name ?? 'standard input'} is ${wide} text, not UTF-8; nothing was sent`, { hint });
    }
    for (let at = 0; at < all.length; at += SLICE_BYTES) {
      const slice = all.subarray(at, at + SLICE_BYTES);
      const firstNewline = slice.indexOf(10);
      if (firstNewline < 0) {
        partial.hold(slice);
        continue;
      }
      const chunkFirst = next;
      const items: Array<string | BadLine> = [];
      let start = 0;
      if (partial.bytes > 0) {
        items.push(partial.finish(slice.subarray(0, firstNewline), next++));
        start = firstNewline + 1;
      }
      const lastNewline = slice.lastIndexOf(10);
      if (lastNewline >= start) {
        next += wholeLines(slice.subarray(start, lastNewline), next, items);
        start = lastNewline + 1;
      }
      partial.hold(slice.subarray(start));
      if (items.length) yield { first: chunkFirst, items };
    }
  }
  if (cr) partial.hold(CR);
  if (stop?.stopped) stop.dropped = partial.bytes;
  else if (partial.bytes > 0) yield { first: next, items: [partial.finish(new Uint8Array(0), next)] };
}

export const withoutCr = (line: string): string => (line.endsWith('\r') ? line.slice(0, -1) : line);

/**
 * Decoding a compressed answer (Content-Encoding gzip, deflate, br, and zstd where Node has it). The
 * tool sends no Accept-Encoding, which by RFC 9110 accepts any coding, so a proxy or a CDN may compress.
 * The body limit applies to the decoded size: decoding stops there, so a small body that expands to
 * gigabytes holds no more than the limit in memory. node:zlib is loaded only for such an answer.
 */
import type { Transform } from 'node:stream';
import type * as Zlib from 'node:zlib';

export type Coding = 'gzip' | 'deflate' | 'br' | 'zstd';

/**
 * The coding a Content-Encoding header names: undefined for none (`identity` or empty), a Coding, or
 * `{ unsupported }` for one the tool cannot decode (`compress`, several codings in a row).
 */
export function contentCoding(header: string): Coding | undefined | { unsupported: string } {
  const value = header.trim().toLowerCase();
  if (value === '' || value === 'identity') return undefined;
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  if (value === 'deflate' || value === 'br') return value;
  if (value === 'zstd' && typeof (zlib() as Partial<Record<string, unknown>>).createZstdDecompress === 'function') return 'zstd';
  return { unsupported: value };
}

// getBuiltinModule is synchronous and skips the module loader (Node 20.16+; engines ask 20.19).
const zlib = (): typeof Zlib => process.getBuiltinModule('node:zlib');

/** The error for a body that could not be decoded. */
export class DecodeError extends Error {
  readonly code = 'ERR_BODY_DECODE';
  constructor(coding: string, cause: unknown, unsupported = false) {
    super(unsupported ? `its body is encoded with "${coding}", which the tool cannot decode` : `its ${coding}-encoded body is corrupt`, {
      cause,
    });
    this.name = 'DecodeError';
  }
}

/** What a body decoded to: at most `limit` bytes, whether more was cut off, and the error if it broke off. */
export interface Decoded {
  body: Buffer;
  truncated: boolean;
  error: DecodeError | undefined;
}

/**
 * One body being decoded as it arrives. `done` is called once: when the input ended and all of it
 * was decoded, when the decoded size passed the limit (the rest is dropped), or on a decoding error
 * (for a coding the tool cannot decode, when the input ended).
 */
export class BodyDecoder {
  readonly #coding: Coding | { unsupported: string };
  readonly #limit: number;
  readonly #done: (decoded: Decoded) => void;
  #stream: Transform | undefined;
  #parts: Buffer[] = [];
  #size = 0;
  #finished = false;

  constructor(coding: Coding | { unsupported: string }, limit: number, done: (decoded: Decoded) => void) {
    this.#coding = coding;
    this.#limit = limit;
    this.#done = done;
  }

  /** The stream for the coding; for deflate, zlib-wrapped (as RFC 9110 says) or raw (as some servers send). */
  #open(first: Buffer, coding: Coding): Transform {
    const z = zlib();
    const flush = { finishFlush: z.constants.Z_SYNC_FLUSH }; // a body cut short decodes as far as it goes
    const wrapped = (first[0]! & 0x0f) === 8 && (first.length < 2 || ((first[0]! << 8) | first[1]!) % 31 === 0);
    const stream = {
      gzip: () => z.createGunzip(flush),
      deflate: () => (wrapped ? z.createInflate(flush) : z.createInflateRaw(flush)),
      br: () => z.createBrotliDecompress({ finishFlush: z.constants.BROTLI_OPERATION_FLUSH }),
      zstd: () => (z as unknown as { createZstdDecompress(): Transform }).createZstdDecompress(),
    }[coding]();
    stream.on('data', (chunk: Buffer) => this.#take(chunk));
    stream.on('end', () => this.#finish(false, undefined));
    stream.on('error', (error) => this.#finish(false, new DecodeError(coding, error)));
    return stream;
  }

  #take(chunk: Buffer): void {
    if (this.#finished) return;
    const room = this.#limit - this.#size;
    if (chunk.length > room) {
      if (room > 0) this.#parts.push(chunk.subarray(0, room));
      this.#size = this.#limit;
      this.#finish(true, undefined);
      return;
    }
    this.#parts.push(chunk);
    this.#size += chunk.length;
  }

  #finish(truncated: boolean, error: DecodeError | undefined): void {
    if (this.#finished) return;
    this.#finished = true;
    const body = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts);
    this.destroy();
    this.#done({ body, truncated, error });
  }

  write(chunk: Buffer): void {
    const coding = this.#coding;
    if (this.#finished || chunk.length === 0 || typeof coding === 'object') return;
    (this.#stream ??= this.#open(chunk, coding)).write(chunk);
  }

  /** The input ended. */
  end(): void {
    if (this.#finished) return;
    if (typeof this.#coding === 'object') this.#finish(false, new DecodeError(this.#coding.unsupported, undefined, true));
    else if (this.#stream) this.#stream.end();
    else this.#finish(false, undefined); // an empty body
  }

  /** Drops the decoder and what it held (the attempt ended otherwise). */
  destroy(): void {
    this.#parts = [];
    const stream = this.#stream;
    this.#stream = undefined;
    if (stream) {
      stream.removeAllListeners('data');
      stream.on('error', () => {}); // an error after this is nobody's concern
      stream.destroy();
    }
  }
}

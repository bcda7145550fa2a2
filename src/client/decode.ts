/**
 * Decoding a compressed answer (Content-Encoding gzip, deflate, br, and zstd where Node has it). The tool sends no Accept-Encoding, which
 * by RFC 9110 accepts any coding, so a proxy or a CDN may compress. The body limit applies to the decoded size (the Attempt keeps the
 * decoded bytes as it keeps a plain body's): decoding stops there, so a small body that expands to gigabytes holds no more than the limit
 * in memory. node:zlib is loaded only for such an answer.
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

export class DecodeError extends Error {
  readonly code = 'ERR_BODY_DECODE';
  constructor(coding: string, cause: unknown, unsupported = false) {
    super(unsupported ? `its body is encoded with "${coding}", which the tool cannot decode` : `its ${coding}-encoded body is corrupt`, {
      cause,
    });
    this.name = 'DecodeError';
  }
}

/**
 * The stream that decodes a body in `coding`, made when its first bytes come: for deflate, zlib-wrapped (as RFC 9110 says) or raw (as some
 * servers send), told apart by those bytes. A body cut short decodes as far as it goes.
 */
export function decoderFor(coding: Coding, first: Buffer): Transform {
  const z = zlib();
  const flush = { finishFlush: z.constants.Z_SYNC_FLUSH };
  const wrapped = (first[0]! & 0x0f) === 8 && (first.length < 2 || ((first[0]! << 8) | first[1]!) % 31 === 0);
  return {
    gzip: () => z.createGunzip(flush),
    deflate: () => (wrapped ? z.createInflate(flush) : z.createInflateRaw(flush)),
    br: () => z.createBrotliDecompress({ finishFlush: z.constants.BROTLI_OPERATION_FLUSH }),
    zstd: () => (z as unknown as { createZstdDecompress(): Transform }).createZstdDecompress(),
  }[coding]();
}

/**
 * A .zst with bytes after its last frame that are not zstd (a log line appended, a tool's padding), read as a .gz with trailing
 * garbage is since inputs22: every row before the bytes is sent, then a stop naming them and the size to cut the file to
 * (`truncate -s S F`); cut, the printed command for the rest sends nothing again. Zeros alone are padding, read as the end.
 * Was: "damaged after line N: its later rows could not be read; copy it whole again" (there are none, and the copy may be whole),
 * with no size to cut to, and for under 8 bytes the decompressor's words ("Unknown frame descriptor") or "it ends within a frame";
 * zeros were damage too. Skipped on a Node without zstd (20).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openInputs } from '../../src/batch/input.js';
import { pasteRestTwice } from '../helpers/batch.js';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const compress = (zlib as { zstdCompressSync?: (input: Buffer, options?: object) => Buffer }).zstdCompressSync;
const CHECKSUM = 201; // ZSTD_c_checksumFlag
const rows = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `purchase,u${from + i},${from + i}\n`).join('');
/** Frames of `counts` rows each, the first with the header (and a checksum, as zstd's tool writes by default). */
const frames = (counts: number[]) =>
  counts.map((count, i) =>
    compress!(Buffer.from(`${i ? '' : 'triggerId,userId,value\n'}${rows(count, i * 10_000)}`), { params: { [CHECKSUM]: 1 } }),
  );
const usersOf = (counts: number[]) => counts.flatMap((count, i) => Array.from({ length: count }, (_, j) => `u${i * 10_000 + j}`));

async function batch(data: Buffer[], tail: Buffer) {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'part-0.csv.zst');
  fs.writeFileSync(file, Buffer.concat([...data, tail]));
  const failed = path.join(sandbox.home, 'failed.csv');
  const result = await runCommand(['batch', file, '--concurrency', '4', '--failed', failed], sandbox.env, sandbox.home);
  const kept = fs.existsSync(failed) ? (fs.readFileSync(failed, 'utf8').match(/^purchase,u\d+/gm) ?? []) : [];
  const users = server.requests.map((r) => decodeURIComponent(r.url.split('/')[5] ?? ''));
  return { ...result, file, users, kept: kept.map((k) => k.slice('purchase,'.length)) };
}

describe.runIf(compress !== undefined)('a .zst with bytes after its last frame that are not zstd', () => {
  it.each([
    ['a small file, a line appended', [20], '<html>403 Forbidden</html>\n'],
    ['a file of three frames', [1_500, 1_200, 5], '<html>403 Forbidden</html>\n'],
    ['one newline', [20], '\n'],
    ['4 bytes (fewer than a frame header)', [20], 'abc\n'],
    ['bytes that start as a frame does, "("', [20], '(not zstd)'],
  ])('%s: every row sent or kept once, a stop naming the bytes and how to cut them off, exit 2', async (_what, counts, tail) => {
    const data = frames(counts);
    const result = await batch(data, Buffer.from(tail));
    const total = counts.reduce((a, b) => a + b);
    expect(result.code).toBe(2);
    const at = Buffer.concat(data).length;
    const why = `trailing garbage: the bytes after zstd frame ${counts.length} are not zstd (${tail.length} of them); every row before them was read`;
    expect(result.stderr).toContain(
      `could not be read past line ${total + 1} (${why}; cut them off with: truncate -s ${at} ${result.file})`,
    );
    expect(result.stdout).not.toContain('its later rows could not be read');
    expect(result.stdout).toContain(`has bytes after line ${total + 1} that are not zstd: every row before them was read; cut them off`);
    expect([...result.users, ...result.kept].sort()).toEqual(usersOf(counts).sort());
    // The printed command for the rest, pasted twice once the bytes are cut off: it passes `zstd -t` and sends nothing again.
    fs.truncateSync(result.file, at);
    expect(fs.readFileSync(result.file).equals(Buffer.concat(data))).toBe(true); // the frames whole, as zstd -t finds them
    await pasteRestTwice(
      result.stdout,
      `zstd -t ${result.file}`,
      (args) => runCommand(args, sandbox.env, sandbox.home),
      () => server.requests.length,
    );
  });

  it('zeros after the last frame are padding: every row sent, exit 0', async () => {
    const result = await batch(frames([20]), Buffer.alloc(512));
    expect(result.code).toBe(0);
    expect(result.users.sort()).toEqual(usersOf([20]).sort());
  });
});

/** Standard input given in these pieces: its user ids as read, and the error that ended them, if one did. */
async function read(pieces: Buffer[]) {
  const input = await openInputs(['-'], { stdin: Readable.from(pieces) });
  const users: string[] = [];
  try {
    for await (const chunk of input.read({}).rows) users.push(...chunk.map((row) => row.userId!));
  } catch (error) {
    return { users, error: (error as Error).message };
  }
  return { users, error: undefined };
}

describe.runIf(compress !== undefined)('zstd frames walked across pieces however a pipe splits them', () => {
  it('cut anywhere near the end of a frame, the next frame is read whole and bytes after the last are named', async () => {
    const [first, second] = frames([30, 20]);
    const tail = Buffer.from('(garbage');
    const whole = Buffer.concat([first!, second!, tail]);
    const near = (end: number) => Array.from({ length: 24 }, (_, k) => end - 12 + k);
    for (const cut of [...near(first!.length), ...near(first!.length + second!.length)]) {
      const result = await read([whole.subarray(0, cut), whole.subarray(cut)]);
      expect({ cut, ...result }).toEqual({
        cut,
        users: usersOf([30, 20]),
        error: `standard input: the zstd data cannot be read on (trailing garbage: the bytes after zstd frame 2 are not zstd (${tail.length} of them); every row before them was read); nothing was sent`,
      });
    }
  });

  it('zeros after the last frame, in any piece, are the end', async () => {
    const whole = Buffer.concat([...frames([30]), Buffer.alloc(40)]);
    for (const cut of [whole.length - 41, whole.length - 40, whole.length - 39, whole.length - 1])
      expect(await read([whole.subarray(0, cut), whole.subarray(cut)])).toEqual({ users: usersOf([30]), error: undefined });
  });
});

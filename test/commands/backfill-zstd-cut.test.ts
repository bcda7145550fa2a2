/**
 * A .zst part cut short (a copy that stopped midway), and one of several frames (`cat a.zst b.zst`,
 * pzstd, a writer that flushes frames). Node 22's zstd decompressor ends a cut frame without an
 * error, and Node's decompressor (22 and 24) reads one frame and ends. docs/batch.md: "Damage found
 * midway (a .gz cut short) stops the batch with exit 2 naming the file". Skipped on a Node without zstd (20).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const compress = (zlib as { zstdCompressSync?: (input: Buffer, options?: object) => Buffer }).zstdCompressSync;
const CHECKSUM = 201; // ZSTD_c_checksumFlag
const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `purchase,u${from + i},${from + i}\n`).join('');
/** The requests whose value is not the one their user's row holds (u12 sends 12). */
const wrong = () =>
  server.requests
    .filter((r) => r.body !== `{"value":${decodeURIComponent(r.url.split('/')[5] ?? '').slice(1)}}`)
    .map((r) => `${r.url} ${r.body}`);

async function batch(bytes: Buffer) {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'part-0.csv.zst');
  fs.writeFileSync(file, bytes);
  return runCommand(['batch', file, '--concurrency', '16'], sandbox.env, sandbox.home);
}

describe.runIf(compress !== undefined)('zstd', () => {
  it('cut short: exit 2 naming the file; the cut last line is never sent', async () => {
    const whole = compress!(Buffer.from(`triggerId,userId,value\n${rows(0, 20_000)}`));
    const result = await batch(whole.subarray(0, Math.floor(whole.length / 2)));
    // Was (Node 22.23.3): exit 0, "N accepted of N rows", the cut last line sent with a cut value.
    expect(wrong()).toEqual([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('part-0.csv.zst could not be read past line');
  });

  const frames = () => [
    compress!(Buffer.from(`triggerId,userId,value\n${rows(0, 1_500)}`), { params: { [CHECKSUM]: 1 } }),
    compress!(Buffer.from(rows(1_500, 2_700))),
  ];

  it('several frames: every row of every frame is sent', async () => {
    const result = await batch(Buffer.concat(frames()));
    // Was (Node 22 and 24): the first frame's 1,500 rows, then the end, exit 0.
    expect(server.requests).toHaveLength(2_700);
    expect(wrong()).toEqual([]);
    expect(result.code).toBe(0);
  });

  it.each([
    ['in the second frame', (first: Buffer, second: Buffer) => Buffer.concat([first, second.subarray(0, second.length >> 1)])],
    ['before the first frame checksum', (first: Buffer) => first.subarray(0, first.length - 4)],
    ['after the second frame header', (first: Buffer, second: Buffer) => Buffer.concat([first, second.subarray(0, 9)])],
  ])('cut %s: exit 2, no cut line sent', async (_where, cut) => {
    const [first, second] = frames();
    const result = await batch(cut(first!, second!));
    expect(wrong()).toEqual([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('part-0.csv.zst could not be read past line');
  });
});

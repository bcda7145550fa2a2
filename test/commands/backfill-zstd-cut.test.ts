/**
 * A .zst part cut short (a copy that stopped midway). Node 22's zstd decompressor ends a cut frame
 * without an error; docs/batch.md: "Damage found midway (a .gz cut short) stops the batch with exit 2
 * naming the file". Skipped on a Node without zstd (20); fails on Node 22.23, passes on 24.
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

const compress = (zlib as { zstdCompressSync?: (input: Buffer) => Buffer }).zstdCompressSync;

describe('zstd cut short', () => {
  it.runIf(compress !== undefined)('exit 2 naming the file; the cut last line is never sent', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const rows = Array.from({ length: 20_000 }, (_, i) => `purchase,u${i},${i}`).join('\n');
    const whole = compress!(Buffer.from(`triggerId,userId,value\n${rows}\n`));
    const cut = path.join(sandbox.home, 'part-0.csv.zst');
    fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const result = await runCommand(['batch', cut, '--concurrency', '16'], sandbox.env);
    // Was (Node 22.23.3): exit 0, "N accepted of N rows", the cut last line sent with a cut value.
    const wrong = server.requests.filter((r) => r.body !== `{"value":${decodeURIComponent(r.url.split('/')[5] ?? '').slice(1)}}`);
    expect(wrong.map((r) => `${r.url} ${r.body}`)).toEqual([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('part-0.csv.zst: the zstd data cannot be read on');
  });
});

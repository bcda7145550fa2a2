/**
 * pzstd (zstd's parallel tool) starts its output with a skippable frame, which every zstd reader passes over; a .zst
 * so made was refused as "not zstd data (its first bytes are 50 2a 4d 18)", with a hint to rename it (inputs20).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const zstd = (zlib as { zstdCompressSync?: (data: Buffer) => Buffer }).zstdCompressSync;

it.runIf(zstd !== undefined)('a .zst that starts with a skippable frame (pzstd) is read', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const skippable = Buffer.alloc(12);
  skippable.writeUInt32LE(0x184d2a50, 0);
  skippable.writeUInt32LE(4, 4);
  const file = path.join(sandbox.home, 'p.csv.zst');
  fs.writeFileSync(file, Buffer.concat([skippable, zstd!(Buffer.from('triggerId,userId\nt,a\nt,b\n'))]));
  const result = await runCommand(['batch', file, '--concurrency', '1'], sandbox.env);
  expect(result.code).toBe(0);
  expect(server.requests).toHaveLength(2);
});

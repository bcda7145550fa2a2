/**
 * A .gz with bytes after its last member that are not gzip (a copy with something appended, a
 * writer's padding that is not zeros): `gzip -dc` reads its rows and warns "trailing garbage
 * ignored" (exit 2). Node's gunzip fails on them and loses what it inflated last, so the batch stops
 * as on a .gz cut short (docs/batch.md "Damage found midway"): the rows read are sent or kept, the
 * summary names the file, the line, and what is wrong, and prints the command for the rest. Zeros
 * after the last member are padding, read as the end.
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

/** Rows of 200 bytes: 600 of them inflate to more than one piece of Node's gunzip output (64 KB). */
const rows = (count: number) => Array.from({ length: count }, (_, i) => `purchase,u${i}-${'x'.repeat(180)},${i}\n`).join('');

async function batch(count: number, tail: Buffer) {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'part-0.csv.gz');
  fs.writeFileSync(file, Buffer.concat([zlib.gzipSync(`triggerId,userId,value\n${rows(count)}`), tail]));
  const failed = path.join(sandbox.home, 'failed.csv');
  const result = await runCommand(['batch', file, '--concurrency', '4', '--failed', failed], sandbox.env, sandbox.home);
  const kept = fs.existsSync(failed) ? (fs.readFileSync(failed, 'utf8').match(/^purchase,u\d+/gm) ?? []) : [];
  const users = server.requests.map((r) => decodeURIComponent(r.url.split('/')[5] ?? '').split('-')[0]!);
  return { ...result, file, users, kept: kept.map((k) => k.slice('purchase,'.length)) };
}

describe('a .gz with bytes after its last member that are not gzip', () => {
  it.each([
    ['a small file', 20],
    ['a file of several inflated pieces', 600],
  ])('%s: a damage stop that says trailing garbage, every row read sent or kept once, exit 2', async (_what, count) => {
    const result = await batch(count, Buffer.from('<html>403 Forbidden</html>\n'));
    expect(result.code).toBe(2);
    // Was: "could not be read on after line 0 (incorrect header check)", zlib's words for the bytes after the member.
    expect(result.stderr).toContain(`stopping: ${result.file} could not be read on after line`);
    expect(result.stderr).toContain('(trailing garbage: bytes not gzip after a member)');
    const line = Number(/is damaged after line (\d+)/.exec(result.stdout)?.[1]);
    expect(line).toBeLessThanOrEqual(count + 1);
    // The rows read (lines 2 to `line`) are each sent or kept once; the summary's command sends the rest.
    expect(new Set([...result.users, ...result.kept]).size).toBe(Math.max(line - 1, 0));
    expect(result.users.length + result.kept.length).toBe(Math.max(line - 1, 0));
    if (count === 600) expect(line).toBeGreaterThan(1);
  });

  it('a first header that is gzip only by its magic is not called trailing garbage', async () => {
    const whole = zlib.gzipSync(`triggerId,userId,value\n${rows(20)}`);
    whole[2] = 7; // the compression method: 8 (deflate) is the only one
    const file = path.join(sandbox.home, 'bad.csv.gz');
    fs.writeFileSync(file, whole);
    const result = await runCommand(['batch', file], sandbox.env, sandbox.home);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('(unknown compression method)');
    expect(server.requests).toHaveLength(0);
  });

  it('zeros after the last member are padding: every row sent, exit 0', async () => {
    const result = await batch(20, Buffer.alloc(512));
    expect(result.code).toBe(0);
    expect(result.users.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `u${i}`).sort());
  });
});

/**
 * A .gz with bytes after its last member that are not gzip (a copy with something appended, a
 * writer's padding that is not zeros): `gzip -dc` reads its rows and warns "trailing garbage
 * ignored" (exit 2). trigger reads the members itself, so every row before the bytes is read (Node's
 * gunzip lost what it inflated last: all of a small file's), then stops as on a .gz cut short
 * (docs/batch.md "Damage found midway"), naming the bytes and the size to cut the file to; cut, the
 * printed command for the rest passes `gzip -t` and sends nothing again. Zeros after the last member
 * are padding, read as the end.
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

/** Rows of 200 bytes: 600 of them inflate to more than one piece of Node's gunzip output (64 KB). */
const rows = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `purchase,u${from + i}-${'x'.repeat(180)},${i}\n`).join('');

async function batch(members: Buffer[], tail: Buffer) {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'part-0.csv.gz');
  fs.writeFileSync(file, Buffer.concat([...members, tail]));
  const failed = path.join(sandbox.home, 'failed.csv');
  const result = await runCommand(['batch', file, '--concurrency', '4', '--failed', failed], sandbox.env, sandbox.home);
  const kept = fs.existsSync(failed) ? (fs.readFileSync(failed, 'utf8').match(/^purchase,u\d+/gm) ?? []) : [];
  const users = server.requests.map((r) => decodeURIComponent(r.url.split('/')[5] ?? '').split('-')[0]!);
  return { ...result, file, users, kept: kept.map((k) => k.slice('purchase,'.length)) };
}

describe('a .gz with bytes after its last member that are not gzip', () => {
  it.each([
    ['a small file', [20]],
    ['a file of several inflated pieces', [600]],
    ['a file of three members', [300, 300, 5]],
  ])('%s: every row sent or kept once, a damage stop that names the bytes and how to cut them off, exit 2', async (_what, counts) => {
    const members = counts.map((count, i) => zlib.gzipSync(`${i ? '' : 'triggerId,userId,value\n'}${rows(count, i * 1000)}`));
    const result = await batch(members, Buffer.from('<html>403 Forbidden</html>\n'));
    const total = counts.reduce((a, b) => a + b);
    expect(result.code).toBe(2);
    // Was: "after line 0 (incorrect header check)" for 20 rows, Node's gunzip losing what it inflated last.
    const at = Buffer.concat(members).length;
    const why = `trailing garbage: the bytes after gzip member ${counts.length} are not gzip (27 of them); every row before them was read`;
    expect(result.stderr).toContain(
      `could not be read past line ${total + 1} (${why}; cut them off with: truncate -s ${at} ${result.file})`,
    );
    // Not "damaged ... its later rows could not be read; copy it whole again": there are none, and the copy may be whole.
    expect(result.stdout).toContain(`has bytes after line ${total + 1} that are not gzip: every row before them was read`);
    expect(result.stdout).not.toContain('its later rows could not be read');
    // Every row is sent or kept once: none is left to the command for the rest.
    expect(new Set([...result.users, ...result.kept]).size).toBe(total);
    expect(result.users.length + result.kept.length).toBe(total);
    // The printed command for the rest, pasted twice once the bytes are cut off: it sends nothing again.
    fs.truncateSync(result.file, at);
    expect(zlib.gunzipSync(fs.readFileSync(result.file)).toString().split('\n')).toHaveLength(total + 2); // gzip -t's check
    await pasteRestTwice(
      result.stdout,
      `gzip -t ${result.file}`,
      (args) => runCommand(args, sandbox.env, sandbox.home),
      () => server.requests.length,
    );
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
    const result = await batch([zlib.gzipSync(`triggerId,userId,value\n${rows(20)}`)], Buffer.alloc(512));
    expect(result.code).toBe(0);
    expect(result.users.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `u${i}`).sort());
  });
});

/** A .gz's rows as read (its user ids), and the error that ended them, if one did. */
async function read(bytes: Buffer, stdin = false) {
  const file = path.join(sandbox.home, 'read.csv.gz');
  fs.writeFileSync(file, bytes);
  const input = await openInputs(stdin ? ['-'] : [file], { stdin: Readable.from([bytes]) });
  const users: string[] = [];
  try {
    for await (const chunk of input.read({}).rows) users.push(...chunk.map((row) => row.userId!.split('-')[0]!));
  } catch (error) {
    return { users, error: (error as Error).message };
  }
  return { users, error: undefined };
}

describe("gzip members read by trigger's own walk", () => {
  const member = (count: number, from = 0) => zlib.gzipSync(`${from ? '' : 'triggerId,userId,value\n'}${rows(count, from)}`);
  const users = (count: number) => Array.from({ length: count }, (_, i) => `u${i}`);

  it("a header with an extra field, a name, a comment and its own CRC is read past (gzip's optional fields)", async () => {
    const plain = member(30);
    const header = Buffer.from([0x1f, 0x8b, 8, 2 | 4 | 8 | 16, 0, 0, 0, 0, 0, 3, 3, 0, 1, 2, 3]);
    const named = Buffer.concat([header, Buffer.from('rows.csv\0a comment\0'), Buffer.from([0, 0]), plain.subarray(10)]);
    expect(await read(Buffer.concat([named, member(5, 30)]))).toEqual({ users: users(35), error: undefined });
  });

  it('a member whose CRC does not match its data, or cut within its size, is damage, not rows', async () => {
    const bad = member(30);
    bad.writeUInt8(bad.at(-6)! ^ 1, bad.length - 6); // a bit of the CRC
    expect((await read(bad)).error).toContain('(incorrect data check: gzip member 1 failed its checksum');
    const cut = member(30);
    expect(await read(cut.subarray(0, cut.length - 3))).toMatchObject({
      users: users(30),
      error: expect.stringContaining('(unexpected end of file)'),
    });
  });

  it('one byte after the last member (a newline appended) is trailing garbage too', async () => {
    const { users: read1, error } = await read(Buffer.concat([member(30), Buffer.from('\n')]));
    expect(read1).toEqual(users(30));
    expect(error).toContain(
      'the bytes after gzip member 1 are not gzip (1 of them); every row before them was read; cut them off with: truncate -s',
    );
  });

  it('standard input: every row read, the bytes named, no file to cut', async () => {
    const { users: read1, error } = await read(Buffer.concat([member(30), Buffer.from('log line\n')]), true);
    expect(read1).toEqual(users(30));
    expect(error).toContain(
      'standard input: the gzip data cannot be read on (trailing garbage: the bytes after gzip member 1 are not gzip (9 of them); every row before them was read)',
    );
  });
});

/**
 * Standard input that holds no rows to read (review28 F8): `trigger batch - < folder` said "the CSV input is empty", and
 * `trigger batch - 0>>rows.csv` (fd 0 open for writing only) failed with EBADF as "a bug in trigger", exit 70. Each is one line
 * saying what standard input is, exit 2, nothing sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { batchOnFd0, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

it.each([
  ['a folder', 'r', 'error: standard input is a folder; nothing was sent — name the folder instead of -\n'],
  ['a file open for writing only', 'a', 'error: standard input is open for writing only; nothing was sent — give the file with < file\n'],
])('standard input that is %s: exit 2, one line, nothing sent', async (what, flags, line) => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = what === 'a folder' ? box.home : path.join(box.home, 'rows.csv');
  if (what !== 'a folder') fs.writeFileSync(file, 'triggerId,userId\nt,u1\n');
  const result = await batchOnFd0(fs.openSync(file, flags), [], box);
  expect(result).toEqual({ code: 2, stdout: '', stderr: line });
  expect(server.requests).toHaveLength(0);
});

/**
 * What audit24 found around a batch's own files and columns, in-process against a real local server: `--journal` naming a folder, or
 * `--failed` through a file in the way or a loop of links, ended with exit 70 "a bug in trigger" (EISDIR, ENOTDIR, ELOOP), now exit 2
 * in one line; `--columns userId=uid,value=uid` sent the user id as each event's value, now refused; a failed file that could not be
 * written under a journal printed no command, now the journal's --resume, to run once there is room.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

it('--journal naming a folder: exit 2 in one line, nothing sent (was: exit 70, "a bug in trigger")', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const input = path.join(sandbox.home, 'in.csv');
  fs.writeFileSync(input, 'triggerId,userId\np,a\n');
  const folder = path.join(sandbox.home, 'j');
  fs.mkdirSync(folder);
  const result = await runCommand(['batch', input, '--journal', folder, '--failed', path.join(sandbox.home, 'f.csv')], sandbox.env);
  expect(server.requests).toHaveLength(0);
  expect(result.stderr).not.toContain('a bug in trigger');
  expect(result.code).toBe(2);
});

it('--columns naming one column for two roles is refused before anything is sent', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const input = path.join(sandbox.home, 'ids.csv');
  fs.writeFileSync(input, 'ev,uid,amount\np,42,9.99\n');
  const result = await runCommand(['batch', input, '--columns', 'triggerId=ev,userId=uid,value=uid'], sandbox.env);
  // Was: exit 0, the event sent to user 42 with {"value":42}.
  expect(server.requests.map((r) => r.body)).toEqual([]);
  expect(result.code).toBe(2);
});

it('--columns userId=value reads the user from the value column and sends no value (the default does not read it twice)', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const input = path.join(sandbox.home, 'v.csv');
  fs.writeFileSync(input, 'value,other\n42,x\n');
  const result = await runCommand(['batch', input, '--trigger', 'p', '--columns', 'userId=value'], sandbox.env);
  expect(result.code).toBe(0);
  // Was: sent to user 42 with {"value":42}, the user's id as its value.
  expect(server.requests.map((r) => [r.url, r.body])).toEqual([['/v1/triggers/p/users/42/events', '{}']]);
});

it.skipIf(!fs.existsSync('/dev/full'))(
  'a failed file on a full disk with a journal: the summary says the journal carries the rest on',
  async () => {
    server.handle((_req, res) => json(res, 404, { error: 'no such trigger' }));
    const input = path.join(sandbox.home, 'rows.csv');
    fs.writeFileSync(input, `triggerId,userId\n${Array.from({ length: 30 }, (_, i) => `p,d${i}`).join('\n')}\n`);
    const journal = path.join(sandbox.home, 'rows.journal');
    const result = await runCommand(['batch', input, '--journal', journal, '--failed', '/dev/full', '--concurrency', '1'], sandbox.env);
    expect(result.code).toBe(1);
    const said = result.stdout + result.stderr;
    expect(said).toContain('could not be kept');
    // Was: "/dev/full could not be written (...): 30 rows could not be kept; it holds 0 rows", and no command; --resume would send the
    // unsent rows and keep the refused ones, once the disk has room.
    expect(said).toContain(`--journal ${journal} --resume`);
  },
);

it.each([
  ['a file in the way (in.csv/x)', (home: string) => path.join(home, 'in2.csv', 'x')],
  ['a symbolic link loop', (home: string) => (fs.symlinkSync('loop', path.join(home, 'loop')), path.join(home, 'loop'))],
])('--failed through %s: exit 2 in one line, nothing sent (was: exit 70, ENOTDIR / ELOOP)', async (_label, name) => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const input = path.join(sandbox.home, 'in2.csv');
  fs.writeFileSync(input, 'triggerId,userId\np,a\n');
  const result = await runCommand(['batch', input, '--failed', name(sandbox.home)], sandbox.env);
  expect(server.requests).toHaveLength(0);
  expect(result.stderr).not.toContain('a bug in trigger');
  expect(result.code).toBe(2);
});

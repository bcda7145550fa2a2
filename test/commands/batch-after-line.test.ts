/**
 * --after-line (twenty-second pass): what a stopped batch prints to send a Parquet file's rest, which sed cannot cut. The first
 * file's rows up to the line are not read; the journal records the option, so a resume that leaves it out (and would send
 * those rows again) is refused; standard input has no lines to skip by name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const users = () => server.requests.map((r) => decodeURIComponent(/users\/([^/]+)\/events/.exec(r.url)![1]!)).sort();

it("skips the first file's rows up to the line (a CSV's header is line 1), not a later file's", async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const [a, b] = ['a.csv', 'b.csv'].map((name) => path.join(sandbox.home, name));
  fs.writeFileSync(a!, 'triggerId,userId\nt,a2\nt,a3\nt,a4\nt,a5\n');
  fs.writeFileSync(b!, 'triggerId,userId\nt,b2\nt,b3\n');
  const result = await runCommand(['batch', a!, b!, '--after-line', '3', '--failed', path.join(sandbox.home, 'f.csv')], sandbox.env);
  expect(result.code).toBe(0);
  expect(users()).toEqual(['a4', 'a5', 'b2', 'b3']);
});

it('a journal made with --after-line refuses a resume without it; with it, nothing is sent twice', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'rows.csv');
  fs.writeFileSync(file, `triggerId,userId\n${Array.from({ length: 10 }, (_, i) => `t,u${i + 2}`).join('\n')}\n`);
  const journal = path.join(sandbox.home, 'rows.journal');
  const args = ['batch', file, '--journal', journal, '--resume', '--failed', path.join(sandbox.home, 'f.csv')];
  expect((await runCommand([...args, '--after-line', '6'], sandbox.env)).code).toBe(0);
  expect(users()).toEqual(['u10', 'u11', 'u7', 'u8', 'u9']);
  const without = await runCommand(args, sandbox.env);
  expect(without.code).toBe(2);
  expect(without.stderr).toContain(`the journal ${journal} was read with no --columns, no --trigger, --after-line 6, not no --columns`);
  expect((await runCommand([...args, '--after-line', '6'], sandbox.env)).code).toBe(0);
  expect(server.requests).toHaveLength(5);
});

it('is refused with standard input, and with a line that is no whole number (exit 2, nothing sent)', async () => {
  const dash = await runCommand(['batch', '-', '--after-line', '3', '--trigger', 't', '--format', 'lines'], sandbox.env);
  expect(dash.code).toBe(2);
  expect(dash.stderr).toContain('--after-line skips lines of a named file, not of standard input');
  const bad = await runCommand(['batch', 'x.csv', '--after-line', '-1'], sandbox.env);
  expect(bad.code).toBe(2);
  expect(server.requests).toHaveLength(0);
});

it('a line past the first file\'s end is refused (audit24 item 12: "0 of 0 rows", exit 0): exit 2, nothing sent, no journal left', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const [a, b] = ['a.csv', 'b.csv'].map((name) => path.join(sandbox.home, name));
  fs.writeFileSync(a!, 'triggerId,userId\nt,a2\nt,a3\nt,a4\n');
  fs.writeFileSync(b!, 'triggerId,userId\nt,b2\n');
  const journal = path.join(sandbox.home, 'j.journal');
  const failed = path.join(sandbox.home, 'f.csv');
  fs.writeFileSync(failed, 'kept by an earlier run\n');
  const args = ['batch', a!, b!, '--journal', journal, '--resume', '--failed', failed];
  const past = await runCommand([...args, '--after-line', '5'], sandbox.env);
  expect(past.code).toBe(2);
  expect(past.stderr).toBe(
    `error: --after-line 5 is past the end of ${a}: it has 3 rows, the last at line 4; nothing was sent — give a line of the file: the rows after it are sent\n`,
  );
  expect(past.stdout).toBe('');
  expect(server.requests).toHaveLength(0);
  expect(fs.existsSync(journal)).toBe(false);
  expect(fs.readFileSync(failed, 'utf8')).toBe('kept by an earlier run\n');
  // Its last line is no error: nothing of it is left to send, and the later file is sent.
  expect((await runCommand([...args, '--after-line', '4'], sandbox.env)).code).toBe(0);
  expect(users()).toEqual(['b2']);
});

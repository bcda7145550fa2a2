/**
 * --from (from23): what a stopped batch prints to send the rest of a folder, in place of every later part by name. The files
 * before it, in trigger's own reading order (a folder's parts by name, markers skipped), are not read; --after-line is then
 * that file's. The journal records it, so a resume without it (which would send the parts before it) is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';
import { csvOf, userOf } from '../helpers/batch.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const users = () => server.requests.map((r) => userOf(r.url)).sort();
const at = (name: string) => path.join(sandbox.home, name);
const run = (args: string[]) => runCommand(['batch', ...args, '--failed', at('f.csv')], sandbox.env, sandbox.home);

/** export/p0.csv, p1.csv, p2.csv (rows pN-2 to pN-4 on lines 2 to 4), a _SUCCESS marker, and last.csv beside the folder. */
function exportFolder(): void {
  fs.mkdirSync(at('export'));
  for (const p of [2, 0, 1]) fs.writeFileSync(at(`export/p${p}.csv`), csvOf([2, 3, 4].map((line) => `p${p}-${line}`)));
  fs.writeFileSync(at('export/_SUCCESS'), '');
  fs.writeFileSync(at('last.csv'), csvOf(['last-2']));
}

it('reads from that file of a folder on, in name order, with --after-line its own; the sources after the folder too', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  exportFolder();
  const result = await run(['export', 'last.csv', '--from', 'export/p1.csv', '--after-line', '2']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(users()).toEqual(['last-2', 'p1-3', 'p1-4', 'p2-2', 'p2-3', 'p2-4']);
});

it('is exit 2, nothing sent, when the file is not one the inputs read (a marker, a file outside them, standard input)', async () => {
  exportFolder();
  for (const from of ['export/_SUCCESS', 'export/p9.csv', 'last.csv']) {
    const result = await run(['export', '--from', from]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--from ${at(from)} is not one of the input files; nothing was sent`);
    expect(result.stderr).toContain('leave --from out');
  }
  const dash = await runCommand(['batch', '-', '--from', 'x.csv', '--trigger', 't', '--format', 'lines'], sandbox.env, sandbox.home);
  expect(dash.code).toBe(2);
  expect(dash.stderr).toContain('--from starts at a named file, not at standard input');
  expect(server.requests).toHaveLength(0);
});

it('a journal made with --from refuses a resume without it; with it, nothing is sent twice', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  exportFolder();
  const args = ['export', '--journal', at('j.journal'), '--resume'];
  expect((await run([...args, '--from', 'export/p2.csv'])).code).toBe(0);
  expect(users()).toEqual(['p2-2', 'p2-3', 'p2-4']);
  const all = await run(args); // p0, p1 and p2 against the journal's p2
  expect(all.code).toBe(2);
  expect(all.stderr).toContain('was made for 1 file');
  for (const p of [0, 1]) fs.rmSync(at(`export/p${p}.csv`));
  const without = await run(args); // p2 alone: the same file, read without --from
  expect(without.code).toBe(2);
  expect(without.stderr).toContain(
    `was read with no --columns, no --trigger, --from ${at('export/p2.csv')}, not no --columns, no --trigger;`,
  );
  expect((await run([...args, '--from', 'export/p2.csv'])).code).toBe(0);
  expect(server.requests).toHaveLength(3);
});

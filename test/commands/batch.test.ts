/**
 * trigger batch in-process: its NDJSON lines through the capturing Output (with back-pressure), its
 * failed file and summary, against a real server on 127.0.0.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

describe('trigger batch, in-process', () => {
  it('--json: one line per row on the Output given; the failed file; exit 1 for the refused row', async () => {
    server.handle((req, res) => (req.url.includes('/users/b/') ? json(res, 422, { error: 'boom' }) : json(res, 200, { success: true })));
    const input = path.join(sandbox.home, 'in.csv');
    fs.writeFileSync(input, 'triggerId,userId,value\nt,a,1\nt,b,2\nt,c,x\n');
    const result = await runCommand(['batch', input, '--json', '--failed', path.join(sandbox.home, 'failed.csv')], sandbox.env);
    expect(result.code).toBe(1);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; ok: boolean });
    expect(lines.map((l) => [l.line, l.ok]).sort()).toEqual([
      [2, true],
      [3, false],
      [4, false],
    ]);
    expect(result.stderr).toMatch(/✖ 1 accepted · 1 failed · 1 invalid of 3 rows/);
    expect(fs.readFileSync(path.join(sandbox.home, 'failed.csv'), 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('its help says what --dry-run does for a batch (checks rows; no curl commands)', async () => {
    const help = await runCommand(['batch', '--help'], sandbox.env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--dry-run\s+check every row and send nothing \(prints no curl\s+commands\)/);
  });

  it.each([
    [['-', '--format', 'lines'], '--format lines needs --trigger'],
    // An unset variable (--trigger "$T"): not "needs --trigger", which it was given (fix26d noticed).
    [
      ['-', '--format', 'lines', '--trigger', ''],
      'error: --trigger is empty: each line is only a userId; give the trigger id to send them to',
    ],
    [['-', '--resume'], '--resume goes with --journal <file>'],
    [['-', '--journal', 'j'], '--journal needs the input as a regular file'],
    [['-', '--concurrency', '0'], "error: --concurrency '0' is not valid: expected auto, or a whole number from 1 to 256"],
    [['-', '--shard', '0/2'], "error: --shard '0/2' is not valid"],
    [['/no/such.csv'], 'cannot read /no/such.csv: no such file'],
  ])('usage error %j: exit 2, nothing sent', async (args, message) => {
    const result = await runCommand(['batch', ...args], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  // fix26e noticed: with CSV or NDJSON rows, an empty --trigger (an unset variable) was told "or pass --trigger", which it was.
  it('--trigger "" with CSV and NDJSON: the missing column and a row without a triggerId say --trigger was given empty', async () => {
    const file = (name: string, text: string) => (fs.writeFileSync(path.join(sandbox.home, name), text), path.join(sandbox.home, name));
    const header = await runCommand(['batch', file('users.csv', 'userId\na\n'), '--trigger', '', '--dry-run'], sandbox.env);
    expect([header.code, header.stderr]).toEqual([2, expect.stringContaining('for every row (the --trigger given is empty)\n')]);
    for (const input of [file('rows.csv', 'triggerId,userId\n,a\n'), file('rows.ndjson', '{"triggerId":"","userId":"a"}\n')]) {
      const row = await runCommand(['batch', input, '--trigger', '', '--dry-run'], sandbox.env);
      expect(row.code).toBe(1);
      expect(row.stderr).toMatch(
        /invalid, not sent: no triggerId: add a triggerId column or field, or pass --trigger \(the --trigger given is empty\)\n/,
      );
    }
  });
});

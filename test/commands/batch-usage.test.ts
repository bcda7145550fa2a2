/**
 * trigger batch's refusals in-process: each checks a message, an exit code and that nothing was sent
 * (or nothing stored was lost), which needs no spawned binary. They were spawned in
 * test/e2e/batch*.test.ts; the exit codes a process really ends with are checked there by the runs
 * that only a process can show (signals, kill -9, pipes, a full disk).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import type { TestServer } from '../helpers/server.js';
import { FORMATS } from '../../src/batch/formats.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const at = (name: string) => path.join(sandbox.home, name);
const file = (name: string, text: string | Buffer) => {
  fs.writeFileSync(at(name), text);
  return at(name);
};
const read = (name: string) => fs.readFileSync(at(name), 'utf8');
const batch = (args: string[], env: NodeJS.ProcessEnv = sandbox.env) => runCommand(['batch', ...args], env, sandbox.home);
const csvRows = (n: number) => `triggerId,userId\n${Array.from({ length: n }, (_, i) => `t,u${i}`).join('\n')}\n`;

describe('trigger batch refuses, in-process', () => {
  it.each([
    [['/no/such.csv'], 'cannot read /no/such.csv: no such file'],
    [['--format', 'xml'], `error: --format 'xml' is not one of ${FORMATS.slice(0, -1).join(', ')} or ${FORMATS.at(-1)}`],
    [['--concurrency', '0'], "error: --concurrency '0' is not valid: expected auto, or a whole number from 1 to 256"],
    [['--rate', '-5'], 'error:'],
  ])('%j is a usage error: exit 2, nothing sent', async (args, message) => {
    const input = file('in.csv', 'triggerId,userId\nt,u\n');
    const result = await batch(args[0] === '/no/such.csv' ? args : [input, ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  it('a CSV without a userId column is exit 2 with the fix', async () => {
    const result = await batch([file('bad.csv', 'trigger,user\nt,u\n')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('has no userId column');
    expect(result.stderr).toContain('--format lines');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses to write the failed file over the input', async () => {
    const input = file('in.csv', 'triggerId,userId\nt,u\n');
    const result = await batch([input, '--failed', input]);
    expect(result.code).toBe(2);
    expect(read('in.csv')).toBe('triggerId,userId\nt,u\n');
    expect(server.requests).toHaveLength(0);
  });

  it('--dry-run checks every row and sends nothing', async () => {
    const result = await batch([file('in.csv', 'triggerId,userId,value\nt,a,1\nt,b,x\n'), '--dry-run'], {
      ...sandbox.env,
      TRIGGER_API_KEY: undefined,
    });
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(0);
    expect(result.stdout).toContain('dry run: 1 of 2 rows can be sent, 1 invalid; nothing was sent');
  });

  it('refuses a shard outside 1..n', async () => {
    const result = await batch([file('s.csv', 'triggerId,userId\nt,a\n'), '--shard', '5/4']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: --shard '5/4' is not valid: expected i/n with 1 <= i <= n <= 10000");
    expect(server.requests).toHaveLength(0);
  });

  it('--max-concurrency with a fixed --concurrency is a usage error, and nothing is sent', async () => {
    const result = await batch([file('rows.csv', csvRows(3)), '--concurrency', '8', '--max-concurrency', '16']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: --max-concurrency goes with --concurrency auto');
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['--concurrency', 'fast'],
    ['--concurrency', '0'],
    ['--max-concurrency', '0'],
    ['--max-concurrency', 'auto'],
  ])('%s %s is a usage error', async (flag, value) => {
    const result = await batch([file('rows.csv', csvRows(3)), flag, value]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: /m);
    expect(server.requests).toHaveLength(0);
  });

  it('--failed - and --journal - are refused (exit 2), nothing sent, no file named "-"', async () => {
    for (const args of [
      ['--failed', '-'],
      ['--journal', '-'],
    ]) {
      const result = await batch([file('in.csv', csvRows(2)), ...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^error: ${args[0]} needs a file name, not "-"`, 'm'));
    }
    expect(fs.existsSync(at('-'))).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it('a UTF-16 CSV is named as such, with the fix, and nothing is sent (exit 2)', async () => {
    const text = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('triggerId,userId\r\nt,a\r\n', 'utf16le')]);
    for (const input of [file('in16.csv', text), file('in16-nobom.csv', text.subarray(2))]) {
      const result = await batch([input, '--failed', at('failed.csv')]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error: .*in16(-nobom)?\.csv is UTF-16 text, not UTF-8; nothing was sent/m);
      // The file's own name in the command (was: in.csv whatever the file, audit23).
      expect(result.stderr).toContain(`iconv -f UTF-16 -t UTF-8 ${input} > ${input.replace(/\.csv$/, '-utf8.csv')}`);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('an earlier failed file is left as it was by a run that stops with exit 2 before sending', async () => {
    file('failed.csv', 'triggerId,userId,error\nt,keep-me,line 2: 500\n');
    const result = await batch([file('bad.csv', 'triggerId,user\nt,a\n'), '--failed', at('failed.csv')]);
    expect(result.code).toBe(2);
    expect(read('failed.csv')).toBe('triggerId,userId,error\nt,keep-me,line 2: 500\n');
    expect(fs.readdirSync(sandbox.home).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a mistake found before sending (an unwritable --failed) leaves no journal behind', async () => {
    const input = file('small.csv', csvRows(3));
    const journal = at('j');
    const bad = await batch([input, '--journal', journal, '--failed', at('no/such/folder/failed.csv')]);
    expect(bad.code).toBe(2);
    expect(fs.existsSync(journal)).toBe(false);
    const good = await batch([input, '--journal', journal]); // no --resume needed: nothing was started
    expect(good.code).toBe(0);
    expect(server.requests).toHaveLength(3);
  });
});

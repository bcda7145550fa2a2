/**
 * A column --columns names is one the file must have, even when its name is the default's (inputs22, left item 3): parseColumns filled
 * in the defaults, so `--columns value=value` could not be told from no value= at all, and on a file without a value column every event
 * went without its value and nothing was said. Now such a name is exit 2 before anything is sent, in CSV, NDJSON and Parquet alike; a
 * default column not named stays optional.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const at = (name: string) => path.join(sandbox.home, name);
const csv = () => (fs.writeFileSync(at('a.csv'), 'triggerId,userId,amount\nsignup,u1,5\nsignup,u2,7\n'), at('a.csv'));

describe('--columns naming a default column the file lacks', () => {
  it.each([
    ['value=value', 'has no value column (its columns: triggerId, userId, amount)', 'check --columns value=value'],
    ['userId=userId,value=value', 'has no value column', 'leave value= out'],
  ])('CSV, --columns %s: exit 2 naming it, its columns and the fix; nothing sent', async (columns, message, hint) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const result = await runCommand(['batch', csv(), '--columns', columns], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain(hint);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(server.requests).toHaveLength(0);
  });

  it('CSV, --columns triggerId=triggerId with --trigger on a file without one: refused, not every row sent to --trigger', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    fs.writeFileSync(at('b.csv'), 'userId,value\nu1,5\n');
    const result = await runCommand(['batch', at('b.csv'), '--columns', 'triggerId=triggerId', '--trigger', 'signup'], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('has no triggerId column (its columns: userId, value)');
    expect(server.requests).toHaveLength(0);
  });

  it('NDJSON, --columns value=value with no object holding a value: exit 2, nothing sent', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    fs.writeFileSync(at('c.ndjson'), '{"triggerId":"signup","userId":"u1","amount":5}\n');
    const result = await runCommand(['batch', at('c.ndjson'), '--columns', 'value=value'], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no object of lines 1-1 has a "value" member (theirs: triggerId, userId, amount)');
    expect(server.requests).toHaveLength(0);
  });

  it('Parquet, --columns value=value with no value column: exit 2, nothing sent', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const { parquetWriteFile } = await import('hyparquet-writer');
    parquetWriteFile({
      filename: at('d.parquet'),
      columnData: [
        { name: 'triggerId', data: ['signup', 'signup'], type: 'STRING' },
        { name: 'userId', data: ['u1', 'u2'], type: 'STRING' },
        { name: 'amount', data: [5, 7], type: 'DOUBLE' },
      ],
    });
    const result = await runCommand(['batch', at('d.parquet'), '--columns', 'value=value'], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('has no value column (its columns: triggerId, userId, amount)');
    expect(server.requests).toHaveLength(0);
  });

  // audit27 #10: "or leave userId= out" was offered on a file without a userId column, and leaving it out was then refused.
  it.each([
    ['uid,triggerId\nu1,signup\n', 'userId=user', [], false],
    ['userId,triggerId\nu1,signup\n', 'userId=user', [], true],
    ['userId,event\nu1,signup\n', 'triggerId=trigger', [], false],
    ['userId,event\nu1,signup\n', 'triggerId=trigger', ['--trigger', 'signup'], true],
  ])('%j --columns %s %j: "leave it out" offered only where that run works', async (text, columns, extra, offered) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    fs.writeFileSync(at('f.csv'), text);
    const result = await runCommand(['batch', at('f.csv'), '--columns', columns, ...extra], sandbox.env);
    expect(result.code).toBe(2);
    const role = columns.split('=')[0]!;
    expect(result.stderr).toContain(`check --columns ${columns}: name a column the file has${offered ? `, or leave ${role}= out` : '\n'}`);
    const left = await runCommand(['batch', at('f.csv'), ...extra], sandbox.env); // the hint followed
    expect(left.code).toBe(offered ? 0 : 2);
    expect(server.requests).toHaveLength(offered ? 1 : 0);
  });

  it('a default column not named stays optional: the rows go without their values, as before', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const result = await runCommand(['batch', csv()], sandbox.env);
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => r.body)).toEqual(['{}', '{}']);
  });

  it('a resume with --columns value=value after a run without --columns is still refused by the journal', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    fs.writeFileSync(at('e.csv'), 'triggerId,userId,value\nsignup,u1,5\n');
    const batch = (...args: string[]) => runCommand(['batch', at('e.csv'), '--journal', at('e.journal'), ...args], sandbox.env);
    expect((await batch()).code).toBe(0);
    const again = await batch('--columns', 'value=value', '--resume');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('was read with no --columns, no --trigger, not --columns triggerId=triggerId,userId=userId,value=value');
    expect(server.requests).toHaveLength(1);
  });
});

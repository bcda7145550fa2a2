/**
 * The user id column of a Parquet export, as warehouses type it: Snowflake's default integer type is
 * NUMBER(38,0), unloaded as DECIMAL(38,0) (or DECIMAL(18,0) in an INT64). The event must go to the
 * user the file names, with every digit; a column that cannot be an id (a boolean, a list) is the
 * export's mistake, found before anything is sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const userOf = (url: string) => decodeURIComponent(url.split('/')[5] ?? '');

async function writeExport(file: string): Promise<void> {
  const { parquetWriteFile } = await import('hyparquet-writer');
  parquetWriteFile({
    filename: file,
    schema: [
      { name: 'root', num_children: 4 },
      {
        name: 'USER_ID',
        type: 'FIXED_LEN_BYTE_ARRAY',
        type_length: 16,
        converted_type: 'DECIMAL',
        precision: 38,
        scale: 0,
        repetition_type: 'OPTIONAL',
      },
      { name: 'USER_ID18', type: 'INT64', converted_type: 'DECIMAL', precision: 18, scale: 0, repetition_type: 'OPTIONAL' },
      { name: 'EVENT', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      { name: 'FLAG', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
    ],
    columnData: [
      { name: 'USER_ID', data: [123456789012345678901234n, 42n] },
      { name: 'USER_ID18', data: [123456789012345678n, 42n] },
      { name: 'EVENT', data: ['purchase', 'purchase'] },
      { name: 'FLAG', data: [true, false] },
    ],
  });
}

describe('Parquet: a decimal user id column', () => {
  it.each([
    ['USER_ID', ['123456789012345678901234', '42']],
    ['USER_ID18', ['123456789012345678', '42']],
  ])('%s: each event goes to the user the file names, every digit kept', async (column, users) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const file = path.join(sandbox.home, 'snowflake.parquet');
    await writeExport(file);
    const result = await runCommand(['batch', file, '--columns', `userId=${column},triggerId=EVENT`, '--concurrency', '1'], sandbox.env);
    // Was: exit 0, the events sent to users "1.2345678901234569e+23" and "123456789012345680".
    expect(server.requests.map((r) => userOf(r.url)).sort()).toEqual([...users].sort());
    expect(result.code).toBe(0);
  });

  it('a boolean column as the user id: exit 2 naming the column, nothing sent', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const file = path.join(sandbox.home, 'snowflake.parquet');
    await writeExport(file);
    const result = await runCommand(['batch', file, '--columns', 'userId=FLAG,triggerId=EVENT'], sandbox.env);
    // Was: exit 0, both events sent to the users "true" and "false".
    expect(server.requests).toHaveLength(0);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('FLAG');
  });
});

/** One column of each kind an export may hold, three rows (the third's ids null). */
async function writeKinds(file: string): Promise<void> {
  const { parquetWriteFile } = await import('hyparquet-writer');
  const opt = (name: string, type: string, more = {}) => ({ name, type, repetition_type: 'OPTIONAL', ...more });
  const text = (s: string) => new TextEncoder().encode(s);
  parquetWriteFile({
    filename: file,
    // prettier-ignore
    schema: [
      { name: 'root', num_children: 11 },
      opt('EVENT', 'BYTE_ARRAY', { converted_type: 'UTF8' }),
      opt('TS', 'INT64', { converted_type: 'TIMESTAMP_MILLIS' }),
      opt('DEC2', 'INT64', { converted_type: 'DECIMAL', precision: 10, scale: 2 }),
      opt('DBL', 'DOUBLE'),
      opt('J', 'BYTE_ARRAY', { converted_type: 'JSON' }),
      { name: 'L', repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST' },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      opt('RAW', 'BYTE_ARRAY'),
      opt('BAD', 'BYTE_ARRAY'),
      opt('U', 'FIXED_LEN_BYTE_ARRAY', { type_length: 16, logical_type: { type: 'UUID' } }),
      opt('DEC0', 'BYTE_ARRAY', { converted_type: 'DECIMAL', precision: 30, scale: 0 }),
      opt('FLAG', 'BOOLEAN'),
    ] as never,
    columnData: [
      { name: 'EVENT', data: ['purchase', 'purchase', 'purchase'] },
      { name: 'TS', data: [new Date(0), new Date(1000), null] },
      { name: 'DEC2', data: [1.5, 2, 3] },
      { name: 'DBL', data: [1, 2, 3] },
      { name: 'J', data: [{ a: 1 }, 'x', null] },
      { name: 'L', data: [['x', 'y'], ['z'], []] },
      { name: 'RAW', data: [text('héllo'), text('a,b "c"'), null] },
      { name: 'BAD', data: [text('ok'), new Uint8Array([0xff, 0x41]), null] },
      { name: 'U', data: [new Uint8Array(16).fill(0xab), new Uint8Array(16), null] },
      { name: 'DEC0', data: [-123456789012345678901234567890n, 5n, null] },
      { name: 'FLAG', data: [true, false, null] },
    ],
  });
}

describe('Parquet: what an id column may hold', () => {
  it.each([
    ['userId', 'TS', 'TIMESTAMP_MILLIS'],
    ['userId', 'DEC2', 'DECIMAL(10,2)'],
    ['userId', 'DBL', 'DOUBLE'],
    ['userId', 'J', 'JSON'],
    ['userId', 'L', 'LIST'],
    ['triggerId', 'FLAG', 'BOOLEAN'],
  ])('a %s column %s (%s) is refused before anything is sent: exit 2 naming the file, column and type', async (what, column, type) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const file = path.join(sandbox.home, 'kinds.parquet');
    await writeKinds(file);
    const columns = what === 'userId' ? `userId=${column},triggerId=EVENT` : `userId=RAW,triggerId=${column}`;
    const result = await runCommand(['batch', file, '--columns', columns], sandbox.env);
    expect(server.requests).toHaveLength(0);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`kinds.parquet: the ${what} column ${column} is ${type}, not an id; nothing was sent`);
  });

  it.each([
    ['RAW', ['héllo', 'a,b "c"']],
    ['U', ['abababab-abab-abab-abab-abababababab', '00000000-0000-0000-0000-000000000000']],
    ['DEC0', ['-123456789012345678901234567890', '5']],
  ])('%s: sent as the file holds it; a null id is an invalid row', async (column, users) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const file = path.join(sandbox.home, 'kinds.parquet');
    await writeKinds(file);
    const failed = path.join(sandbox.home, 'failed.csv');
    const result = await runCommand(['batch', file, '--columns', `userId=${column},triggerId=EVENT`, '--failed', failed], sandbox.env);
    expect(server.requests.map((r) => userOf(r.url)).sort()).toEqual([...users].sort());
    expect(result.code).toBe(1);
    expect(fs.readFileSync(failed, 'utf8')).toContain('purchase,,,"line 3: invalid, not sent: empty userId"');
  });

  it("bytes that are not UTF-8 in a user id column make that row invalid, as a CSV line's do; the others are sent", async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const file = path.join(sandbox.home, 'kinds.parquet');
    await writeKinds(file);
    const failed = path.join(sandbox.home, 'failed.csv');
    const result = await runCommand(['batch', file, '--columns', 'userId=BAD,triggerId=EVENT', '--failed', failed], sandbox.env);
    // Was: exit 2 at row 2, "row 2's userId (BAD, BYTE_ARRAY) is not UTF-8 text", and row 1 in no place (audit24's Parquet stops).
    expect(server.requests.map((r) => userOf(r.url))).toEqual(['ok']);
    expect(result.code).toBe(1);
    const kept = fs.readFileSync(failed, 'utf8');
    // The row keeps what it had, the bad byte as U+FFFD as a CSV line's is (review24b: it was kept as `purchase,,,`, its id gone).
    expect(kept).toContain(
      'purchase,\uFFFDA,,"line 2: invalid, not sent: its userId (BAD) is not valid UTF-8 text; save it as UTF-8 in the export"',
    );
    expect(kept).toContain('line 3: invalid, not sent: empty userId');
    // Replayed as it is, it is still not sent (an id with U+FFFD never is), and it is kept again as it was.
    const again = path.join(sandbox.home, 'again.csv');
    expect((await runCommand(['batch', failed, '--failed', again], sandbox.env)).code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(fs.readFileSync(again, 'utf8')).toMatch(/^purchase,\uFFFDA,,"line 2: invalid, not sent: userId is not valid UTF-8 text/m);
  });
});

describe('Parquet: what a value column may hold', () => {
  it.each([
    ['TS', 'TIMESTAMP_MILLIS'],
    ['FLAG', 'BOOLEAN'],
    ['J', 'JSON'],
    ['L', 'LIST'],
  ])('a value column %s (%s) is refused before anything is sent: every row was invalid, exit 1 (inputs20)', async (column, type) => {
    const file = path.join(sandbox.home, 'kinds.parquet');
    await writeKinds(file);
    const result = await runCommand(['batch', file, '--columns', `userId=RAW,triggerId=EVENT,value=${column}`], sandbox.env);
    expect(server.requests).toHaveLength(0);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`kinds.parquet: the value column ${column} is ${type}, not a number; nothing was sent`);
  });

  it.each([['DEC2'], ['DBL']])('a value column %s is read (the row with a null id is invalid, as before)', async (column) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const file = path.join(sandbox.home, 'kinds.parquet');
    await writeKinds(file);
    const result = await runCommand(['batch', file, '--columns', `userId=RAW,triggerId=EVENT,value=${column}`], sandbox.env);
    expect(result.code).toBe(1);
    expect(server.requests.map((r) => r.body)).toEqual(
      column === 'DEC2' ? ['{"value":1.50}', '{"value":2.00}'] : ['{"value":1}', '{"value":2}'],
    );
  });
});

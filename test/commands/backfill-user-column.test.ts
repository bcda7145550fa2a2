/**
 * The user id column of a Parquet export, as warehouses type it: Snowflake's default integer type is
 * NUMBER(38,0), unloaded as DECIMAL(38,0) (or DECIMAL(18,0) in an INT64). The event must go to the
 * user the file names, with every digit; a column that cannot be an id (a boolean, a list) is the
 * export's mistake, found before anything is sent.
 */
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

/**
 * audit26 #14: a Parquet DOUBLE (or FLOAT) -0 was sent as 0, where a CSV's, an NDJSON's and fire's -0 are sent as typed. The
 * contract sends a numeric value column "with its exact digits", and -0 is a value a double holds; JSON has -0 too.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

it.each(['DOUBLE', 'FLOAT'] as const)('a Parquet %s column sends -0 as -0, and 0 and -1.5 as they are', async (type) => {
  const { parquetWriteFile } = await import('hyparquet-writer');
  const file = path.join(sandbox.home, 'values.parquet');
  parquetWriteFile({
    filename: file,
    schema: [
      { name: 'root', num_children: 3 },
      { name: 'triggerId', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
      { name: 'userId', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
      { name: 'value', type, repetition_type: 'REQUIRED' },
    ],
    columnData: [
      { name: 'triggerId', data: ['t', 't', 't'] },
      { name: 'userId', data: ['a', 'b', 'c'] },
      { name: 'value', data: [-0, 0, -1.5] },
    ],
  });
  const result = await runCommand(['batch', file, '--concurrency', '1'], sandbox.env);
  expect(result.code).toBe(0);
  expect(server.requests.map((r) => r.body)).toEqual(['{"value":-0}', '{"value":0}', '{"value":-1.5}']); // was {"value":0} first
});

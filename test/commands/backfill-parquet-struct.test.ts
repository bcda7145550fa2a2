/**
 * A GA4 export's structs share field names: event_params and user_properties each hold a key and a value (int_value,
 * double_value). trigger reads top-level columns only, so --columns naming a field inside a struct, dotted or by its
 * own name, is refused before anything is sent, naming every field it may be: was "has no event_params.value column",
 * which named neither the struct fields nor the way round.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

async function writeGa4(file: string): Promise<void> {
  const { parquetWriteFile } = await import('hyparquet-writer');
  const text = { type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' } as const;
  const pair = (name: string) => [
    { name, repetition_type: 'OPTIONAL', num_children: 2 },
    { name: 'key', ...text },
    { name: 'value', repetition_type: 'OPTIONAL', num_children: 2 },
    { name: 'int_value', type: 'INT64', repetition_type: 'OPTIONAL' },
    { name: 'double_value', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
  ];
  parquetWriteFile({
    filename: file,
    schema: [
      { name: 'root', num_children: 4 },
      { name: 'user_pseudo_id', ...text },
      { name: 'event_name', ...text },
      ...pair('event_params'),
      ...pair('user_properties'),
    ] as never,
    columnData: [
      { name: 'user_pseudo_id', data: ['a', 'b'] },
      { name: 'event_name', data: ['purchase', 'purchase'] },
      {
        name: 'event_params',
        data: [
          { key: 'value', value: { int_value: 10n, double_value: null } },
          { key: 'value', value: { int_value: 20n, double_value: null } },
        ],
      },
      {
        name: 'user_properties',
        data: [
          { key: 'ltv', value: { int_value: null, double_value: 1.5 } },
          { key: 'ltv', value: { int_value: null, double_value: 2.5 } },
        ],
      },
    ],
  });
}

it.each([
  ['event_params.value', 'event_params.value.int_value, event_params.value.double_value'],
  ['event_params.value.double_value', 'event_params.value.double_value'],
  ['double_value', 'event_params.value.double_value, user_properties.value.double_value'],
  ['user_properties.value', 'user_properties.value.int_value, user_properties.value.double_value'],
])('--columns value=%s: refused naming the struct fields it may be, nothing sent, exit 2', async (wanted, found) => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'ga4.parquet');
  await writeGa4(file);
  const result = await runCommand(['batch', file, '--columns', `userId=user_pseudo_id,triggerId=event_name,value=${wanted}`], sandbox.env);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(
    `${wanted} is a field inside a struct (${found}), and trigger reads top-level columns only; nothing was sent`,
  );
  expect(result.stderr).toContain("(SELECT value.double_value FROM UNNEST(event_params) WHERE key = 'value') AS value)");
  expect(server.requests).toHaveLength(0);
});

it('the top-level columns of the same file are read as ever (no value named: the events go without one)', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'ga4.parquet');
  await writeGa4(file);
  const result = await runCommand(['batch', file, '--columns', 'userId=user_pseudo_id,triggerId=event_name'], sandbox.env);
  expect(result.code).toBe(0);
  expect(server.requests).toHaveLength(2);
});

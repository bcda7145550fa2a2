/**
 * A Parquet string that starts with U+FEFF lost it (audit24). src/batch/parquet.ts decodes with `new TextDecoder('utf-8',
 * { fatal: true })`, whose default (ignoreBOM: false) strips a leading BOM from every value it decodes, so the user id "\uFEFFa" is
 * sent as "a", another user. CSV, NDJSON, lines and fire send it as it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

it('a Parquet user id that starts with U+FEFF reaches the server as it is', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'ids.parquet');
  parquetWriteFile({
    filename: file,
    schema: [
      { name: 'root', num_children: 1 },
      { name: 'uid', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    ],
    columnData: [{ name: 'uid', data: ['\uFEFFa', 'b'] }],
  });
  expect(fs.existsSync(file)).toBe(true);
  const result = await runCommand(['batch', file, '--trigger', 'p', '--columns', 'userId=uid'], sandbox.env);
  expect(result.code).toBe(0);
  // Was: /v1/triggers/p/users/a/events
  expect(server.requests.map((r) => r.url).sort()).toEqual(['/v1/triggers/p/users/%EF%BB%BFa/events', '/v1/triggers/p/users/b/events']);
});

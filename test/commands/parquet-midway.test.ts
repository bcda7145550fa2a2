/**
 * A Parquet file that cannot be read on midway (audit24). A folder whose later part is ZSTD-compressed (polars' default; BigQuery and
 * DuckDB offer it), read by a Node without zstd (20.x): the footer read, so the part passed the look before sending and the codec failed
 * at its first page, after the earlier part's rows were sent: exit 2, no summary, "nothing was sent" (run again, those rows went twice).
 * Now the codec is checked from the footer before any row is sent. A page damaged in a later row group stops the batch as a .gz cut
 * short does: the rows sent are summarized and the command for the rest is printed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parquetWriteFile } from 'hyparquet-writer';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { damagedAt, uidParquet } from '../helpers/parquet.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const zlibZstd = (zlib as { zstdCompressSync?: (b: Uint8Array) => Buffer }).zstdCompressSync;
const zstdCli = (() => {
  try {
    execFileSync('zstd', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const zstd = (b: Uint8Array) => new Uint8Array(zlibZstd ? zlibZstd(b) : execFileSync('zstd', ['-q', '-c'], { input: Buffer.from(b) }));

const write = (file: string, users: string[], codec: 'SNAPPY' | 'ZSTD') =>
  parquetWriteFile({
    filename: file,
    codec,
    compressors: { ZSTD: zstd },
    schema: [
      { name: 'root', num_children: 1 },
      { name: 'uid', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    ],
    columnData: [{ name: 'uid', data: users }],
  });

it.skipIf(!zlibZstd && !zstdCli)('a ZSTD Parquet part: refused before any row is sent, or every row sent', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const folder = path.join(sandbox.home, 'export');
  fs.mkdirSync(folder);
  write(path.join(folder, 'part-0.parquet'), ['a1', 'a2', 'a3'], 'SNAPPY');
  write(path.join(folder, 'part-1.parquet'), ['b1', 'b2'], 'ZSTD');
  const result = await runCommand(
    ['batch', folder, '--trigger', 'p', '--columns', 'userId=uid', '--failed', path.join(sandbox.home, 'f.csv')],
    sandbox.env,
  );
  const sent = server.requests.length;
  // Was on Node 20: exit 2, 3 rows sent, "...; nothing was sent — check that the export finished and the file was copied whole".
  expect({ code: result.code, sent }).toEqual(zlibZstd ? { code: 0, sent: 5 } : { code: 2, sent: 0 });
});

it('a Parquet file damaged in a later row group: the rows sent before it are not called "nothing was sent", and the rest has a place', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'big.parquet');
  fs.writeFileSync(file, damagedAt(uidParquet(file, 5000, 1000), 0.6)); // inside a later row group; the footer stays whole
  const failed = path.join(sandbox.home, 'big-failed.csv');
  const result = await runCommand(['batch', file, '--trigger', 'p', '--columns', 'userId=uid', '--failed', failed], sandbox.env);
  const sent = server.requests.length;
  if (sent === 0) return expect(result.code).toBe(2); // refused before sending: fine
  // Was: 2,000+ rows sent, then exit 2 "...is not a readable Parquet file: row N on: ...; nothing was sent", no summary, no rest.
  expect(result.stderr + result.stdout).not.toContain('nothing was sent');
  expect(result.stderr + result.stdout).toMatch(/--after-line \d+/);
});

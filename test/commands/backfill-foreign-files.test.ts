/**
 * Files a warehouse or a shell hands over that the batch does not read (inputs20): an empty .gz, bzip2/xz/lz4/zip/Avro
 * bytes, a partitioned export's subfolders, Redshift's manifest. Each was read as CSV text (rows of binary sent as
 * invalid, or worse), said "first bytes are 00 00 00 00", or was skipped without a word.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const at = (name: string) => path.join(sandbox.home, name);
const write = (name: string, bytes: string | Buffer) => {
  fs.mkdirSync(path.dirname(at(name)), { recursive: true });
  fs.writeFileSync(at(name), bytes);
  return at(name);
};

describe('files the batch does not read', () => {
  it.each([
    ['rows.csv.bz2', 'BZh91AY&SY\x00\x01', 'is bzip2-compressed, which trigger does not read', 'bzip2 -dc'],
    ['rows.csv.xz', '\xfd7zXZ\x00', 'is xz-compressed', 'xz -dc'],
    ['rows.csv.lz4', '\x04"M\x18\x64', 'is lz4-compressed', 'lz4 -dc'],
    ['rows.zip', 'PK\x03\x04\x14\x00', 'is a zip archive', 'unzip -p'],
    ['rows.avro', 'Obj\x01\x04', 'is an Avro file', 'export it as CSV, NDJSON or Parquet'],
  ])('%s: exit 2 saying what it is and how to read it, nothing sent', async (name, bytes, says, hint) => {
    const file = write(name, Buffer.from(bytes, 'latin1'));
    const result = await runCommand(['batch', file, '--format', 'csv'], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file} ${says}`);
    expect(result.stderr).toContain(hint);
    expect(server.requests).toHaveLength(0);
  });

  it('an empty .csv.gz says it is empty, not that its first bytes are zeros', async () => {
    const file = write('empty.csv.gz', '');
    const result = await runCommand(['batch', file], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file} is empty (0 bytes), not gzip data; nothing was sent`);
  });

  it("a partitioned export's subfolder is named, not skipped: exit 2, nothing sent", async () => {
    write('export/part-0.csv', 'triggerId,userId\nt,a\n');
    write('export/date=2026-01-01/part-0.csv', 'triggerId,userId\nt,b\n');
    const result = await runCommand(['batch', at('export')], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path.join(at('export'), 'date=2026-01-01')} is a folder inside a folder given`);
    expect(result.stderr).toContain(`trigger batch ${path.join(at('export'), '*')}/`);
    expect(server.requests).toHaveLength(0);
  });

  // audit27 #12: skipped without a word, exit 0 (named alone, the same entry is exit 2). A FIFO may be a part still being streamed in.
  it.each([
    ['a link to a character device', 'a device', (file: string) => fs.symlinkSync('/dev/zero', file)],
    ['a FIFO', 'a FIFO', (file: string) => execFileSync('mkfifo', [file])],
    ['a socket', 'a socket', (file: string) => ((server) => once(server, 'listening').then(() => server))(net.createServer().listen(file))],
  ])('an entry that is %s is named, not skipped: exit 2, nothing sent', async (_what, kind, make) => {
    write('export/part-1.csv', 'triggerId,userId\nt,a\n');
    const made: unknown = await make(at('export/part-2.csv'));
    const result = await runCommand(['batch', at('export')], sandbox.env);
    if (made instanceof net.Server) made.close();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path.join(at('export'), 'part-2.csv')} is not a regular file (${kind})`);
    expect(server.requests).toHaveLength(0);
  });

  it("Redshift's manifest beside the parts is not read as a part", async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    write('unload/venue_0000_part_00.csv', 'triggerId,userId\nt,a\n');
    write('unload/venue_manifest', '{\n  "entries": [\n    {"url":"s3://b/unload/venue_0000_part_00"}\n  ]\n}\n');
    const result = await runCommand(['batch', at('unload')], sandbox.env);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
  });
});

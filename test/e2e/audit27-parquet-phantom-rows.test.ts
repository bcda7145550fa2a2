/**
 * audit27 repro: a Parquet file whose column data does not hold the rows its footer promises is read as rows with no user id. A footer
 * that says 60 rows over 20 values invents 40 rows, each "invalid, not sent: empty userId" (as read: ",,"), exit 1; one that says
 * 10^12 wrote 327 MB of such rows to the failed file in 15 s. A dictionary page with fewer entries than its indices need turns the
 * rows that point past it into the same empty rows. And a row group whose row count is lost (one flipped byte of the footer) is read
 * as no rows: "✔ 0 accepted of 0 rows", exit 0, though the file's own count says 20. None of these is a row with no user: the file
 * is damaged, and the batch should stop as it does on a page it cannot read ("could not be read"). Fails on ae48731 at the
 * assertions that name the bug.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parquetMetadata, type FileMetaData } from 'hyparquet';
import { ByteWriter, parquetWriteFile } from 'hyparquet-writer';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const ROWS = 20;

/** A Parquet file of one required UTF-8 column `uid` (users d0..d9, repeated: 200 rows are dictionary-encoded), uncompressed. */
function write(file: string, rows = ROWS): Buffer {
  parquetWriteFile({
    filename: file,
    codec: 'UNCOMPRESSED',
    schema: [
      { name: 'root', num_children: 1 },
      { name: 'uid', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    ],
    columnData: [{ name: 'uid', data: Array.from({ length: rows }, (_, i) => `d${i % 10}`) }],
  });
  return fs.readFileSync(file);
}

/** `bytes` with its footer written again after `change`. */
function withFooter(bytes: Buffer, change: (metadata: FileMetaData) => void): Buffer {
  const length = bytes.readUInt32LE(bytes.length - 8);
  const metadata = parquetMetadata(new Uint8Array(bytes));
  change(metadata);
  const writer = new ByteWriter();
  writeMetadata(writer, metadata as Parameters<typeof writeMetadata>[1]); // its own copy of hyparquet's types
  const footer = Buffer.from(writer.getBuffer());
  const tail = Buffer.alloc(8);
  tail.writeUInt32LE(footer.length, 0);
  tail.write('PAR1', 4);
  return Buffer.concat([bytes.subarray(0, bytes.length - 8 - length), footer, tail]);
}

async function batch(file: string) {
  const failed = path.join(box.home, 'failed.csv');
  const result = await run(['batch', file, '--trigger', 'p', '--columns', 'userId=uid', '--failed', failed], { env: box.env });
  const kept = fs.existsSync(failed) ? fs.readFileSync(failed, 'utf8') : '';
  return { ...result, empty: kept.split('\n').filter((line) => line.includes('empty userId')).length };
}

describe('a Parquet file whose data does not hold what its footer says', () => {
  it('a footer that promises more rows than the column holds: no rows are invented', async () => {
    const file = path.join(box.home, 'more.parquet');
    fs.writeFileSync(
      file,
      withFooter(write(file), (m) => {
        m.num_rows = BigInt(3 * ROWS);
        m.row_groups[0]!.num_rows = BigInt(3 * ROWS);
      }),
    );
    const result = await batch(file);
    expect(server.requests.length).toBeLessThanOrEqual(ROWS); // the 20 real rows are sent (on ae48731; a fix may stop before)...
    // ...but on ae48731 40 more are made up: "p,,,"line 21: invalid, not sent: empty userId (as read: ,,)"", … line 60; exit 1.
    expect(result.empty).toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('could not be read');
  });

  it("a row group whose row count is lost (the file's own count still 20): the file is not read as no rows with exit 0", async () => {
    const file = path.join(box.home, 'lost.parquet');
    // What one flipped byte in the footer did (fuzzing base.parquet: "✔ 0 accepted · 0 failed · 0 invalid of 0 rows", exit 0).
    fs.writeFileSync(
      file,
      withFooter(write(file), (m) => {
        delete (m.row_groups[0] as { num_rows?: bigint }).num_rows;
      }),
    );
    const result = await batch(file);
    // On ae48731: "✔ 0 accepted · 0 failed · 0 invalid of 0 rows", exit 0: 20 rows the footer counts are sent nowhere, kept nowhere.
    expect(result.stdout).not.toMatch(/^✔/);
    expect(result.code).not.toBe(0);
  });

  it('dictionary indices past the dictionary: the rows are damage, not rows with no user', async () => {
    const file = path.join(box.home, 'dictionary.parquet');
    const bytes = write(file, 200);
    const metadata = parquetMetadata(new Uint8Array(bytes));
    const at = Number(metadata.row_groups[0]!.columns[0]!.meta_data!.dictionary_page_offset);
    // The dictionary page's header ends with its DictionaryPageHeader: field 1 (num_values, i32 zigzag 10 = 0x14) -> 2 (0x04).
    const header = bytes.subarray(at, at + 16);
    const where = header.indexOf(Buffer.from([0x15, 0x14]), header.indexOf(0x4c)); // after the struct's field header (field 7)
    expect(where).toBeGreaterThan(0);
    bytes[at + where + 1] = 0x04;
    fs.writeFileSync(file, bytes);
    const result = await batch(file);
    // On ae48731 the 40 rows of d0 and d1 are sent and the 160 others kept as "invalid, not sent: empty userId (as read: ,,)", exit 1.
    expect(result.empty).toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('could not be read');
  });
});

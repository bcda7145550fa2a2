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
    // On ae48731 the 20 real rows were sent, and 40 more made up: "p,,,"line 21: invalid, not sent: empty userId (as read: ,,)"", …
    // line 60; exit 1. fix27d: the counts are checked as the file opens, so it is refused before a row is sent.
    expect(result.empty).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${file} is not a readable Parquet file: its column uid holds 20 values in row group 1, which has 60 rows`,
    );
  });

  it('a footer that says fewer rows than the column holds: not "✔ 10 accepted of 10 rows", the other 10 lost unsaid', async () => {
    const file = path.join(box.home, 'fewer.parquet');
    fs.writeFileSync(
      file,
      withFooter(write(file), (m) => {
        m.num_rows = BigInt(ROWS / 2);
        m.row_groups[0]!.num_rows = BigInt(ROWS / 2);
      }),
    );
    const result = await batch(file);
    // Before (9acec57): "✔ 10 accepted of 10 rows", exit 0.
    expect({ code: result.code, stdout: result.stdout, requests: server.requests.length }).toEqual({ code: 2, stdout: '', requests: 0 });
    expect(result.stderr).toContain('its column uid holds 20 values in row group 1, which has 10 rows; nothing was sent');
  });

  it('a data page past the end of the file: its rows are damage, not rows with no user', async () => {
    const file = path.join(box.home, 'past.parquet');
    const bytes = write(file);
    fs.writeFileSync(
      file,
      withFooter(bytes, (m) => {
        const chunk = m.row_groups[0]!.columns[0]!.meta_data!;
        chunk.data_page_offset = BigInt(bytes.length + 1000);
        delete chunk.dictionary_page_offset;
      }),
    );
    const result = await batch(file);
    // Before (9acec57): the 20 rows kept as "invalid, not sent: empty userId (as read: ,,)", exit 1.
    expect(result.empty).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(`${result.stdout}${result.stderr}`).toContain('could not be read');
  });

  it('a footer whose fields are of the wrong type: said to be damaged, not in the words of the library inside', async () => {
    const file = path.join(box.home, 'field.parquet');
    const bytes = write(file);
    const length = bytes.readUInt32LE(bytes.length - 8);
    // Field 5 of the footer's struct (key_value_metadata, a list) given as an i32 (thrift compact: type 5, field id 5 as zigzag 10).
    const footer = Buffer.concat([bytes.subarray(bytes.length - 8 - length, bytes.length - 9), Buffer.from([0x05, 0x0a, 0x02, 0x00])]);
    const tail = Buffer.alloc(8);
    tail.writeUInt32LE(footer.length, 0);
    tail.write('PAR1', 4);
    fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, bytes.length - 8 - length), footer, tail]));
    const result = await batch(file);
    // Before (9acec57): "… is not a readable Parquet file: metadata.field_5?.map is not a function; nothing was sent".
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: ${file} is not a readable Parquet file: its footer is damaged: it could not be decoded; nothing was sent — ` +
        'check that the export finished and the file was copied whole (a Parquet file ends with its footer)\n',
    );
    expect(server.requests).toHaveLength(0);
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

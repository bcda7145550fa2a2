/** Parquet files for the batch tests, written with hyparquet-writer. */
import fs from 'node:fs';
import { parquetWriteFile } from 'hyparquet-writer';

/** A Parquet file of one UTF-8 column `uid`, users u0, u1, ..., in row groups of `rowGroupSize`; returns its bytes. */
export function uidParquet(filename: string, rows: number, rowGroupSize: number): Buffer {
  parquetWriteFile({
    filename,
    rowGroupSize,
    schema: [
      { name: 'root', num_children: 1 },
      { name: 'uid', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    ],
    columnData: [{ name: 'uid', data: Array.from({ length: rows }, (_, i) => `u${i}`) }],
  });
  return fs.readFileSync(filename);
}

/** `bytes` with 200 bytes flipped from `share` of the way in (a later row group; the footer stays whole). */
export function damagedAt(bytes: Buffer, share: number): Buffer {
  const copy = Buffer.from(bytes);
  const at = Math.floor(copy.length * share);
  for (let i = 0; i < 200; i++) copy[at + i]! ^= 0xff;
  return copy;
}

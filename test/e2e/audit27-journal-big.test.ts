/**
 * audit27 repro: a journal is read whole into one string (journal.ts load(): fs.readFileSync(file, 'utf8'), then split), so the
 * journal of a big backfill cannot be carried on. Two records a row ("s N", "a N"): 10 million rows make a 198 MB journal, whose
 * --resume took 52 s and 2.1 GB before sending anything; 28 million rows (594 MB) end as "error: this is a bug in trigger …: Cannot
 * create a string longer than 0x1fffffe8 characters", exit 70, after 25 s: the batch can then be neither resumed nor run again
 * without sending its accepted rows twice. The journal here is a real one whose file is made 513 MiB long by a sparse tail of
 * NUL bytes (what a file system can leave after a crash, and a size this test can make without writing it). Fails on ae48731.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { type TestServer, useServer } from '../helpers/server.js';
import { csvRows } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

describe('a journal over 512 MiB', () => {
  it('is read, not a crash: --resume of a finished batch sends nothing again', async () => {
    const input = path.join(box.home, 'in.csv');
    fs.writeFileSync(input, csvRows(3));
    const journal = path.join(box.home, 'b.journal');
    const args = ['batch', input, '--journal', journal, '--failed', path.join(box.home, 'failed.csv')];
    expect((await run(args, { env: box.env })).code).toBe(0);
    expect(server.requests).toHaveLength(3);
    fs.truncateSync(journal, 513 * 1024 * 1024); // past the 512 MiB a string can hold; sparse: no disk written
    const result = await run([...args, '--resume'], { env: box.env });
    // On ae48731: "error: this is a bug in trigger 0.1.0 (…): Cannot create a string longer than 0x1fffffe8 characters", exit 70.
    expect(result.stderr).not.toContain('bug in trigger');
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(3);
  });
});

/**
 * audit27 repro: files joined with cat, each saved with a UTF-8 BOM ("CSV UTF-8" from Excel, many Windows exports), repeat their
 * header with a BOM in front. The repeated header without a BOM is an invalid row ("the header again (give the files, not cat of
 * them)"); with the BOM it is not recognised (rows.ts compares the fields as read), and is sent as an event: here for the user
 * "\uFEFFuser_id", recorded, exit 0, and the dry run and its count saw nothing wrong. Fails on ae48731 at the assertion that names the bug.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { type TestServer, useServer } from '../helpers/server.js';
import { userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

describe('a header repeated with a BOM in front (cat of BOM-started files)', () => {
  it('is the header again, not a row sent', async () => {
    const file = path.join(box.home, 'all.csv');
    fs.writeFileSync(file, '\uFEFFuser_id,country\nalice,FR\n\uFEFFuser_id,country\nbob,DE\n');
    const failed = path.join(box.home, 'failed.csv');
    const result = await run(['batch', file, '--trigger', 'welcome', '--columns', 'userId=user_id', '--failed', failed], { env: box.env });
    // On ae48731 three events are recorded, the second for the user "\uFEFFuser_id", and the run ends "✔ 3 accepted of 3 rows", exit 0.
    expect(server.requests.map((r) => userOf(r.url))).toEqual(['alice', 'bob']);
    expect(result.code).toBe(1);
    expect(fs.readFileSync(failed, 'utf8')).toContain('the header again');
  });
});

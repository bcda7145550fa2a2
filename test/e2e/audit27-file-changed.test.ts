/**
 * audit27 repro: a CSV file that is cut short while the batch reads it (an export re-run, a sync or a copy replacing it; the same as
 * reading a file its writer has not finished) ends as a success. The torn last line is sent as a user id the file never held, the
 * rows after it are in no place, and the run says "✔ N accepted of N rows", exit 0, though it had counted the file's rows for its
 * progress line before. With --journal the journal is closed as done for bytes it never read, so neither --resume nor a second run
 * can carry it on. Fails on ae48731 at the assertions that name the bug.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';
import { userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const ROWS = 3000;
const id = (i: number) => `u${i}-${'x'.repeat(1000)}`; // long rows: half the file's bytes are some 1,500 rows

describe.each([[[] as string[]], [['--journal', 'b.journal']]])('a CSV cut short while it is read (%j)', (extra) => {
  it('does not send the torn line as a user, and does not end as a success', async () => {
    const file = path.join(box.home, 'events.csv');
    const ids = Array.from({ length: ROWS }, (_, i) => id(i));
    fs.writeFileSync(file, `triggerId,userId\n${ids.map((u) => `t,${u}`).join('\n')}\n`);
    const cut = Math.floor(fs.statSync(file).size / 2); // inside a row's x's
    server.handle((_req, res, index) => {
      if (index === 0) fs.truncateSync(file, cut); // the export is written again (or a copy replaces it) while the batch runs
      json(res, 200, { success: true });
    });
    const result = await run(['batch', file, '--failed', path.join(box.home, 'failed.csv'), ...extra], { env: box.env });
    const known = new Set(ids);
    const torn = server.requests.map((r) => userOf(r.url)).filter((user) => !known.has(user));
    // On ae48731 the last, torn line is sent: "u1500-xxx…", 544 of its 1,006 characters, an id the file never held.
    expect(torn.map((user) => `${user.slice(0, 12)}… (${user.length} characters)`)).toEqual([]);
    // ...and the run ends "✔ 1,501 accepted of 1,501 rows", exit 0: the other 1,499 rows are in no place and nothing says so.
    expect(result.stdout).not.toMatch(/^✔/);
    expect(result.code).not.toBe(0);
  });
});

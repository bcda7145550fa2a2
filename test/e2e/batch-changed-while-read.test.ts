/**
 * A file written while the batch reads it (audit27 #1, beyond its repro of a file cut short): one its writer has not finished grows
 * after the listing, its last line still torn; an export run again rewrites one in place at the same size. Each piece read is checked to
 * be of the file as listed before it is handed on, so neither the torn line, nor rows the listing (and the journal's hash) did not hold,
 * nor rows of the new content are sent: the batch stops as on damage, and the command it prints sends the rest, each row once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';
import { keptRows, printedNext, userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const ids = Array.from({ length: 3000 }, (_, i) => `u${i}-${'x'.repeat(1000)}`); // 3 MB: the reader is mid-file at the first request
const late = Array.from({ length: 200 }, (_, i) => `late${i}`);

describe('a CSV written while it is read', () => {
  it('grown after the listing (a writer mid-line): neither its torn line nor later rows are sent; the rest sends them once', async () => {
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, `triggerId,userId\n${ids.map((u) => `t,${u}\n`).join('')}t,torn`);
    server.handle((_req, res, index) => {
      if (index === 0) fs.appendFileSync(file, `-whole\n${late.map((u) => `t,${u}\n`).join('')}`); // the writer carries on
      json(res, 200, { success: true });
    });
    const failed = path.join(box.home, 'failed.csv');
    const result = await run(['batch', file, '--failed', failed, '--journal', 'b.journal'], { env: box.env });
    const listed = new Set(ids);
    // Before the fix: "torn" (the line as listed) or "torn-whole" and the 200 rows after it were sent, rows the journal never hashed.
    expect(server.requests.map((r) => userOf(r.url)).filter((user) => !listed.has(user))).toEqual([]);
    expect(result.stdout).toContain('changed while it was read');
    expect(result.code).toBe(2);
    const first = server.requests.length;
    const rest = await run(printedNext(result), { env: box.env });
    expect(rest.code).toBe(0);
    const sent = server.requests.map((r) => userOf(r.url));
    expect(sent.slice(first)).toContain('torn-whole');
    // Every row of the file as it ends up, in exactly one place: sent by one of the runs, or kept in the failed file.
    const placed = [...sent, ...keptRows(fs.readFileSync(failed, 'utf8')).map((r) => r.user)];
    expect(placed.sort()).toEqual([...ids, 'torn-whole', ...late].sort());
  });

  it('rewritten in place at the same size: no row of the new content is sent, and the run is no success', async () => {
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, `triggerId,userId\n${ids.map((u) => `t,${u}\n`).join('')}`);
    server.handle((_req, res, index) => {
      if (index === 0) fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replaceAll('x', 'y')); // an export run again
      json(res, 200, { success: true });
    });
    const result = await run(['batch', file, '--failed', path.join(box.home, 'failed.csv')], { env: box.env });
    const listed = new Set(ids);
    // Before the fix: the rows read after the rewrite went out as users "u1234-yyy…", exit 0.
    expect(server.requests.filter((r) => !listed.has(userOf(r.url)))).toHaveLength(0);
    expect(result.stdout).toContain('changed while it was read');
    expect(result.code).toBe(2);
  });
});

/**
 * audit24 item 16: batch --json's fields for rows not sent. A row the service pushed back (429, 503) that a stop then left unsent said
 * `status: null, attempts: 0` although its requests were answered (477 answers for two rows); a row pushed back as the batch stopped was
 * kept as failed with only its last attempt. Both are now unsent (the contract: a row waiting to be sent again is not sent after a
 * stop) with their answers. A dry run's row has the same fields as every other row.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';
import { csvRows } from '../helpers/batch.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

interface RowResult {
  ok: boolean;
  status: number | null;
  attempts: number;
  durationMs: number;
  requestId: string | null;
  error?: { kind: string; recorded: string };
}

it('a row pushed back and not sent again says its answers: every request the server had is in one row, none recorded', async () => {
  // Accepted 5 times, then 429 with a Retry-After beyond what a batch waits: the pace stops the batch.
  server.handle((_req, res, i) =>
    i < 5 ? json(res, 200, { success: true }) : json(res, 429, { error: 'quota' }, { 'retry-after': '3600', 'x-request-id': `r${i}` }),
  );
  const input = path.join(sandbox.home, 'in.csv');
  fs.writeFileSync(input, csvRows(200));
  const result = await runCommand(['batch', input, '--json', '--failed', path.join(sandbox.home, 'f.csv')], sandbox.env);
  expect(result.code).toBe(1);
  const rows = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RowResult);
  expect(rows).toHaveLength(200);
  expect(rows.reduce((n, row) => n + row.attempts, 0)).toBe(server.requests.length);
  const pushed = rows.filter((row) => row.status === 429);
  expect(pushed.length).toBe(server.requests.length - 5);
  for (const row of pushed) {
    expect(row).toMatchObject({ ok: false, attempts: 1, error: { kind: 'unsent', recorded: 'no' } });
    expect(row.requestId).toMatch(/^r\d+$/);
  }
});

it("a dry run's row has the fields of every other row: status, attempts, durationMs and requestId", async () => {
  const input = path.join(sandbox.home, 'in.csv');
  fs.writeFileSync(input, 'triggerId,userId,value\nt,a,1.50\n');
  const result = await runCommand(['batch', input, '--json', '--dry-run'], sandbox.env);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(
    '{"line":2,"ok":true,"dryRun":true,"status":null,"triggerId":"t","userId":"a","value":1.50,"attempts":0,"durationMs":0,"requestId":null}\n',
  );
});

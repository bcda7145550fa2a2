/**
 * `trigger batch` with --concurrency auto (the default) against a real server on 127.0.0.1 that
 * pushes back, spawned for what only a process shows: a real SIGINT ending a pause. The push-back,
 * Retry-After, limits and options cases run in-process: test/in-process/batch-pace.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { json, killAfter, type TestServer, useServer } from '../helpers/server.js';
import { csvRows } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const csv = (rows: number) => {
  const target = path.join(box.home, 'rows.csv');
  fs.writeFileSync(target, csvRows(rows));
  return target;
};
const failedFile = () => path.join(box.home, 'failed.csv');
const failedRows = () => fs.readFileSync(failedFile(), 'utf8').trim().split('\n').length - 1;
const batch = (args: string[], onSpawn?: Parameters<typeof run>[1]['onSpawn'], timeoutMs = 60_000) =>
  run(['batch', ...args, '--failed', failedFile()], { env: box.env, timeoutMs, onSpawn });

describe('--concurrency auto: push-back', () => {
  it('a signal ends a pause at once: the rows are kept and the batch exits 130', async () => {
    // Retry-After: 50 s, and the run is killed after 30: a batch that waited it out would not exit 130.
    // That the stop ends the pause at once, on the clock: test/unit/pace-runner.test.ts.
    server.handle((_req, res) => json(res, 503, { error: 'overloaded' }, { 'retry-after': '50' }));
    const result = await batch([csv(40)], killAfter(server, 1, 'SIGINT'), 30_000);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(130);
    expect(failedRows()).toBe(40);
    expect(result.stderr).toMatch(/answers? pushed back/);
  }, 40_000);
});

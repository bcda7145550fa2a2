/**
 * Limits of the machine, met for real: a batch with more connections than the process may open
 * (`ulimit -n 32` with `--concurrency 256`) says what happened and how to fix it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, TEST_KEY, expectNoKey, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
let box: Sandbox | undefined;
afterEach(async () => {
  await server?.close();
  box?.cleanup();
  server = box = undefined;
});

describe('too many open files', () => {
  it('names EMFILE and the fix (lower --concurrency, or raise ulimit -n), never "undefined"', async () => {
    // Slow answers, so that many connections are wanted at once.
    server = await startServer((_req, res) => {
      setTimeout(() => json(res, 200, { success: true }), 150);
    });
    box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
    const input = path.join(box.home, 'rows.csv');
    const failed = path.join(box.home, 'failed.csv');
    fs.writeFileSync(input, `triggerId,userId\n${Array.from({ length: 300 }, (_, i) => `t,u${i}`).join('\n')}\n`);
    const result = await run(
      [
        '-c',
        'ulimit -n 32 && exec "$@"',
        'sh',
        process.execPath,
        BIN,
        'batch',
        input,
        '--concurrency',
        '256',
        '--retries',
        '0',
        '--failed',
        failed,
      ],
      { env: box.env, cwd: box.home, command: 'sh', timeoutMs: 60_000 },
    );
    expect(result.code).toBe(1);
    const kept = fs.readFileSync(failed, 'utf8').trim().split('\n').slice(1);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept[0]).toMatch(/too many open files \(EMFILE, the limit ulimit -n sets\): lower --concurrency, or raise the limit/);
    expect(kept.some((row) => /outcome unknown/.test(row))).toBe(false); // nothing was sent for them
    expect(result.stderr).toMatch(/too many open files \(EMFILE/);
    expect(result.stderr + kept.join('\n')).not.toMatch(/undefined/);
    // Every row is in one place: accepted at the server, or kept.
    expect(server.requests.length + kept.length).toBe(300);
    expectNoKey(result);
  }, 90_000);
});

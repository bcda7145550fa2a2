/**
 * audit26b #3: a row answered 500 was kept, after the printed --resume, as "in flight when an earlier run of this batch ended":
 * the journal recorded only that its outcome was unknown, so the service's answer and its request id, which are what a person
 * checks the row by, were lost from the failed file. Built binary, stopped by SIGINT; a node:http server on 127.0.0.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { json, killAfter, startServer, type TestServer } from '../helpers/server.js';
import { csvOf, keptRows, printedNext, userOf, users } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});
const trigger = (args: string[], options: { onSpawn?: Parameters<typeof run>[1]['onSpawn'] } = {}) =>
  run(args, { env: box.env, cwd: box.home, timeoutMs: 30_000, ...options });

it('a row answered 500 keeps that cause and its request id in the failed file after the printed --resume', async () => {
  server.handle(async (req, res) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (userOf(req.url) === 'u3') json(res, 500, { error: 'boom' }, { 'x-request-id': 'req-u3' });
    else json(res, 200, { success: true });
  });
  fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(users(400)));
  const stopped = await trigger(['batch', 'in.csv', '--journal', 'j', '--failed', 'f.csv', '--concurrency', '4'], {
    onSpawn: killAfter(server, 40, 'SIGINT'),
  });
  expect(stopped.code).toBe(130);
  const kept = () => keptRows(fs.readFileSync(path.join(box.home, 'f.csv'), 'utf8')).find((row) => row.user === 'u3')?.error;
  const before = kept();
  expect(before).toMatch(/^line 5: outcome unknown: no definitive answer: 500 .*\(request id req-u3\)$/);
  const resumed = await trigger(printedNext(stopped));
  expect(resumed.code).toBe(1);
  expect(kept()).toBe(before); // was "line 5: outcome unknown: in flight when an earlier run of this batch ended: ..."
  expect(resumed.stderr).toContain(`✖ ${before}`);
  expect(server.requests.filter((r) => userOf(r.url) === 'u3')).toHaveLength(1);
}, 60_000);

/**
 * `trigger fire --dry-run` prints a curl command that reads the key from $TRIGGER_API_KEY; when that
 * variable is not set, one note says where the key is instead: given with --api-key, in the profile,
 * or nowhere (test/in-process/fire-service.test.ts has the last two).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;

beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: '', TRIGGER_BASE_URL: '' });
  box.env.TRIGGER_BASE_URL = server.url;
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

it('--dry-run with --api-key and no $TRIGGER_API_KEY says the key was given with --api-key, and sends nothing', async () => {
  const result = await run(['fire', 't', 'u', '--dry-run', '--api-key', TEST_KEY], { env: { ...box.env, TRIGGER_API_KEY: undefined } });
  expect(result.code).toBe(0);
  expect(result.stderr).toBe(
    'note: the command reads the key from $TRIGGER_API_KEY, which is not set in this shell (the key was given with --api-key): export it before running it\n',
  );
  expect(result.stdout).toContain('Authorization: Bearer $TRIGGER_API_KEY');
  expect(server.requests).toHaveLength(0);
  expectNoKey(result);
});

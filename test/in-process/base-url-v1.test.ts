/**
 * A base URL that already ends in /v1: the tool adds /v1 itself, so it is kept but warned about
 * when it is set (config set-base-url) or given (--base-url, TRIGGER_BASE_URL), naming the path that
 * requests will take, which the test server then sees. In-process: only messages, files and what
 * the server received are checked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { startServer, type TestServer } from '../helpers/server.js';

let box: Sandbox;
let server: TestServer;
beforeEach(async () => {
  box = sandbox();
  server = await startServer();
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const cli = (args: string[], env: NodeJS.ProcessEnv = box.env) => run(args, { env });

describe('a base URL ending in /v1', () => {
  it.each([
    ['https://api.example.com/v1', 'https://api.example.com'],
    ['https://api.example.com/v1/', 'https://api.example.com'],
    ['https://api.example.com/api/V1', 'https://api.example.com/api'],
  ])('config set-base-url %s: saved, with a warning that names the path requests take', async (url, without) => {
    const result = await cli(['config', 'set-base-url', url]);
    expect(result.code).toBe(0);
    const href = url.replace(/\/$/, '');
    expect(result.stderr).toBe(
      `warning: the base URL ${href} ends in /v1, and trigger adds /v1 itself, so requests go to ${href}/v1/triggers/...; if the service is at ${without}, use that\n`,
    );
    const stored = JSON.parse(fs.readFileSync(path.join(box.configDir, 'config.json'), 'utf8')) as {
      profiles: { default: { baseUrl: string } };
    };
    expect(stored.profiles.default.baseUrl).toBe(href);

    // Only a last segment that is exactly v1 (in any case) is warned about.
    for (const other of ['https://api.example.com/v10', 'https://api.example.com/v1x', 'https://v1.example.com']) {
      const quiet = await cli(['config', 'set-base-url', other]);
      expect([quiet.code, quiet.stderr]).toEqual([0, '']);
    }
  });

  it('--base-url and TRIGGER_BASE_URL warn on each run, naming where the URL came from; the request goes where it says', async () => {
    const env = { ...box.env, TRIGGER_API_KEY: TEST_KEY };
    // A stored URL was warned about when it was set, not on every fire.
    await cli(['config', 'set-base-url', `${server.url}/v1`]);
    const stored = await cli(['fire', 't', 'u'], env);
    expect([stored.code, stored.stderr]).toEqual([0, '']);
    const flag = await cli(['fire', 't', 'u', '--base-url', `${server.url}/v1`], env);
    expect(flag.code).toBe(0);
    expect(flag.stderr).toContain(
      `warning: the base URL ${server.url}/v1 (from --base-url) ends in /v1, and trigger adds /v1 itself, so requests go to ${server.url}/v1/v1/triggers/...`,
    );
    const fromEnv = await cli(['fire', 't', 'u', '--json'], { ...env, TRIGGER_BASE_URL: `${server.url}/v1/` });
    expect(fromEnv.code).toBe(0);
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ ok: true });
    expect(fromEnv.stderr).toContain(`warning: the base URL ${server.url}/v1 (from TRIGGER_BASE_URL) ends in /v1`);
    expect(server.requests.map((r) => r.url)).toEqual(Array(3).fill('/v1/v1/triggers/t/users/u/events'));
    expectNoKey(flag);
    expectNoKey(fromEnv);
  });
});

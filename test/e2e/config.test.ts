/**
 * trigger config, and settings precedence as the server sees it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';

let box: Sandbox;
let file: string;

beforeEach(() => {
  box = sandbox();
  file = path.join(box.configDir, 'config.json');
});
afterEach(() => box.cleanup());

const cli = (args: string[], input?: string, env: NodeJS.ProcessEnv = box.env) => run(args, { env, input });
const stored = () => JSON.parse(fs.readFileSync(file, 'utf8')) as { profiles: Record<string, Record<string, unknown>> };

describe('trigger config', () => {
  it('set-key from piped stdin: trimmed, file 0600 in a 0700 folder, key not printed', async () => {
    const result = await cli(['config', 'set-key'], `  ${TEST_KEY}\n`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('••••z789');
    expectNoKey(result);
    expect(stored().profiles.default?.apiKey === TEST_KEY).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(box.configDir).mode & 0o777).toBe(0o700);
  });

  it('set-key from an argument, into a named profile', async () => {
    const result = await cli(['config', 'set-key', TEST_KEY, '--profile', 'staging']);
    expect(result.code).toBe(0);
    expect(stored().profiles.staging?.apiKey === TEST_KEY).toBe(true);
  });

  it('refuses an empty key or one with inner white space, and keeps the stored one', async () => {
    await cli(['config', 'set-key'], TEST_KEY);
    const empty = await cli(['config', 'set-key'], '\n');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no key given');
    const spaced = await cli(['config', 'set-key'], 'two words');
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain('contains a space at position 4');
    expect(stored().profiles.default?.apiKey === TEST_KEY).toBe(true);
  });

  it('writing one value keeps every other value, profile and unknown key', async () => {
    fs.mkdirSync(box.configDir, { recursive: true });
    fs.writeFileSync(
      file,
      JSON.stringify({ note: 'mine', profiles: { default: { apiKey: 'old_key_1', baseUrl: 'https://a.example.com', extra: 1 }, prod: { apiKey: 'prod_key_1' } } }),
      { mode: 0o644 },
    );
    const result = await cli(['config', 'set-base-url', 'https://b.example.com/api/']);
    expect(result.code).toBe(0);
    expect(stored()).toEqual({
      note: 'mine',
      profiles: { default: { apiKey: 'old_key_1', baseUrl: 'https://b.example.com/api', extra: 1 }, prod: { apiKey: 'prod_key_1' } },
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('get, list, unset and path', async () => {
    await cli(['config', 'set-key'], TEST_KEY);
    await cli(['config', 'set-base-url', 'https://api.example.com']);
    await cli(['config', 'set-base-url', 'http://localhost:8787', '--profile', 'local']);

    expect((await cli(['config', 'get', 'base-url'])).stdout).toBe('https://api.example.com\n');
    const key = await cli(['config', 'get', 'api-key']);
    expect(key.stdout).toBe('••••z789\n');
    expectNoKey(key);

    const all = await cli(['config', 'get', '--json']);
    expect(JSON.parse(all.stdout)).toEqual({ profile: 'default', 'api-key': '••••z789', 'base-url': 'https://api.example.com' });

    const list = await cli(['config', 'list']);
    expect(list.stdout).toContain('default (active)');
    expect(list.stdout).toContain('local');
    expect(list.stdout).toContain('http://localhost:8787');
    expectNoKey(list);

    const listed = await cli(['config', 'list'], undefined, { ...box.env, TRIGGER_PROFILE: 'local' });
    expect(listed.stdout).toContain('local (active)');

    const unset = await cli(['config', 'unset', 'base-url']);
    expect(unset.code).toBe(0);
    expect(stored().profiles.default).toEqual({ apiKey: TEST_KEY });
    const missing = await cli(['config', 'get', 'base-url']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('trigger config set-base-url');

    expect((await cli(['config', 'path'])).stdout).toBe(`${file}\n`);
  });

  it('the config path follows XDG_CONFIG_HOME when TRIGGER_CONFIG_DIR is not set', async () => {
    const env = { ...box.env };
    delete env.TRIGGER_CONFIG_DIR;
    const result = await cli(['config', 'path'], undefined, env);
    expect(result.stdout).toBe(`${path.join(box.home, '.config', 'trigger', 'config.json')}\n`);
  });

  it('refuses a base URL that would leak the key, and an unknown setting name', async () => {
    const http = await cli(['config', 'set-base-url', 'http://example.com']);
    expect(http.code).toBe(2);
    expect(http.stderr).toContain('--allow-http');
    const query = await cli(['config', 'set-base-url', 'https://example.com/?x=1']);
    expect(query.code).toBe(2);
    const unknown = await cli(['config', 'get', 'colour']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('api-key, base-url');
    expect(fs.existsSync(file)).toBe(false);
  });

  it('a corrupt config file is reported with its path and never overwritten', async () => {
    fs.mkdirSync(box.configDir, { recursive: true });
    fs.writeFileSync(file, 'not json at all');
    for (const args of [['config', 'set-key', TEST_KEY], ['config', 'set-base-url', 'https://x.example.com'], ['config', 'list'], ['config', 'unset', 'api-key']]) {
      const result = await cli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(file);
      expectNoKey(result);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('not json at all');
  });
});

describe('precedence as the server sees it', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(async () => server.close());

  it('flag > env > profile, for the key and the base URL', async () => {
    await cli(['config', 'set-key', 'key_from_profile']);
    await cli(['config', 'set-base-url', server.url]);
    await cli(['config', 'set-key', 'key_from_staging', '--profile', 'staging']);
    await cli(['config', 'set-base-url', `${server.url}/staging`, '--profile', 'staging']);

    await cli(['fire', 't', 'u']);
    await cli(['fire', 't', 'u'], undefined, { ...box.env, TRIGGER_API_KEY: 'key_from_env' });
    await cli(['fire', 't', 'u', '--api-key', 'key_from_flag'], undefined, { ...box.env, TRIGGER_API_KEY: 'key_from_env' });
    await cli(['fire', 't', 'u'], undefined, { ...box.env, TRIGGER_PROFILE: 'staging' });
    await cli(['fire', 't', 'u', '--profile', 'default'], undefined, { ...box.env, TRIGGER_PROFILE: 'staging' });
    await cli(['fire', 't', 'u', '--base-url', `${server.url}/flag`], undefined, { ...box.env, TRIGGER_BASE_URL: `${server.url}/env` });
    await cli(['fire', 't', 'u'], undefined, { ...box.env, TRIGGER_BASE_URL: `${server.url}/env` });

    expect(server.requests.map((r) => [r.headers.authorization, r.url])).toEqual([
      ['Bearer key_from_profile', '/v1/triggers/t/users/u/events'],
      ['Bearer key_from_env', '/v1/triggers/t/users/u/events'],
      ['Bearer key_from_flag', '/v1/triggers/t/users/u/events'],
      ['Bearer key_from_staging', '/staging/v1/triggers/t/users/u/events'],
      ['Bearer key_from_profile', '/v1/triggers/t/users/u/events'],
      ['Bearer key_from_profile', '/flag/v1/triggers/t/users/u/events'],
      ['Bearer key_from_profile', '/env/v1/triggers/t/users/u/events'],
    ]);
  });

  it('an unknown profile is a usage error that lists the known ones', async () => {
    await cli(['config', 'set-key', 'key_1234', '--profile', 'prod']);
    const result = await cli(['fire', 't', 'u', '--profile', 'prdo', '--base-url', server.url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('known profiles: prod');
    expect(server.requests).toHaveLength(0);
  });
});

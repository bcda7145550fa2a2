/**
 * trigger config, and settings precedence as the server sees it, in-process (main() with the
 * sandbox's environment, against a real server on 127.0.0.1). test/e2e/config.test.ts keeps what
 * needs a process: a key piped to standard input, and twenty processes writing the file at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
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
  it('set-key from an argument, into a named profile', async () => {
    const result = await cli(['config', 'set-key', TEST_KEY, '--profile', 'staging']);
    expect(result.code).toBe(0);
    expect(stored().profiles.staging?.apiKey === TEST_KEY).toBe(true);
  });

  it('writing one value keeps every other value, profile and unknown key', async () => {
    fs.mkdirSync(box.configDir, { recursive: true });
    fs.writeFileSync(
      file,
      JSON.stringify({
        note: 'mine',
        profiles: { default: { apiKey: 'old_key_1', baseUrl: 'https://a.example.com', extra: 1 }, prod: { apiKey: 'prod_key_1' } },
      }),
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
    await cli(['config', 'set-key', TEST_KEY]); // piped in, in test/e2e/config.test.ts
    await cli(['config', 'set-base-url', 'https://api.example.com']);
    await cli(['config', 'set-base-url', 'http://localhost:8787', '--profile', 'local']);

    expect((await cli(['config', 'get', 'base-url'])).stdout).toBe('https://api.example.com\n');
    const key = await cli(['config', 'get', 'api-key']);
    expect(key.stdout).toBe('••••z789\n');
    expectNoKey(key);

    const all = await cli(['config', 'get', '--json']);
    // camelCase, as in status --json
    expect(JSON.parse(all.stdout)).toEqual({
      profile: 'default',
      apiKey: '••••z789',
      baseUrl: 'https://api.example.com',
      overriddenBy: {},
    });
    expect(JSON.parse((await cli(['config', 'get', 'base-url', '--json'])).stdout)).toEqual({
      profile: 'default',
      baseUrl: 'https://api.example.com',
      overriddenBy: {},
    });
    const listed = await cli(['config', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual({
      file,
      active: 'default',
      profiles: [
        { profile: 'default', active: true, apiKey: '••••z789', baseUrl: 'https://api.example.com' },
        { profile: 'local', active: false, apiKey: null, baseUrl: 'http://localhost:8787' },
      ],
    });
    expectNoKey(listed);

    const list = await cli(['config', 'list']);
    expect(list.stdout).toContain('default (active)');
    expect(list.stdout).toContain('local');
    expect(list.stdout).toContain('http://localhost:8787');
    expectNoKey(list);

    const byEnv = await cli(['config', 'list'], undefined, { ...box.env, TRIGGER_PROFILE: 'local' });
    expect(byEnv.stdout).toContain('local (active: TRIGGER_PROFILE)');

    const unset = await cli(['config', 'unset', 'base-url']);
    expect(unset.code).toBe(0);
    expect(stored().profiles.default).toEqual({ apiKey: TEST_KEY });
    const missing = await cli(['config', 'get', 'base-url']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('trigger config set-base-url');

    expect((await cli(['config', 'path'])).stdout).toBe(`${file}\n`);
    const pathJson = await cli(['config', 'path', '--json']);
    expect([pathJson.code, JSON.parse(pathJson.stdout)]).toEqual([0, { path: file, exists: true }]);
    const elsewhere = await cli(['config', 'path', '--json'], undefined, { ...box.env, TRIGGER_CONFIG_DIR: path.join(box.home, 'none') });
    expect(JSON.parse(elsewhere.stdout)).toEqual({ path: path.join(box.home, 'none', 'config.json'), exists: false });
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
    for (const args of [
      ['config', 'set-key', TEST_KEY],
      ['config', 'set-base-url', 'https://x.example.com'],
      ['config', 'list'],
      ['config', 'unset', 'api-key'],
    ]) {
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
    await cli(['config', 'set-key', 'key_1234_prod', '--profile', 'prod']);
    const result = await cli(['fire', 't', 'u', '--profile', 'prdo', '--base-url', server.url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('known profiles: prod');
    expect(server.requests).toHaveLength(0);
  });
});

describe('profiles: concurrent writes, use, delete, overrides', () => {
  it('a lock that names no process is not broken for its age: exit 2 naming it (test/e2e/settings-lock.test.ts has the rest)', async () => {
    fs.mkdirSync(box.configDir, { recursive: true });
    fs.writeFileSync(`${file}.lock`, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(`${file}.lock`, old, old);
    const result = await cli(['config', 'set-base-url', 'https://api.example.com'], undefined, { ...box.env, TRIGGER_LOCK_WAIT: '0.5' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`its lock ${file}.lock does not say which process holds it; gave up after 0.5 s`);
    expect(result.stderr).toContain(`if no trigger command is running, remove it: rm ${file}.lock`);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('use makes a profile active (list marks it; flags and TRIGGER_PROFILE still win); delete removes it', async () => {
    const server = await startServer();
    try {
      await cli(['config', 'set-key', 'key_default_1234']);
      await cli(['config', 'set-key', 'key_staging_1234', '--profile', 'staging']);
      await cli(['config', 'set-base-url', server.url, '--profile', 'staging']);
      await cli(['config', 'set-base-url', server.url]);
      const unknown = await cli(['config', 'use', 'nope']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('profile "nope" is not in');
      expect(unknown.stderr).toContain('known profiles: default, staging');

      expect((await cli(['config', 'use', 'staging'])).code).toBe(0);
      const list = await cli(['config', 'list']);
      expect(list.stdout).toContain('* staging (active)');
      expect(list.stdout).toMatch(/^ {2}default$/m);
      await cli(['fire', 't', 'u']);
      await cli(['fire', 't', 'u', '--profile', 'default']);
      await cli(['fire', 't', 'u'], undefined, { ...box.env, TRIGGER_PROFILE: 'default' });
      expect(server.requests.map((r) => r.headers.authorization)).toEqual([
        'Bearer key_staging_1234',
        'Bearer key_default_1234',
        'Bearer key_default_1234',
      ]);

      const deleted = await cli(['config', 'delete', 'staging']);
      expect(deleted.code).toBe(0);
      expect(Object.keys(stored().profiles)).toEqual(['default']);
      expect((stored() as { active?: string }).active).toBeUndefined();
      expect((await cli(['config', 'delete', 'staging'])).code).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('get says when the environment overrides the stored value', async () => {
    await cli(['config', 'set-key', TEST_KEY]);
    const env = { ...box.env, TRIGGER_API_KEY: 'env_key_987654321', TRIGGER_BASE_URL: 'https://env.example.com' };
    const human = await cli(['config', 'get'], undefined, env);
    expect(human.stdout).toContain('api-key   ••••z789');
    expect(human.stderr).toContain('note: TRIGGER_API_KEY is set in this environment and overrides the stored api-key');
    expect(human.stderr).toContain('note: TRIGGER_BASE_URL is set in this environment and overrides the stored base-url');
    const json = await cli(['config', 'get', 'api-key', '--json'], undefined, env);
    expect(JSON.parse(json.stdout)).toEqual({ profile: 'default', apiKey: '••••z789', overriddenBy: { apiKey: 'TRIGGER_API_KEY' } });
    const all = await cli(['config', 'get', '--json'], undefined, env);
    expect(JSON.parse(all.stdout)).toMatchObject({ overriddenBy: { apiKey: 'TRIGGER_API_KEY', baseUrl: 'TRIGGER_BASE_URL' } });
    expectNoKey(json, 'env_key_987654321');
  });
});

describe('trigger status', () => {
  it('shows each setting with where it came from, and sends nothing', async () => {
    const server = await startServer();
    try {
      await cli(['config', 'set-key', TEST_KEY]);
      await cli(['config', 'set-base-url', server.url]);
      const human = await cli(['status']);
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(/^profile {3}default \(the default\)$/m);
      expect(human.stdout).toMatch(
        new RegExp(`^api key {3}••••z789 from profile \\(config file\\): profile "default" in ${file.replaceAll('/', '\\/')}$`, 'm'),
      );
      expect(human.stdout).toMatch(/^config {4}.*config\.json \(mode 0600\)$/m);
      expect(human.stdout).toMatch(/^proxy {5}none$/m);
      expect(human.stdout).toMatch(new RegExp(`^versions {2}trigger \\d+\\.\\d+\\.\\d+, node ${process.version}$`, 'm'));
      expectNoKey(human);

      const env = { ...box.env, TRIGGER_API_KEY: 'env_key_987654321', HTTP_PROXY: 'http://127.0.0.1:9' };
      const json = await cli(['status', '--json', '--base-url', server.url], undefined, env);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({
        ok: true,
        profile: { name: 'default', source: 'default' },
        apiKey: { masked: '••••4321', source: 'env', from: 'TRIGGER_API_KEY' },
        baseUrl: { url: server.url, source: 'flag', from: '--base-url' },
        configFile: { path: file, exists: true, mode: '0600' },
        proxy: 'http://127.0.0.1:9',
        versions: { node: process.version },
        problems: [],
      });
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('exit 2 with the command that fixes what is missing', async () => {
    const result = await cli(['status']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^api key {3}not set$/m);
    expect(result.stderr).toContain('error: no API key is set — run: trigger config set-key');
    expect(result.stderr).toContain('error: no base URL is set — run: trigger config set-base-url');
    const json = await cli(['status', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, apiKey: null, baseUrl: null, configFile: { exists: false, mode: null } });
  });
});

describe('config folders that cannot be made', () => {
  it.each([
    ['/proc/nope/x', /cannot create the config folder \/proc\/nope\/x: /],
    ['FILE/sub', /: a file is in the way \(part of the path is a file, not a folder\)/],
  ])('TRIGGER_CONFIG_DIR=%s: one line, exit 2, no wait for a lock', async (dir, message) => {
    const blocker = path.join(box.home, 'FILE');
    fs.writeFileSync(blocker, 'not a folder');
    const target = dir.replace('FILE', blocker);
    // A lock wait of ten minutes: a command that waited for the lock instead of failing at once would
    // outlast the test's own time limit, so no clock needs reading here.
    const env = { ...box.env, TRIGGER_CONFIG_DIR: target, TRIGGER_LOCK_WAIT: '600' };
    const result = await cli(['config', 'set-key', TEST_KEY, '--insecure-storage'], undefined, env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain('a bug in trigger');
  });

  it('an existing folder keeps its mode; a new one is 0700', async () => {
    const project = path.join(box.home, 'project');
    fs.mkdirSync(project, { mode: 0o755 });
    fs.chmodSync(project, 0o755);
    expect((await cli(['config', 'set-key', TEST_KEY], undefined, { ...box.env, TRIGGER_CONFIG_DIR: project })).code).toBe(0);
    expect(fs.statSync(project).mode & 0o777).toBe(0o755);
    expect(fs.statSync(path.join(project, 'config.json')).mode & 0o777).toBe(0o600);
    const fresh = path.join(box.home, 'a', 'b', 'c');
    expect((await cli(['config', 'set-key', TEST_KEY], undefined, { ...box.env, TRIGGER_CONFIG_DIR: fresh })).code).toBe(0);
    for (const level of ['a', 'a/b', 'a/b/c']) expect(fs.statSync(path.join(box.home, level)).mode & 0o777).toBe(0o700);
  });
});

/**
 * The start-up module's off switch (src/startup.ts, docs/startup.md): TRIGGER_NO_STARTUP_CACHE=1 runs
 * the CLI through Node's own require, with nothing read from or written to the cache folder or the
 * config folder's code-cache.json; without it, the same run keeps a cache.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { useServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => {
  server = s;
  box = b;
});

const cacheDir = () => path.join(box.home, '.cache', 'trigger');
const records = () => path.join(box.configDir, 'code-cache.json');

async function fire(env: NodeJS.ProcessEnv) {
  const before = server.requests.length;
  const result = await run(['fire', 'deploy', 'alice', '--value', '2'], { env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^✔ deploy · alice · value 2 · 200 OK/);
  expect(server.requests.length).toBe(before + 1);
}

describe('TRIGGER_NO_STARTUP_CACHE=1', () => {
  const off = () => ({ ...box.env, TRIGGER_NO_STARTUP_CACHE: '1' });

  it('runs a fire as usual with no code cache read or written', async () => {
    await fire(off());
    await fire(off());
    expect(fs.existsSync(cacheDir())).toBe(false);
    expect(fs.existsSync(records())).toBe(false);
  });

  it('still loads the packages left out of the bundle (the keychain module, undici for a proxy)', async () => {
    const stored = await run(['config', 'set-base-url', server.url, '--allow-http'], { env: { ...off(), TRIGGER_BASE_URL: undefined } });
    expect(stored.stderr).toBe('');
    expect(stored.code).toBe(0);
    await fire({ ...off(), HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' });
    expect(fs.existsSync(cacheDir())).toBe(false);
  });

  it('without it, the same run keeps the cache (so the assertions above mean something)', async () => {
    await fire(box.env);
    expect(fs.readdirSync(cacheDir()).filter((f) => f.endsWith('.v8cache'))).toHaveLength(1);
    expect(Object.keys(JSON.parse(fs.readFileSync(records(), 'utf8')) as object)).toHaveLength(1);
  });

  it('answers --version the same either way', async () => {
    const on = await run(['--version'], { env: box.env });
    const off = await run(['--version'], { env: { ...box.env, TRIGGER_NO_STARTUP_CACHE: '1' } });
    expect(on.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(off).toEqual(on);
  });
});

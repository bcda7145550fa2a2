/**
 * The compiled code kept between runs (bin/trigger.cjs): a V8 code cache in the user's cache folder,
 * on every Node version. What is asserted is what a user would notice: the file is there, later runs
 * use it and leave it be, and a damaged, stale or unwritable cache never changes what a command does
 * or prints.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { useServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => {
  server = s;
  box = b;
});

const cacheDir = (env: NodeJS.ProcessEnv = box.env) => path.join(env.XDG_CACHE_HOME ?? path.join(box.home, '.cache'), 'trigger');
const fire = (env: NodeJS.ProcessEnv = box.env) => run(['fire', 'deploy', 'alice', '--value', '2'], { env });

function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .flatMap((d) => (d.isFile() ? [path.join(d.parentPath, d.name)] : []));
}

async function expectFired(env?: NodeJS.ProcessEnv) {
  const before = server.requests.length;
  const result = await fire(env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^✔ deploy · alice · value 2 · 200 OK/);
  expect(server.requests.length).toBe(before + 1);
}

describe('start-up: a V8 code cache in the cache folder', () => {
  const cacheFile = () => {
    const found = files(cacheDir()).filter((f) => f.endsWith('.v8cache') && !path.basename(f).includes('-00000000'));
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  /*
   * The first three share one sandbox: the first writes the cache, and the next two start from it
   * rather than paying a spawned run each to write it again. Run alone (vitest -t), a test writes it
   * in written().
   */
  let shared: Sandbox | undefined;
  const sharing = () => {
    shared ??= sandbox({ TRIGGER_API_KEY: TEST_KEY });
    shared.env.TRIGGER_BASE_URL = server.url;
    box = shared;
  };
  afterAll(() => shared?.cleanup());
  /** Once a run has written the cache (in this sandbox, by an earlier test or now). */
  async function written(): Promise<void> {
    if (!fs.existsSync(cacheDir())) await expectFired();
  }

  it('is written by the first run, named for the versions, used and left alone by the next', async () => {
    sharing();
    await expectFired();
    const file = cacheFile();
    expect(path.basename(file)).toMatch(
      new RegExp(`^cli-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-node${process.versions.node}-${process.arch}\\.v8cache$`),
    );
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const { mtimeMs, size } = fs.statSync(file);
    expect(size).toBeGreaterThan(10_000);

    await expectFired();
    expect(fs.statSync(file).mtimeMs).toBe(mtimeMs); // accepted by V8, so not made again
    expect(files(cacheDir())).toEqual([file]); // no temporary file left
    // The key is in the environment of both runs, never in the compiled code kept on disk.
    expect(fs.readFileSync(file).includes(TEST_KEY)).toBe(false);
  });

  it('imports the packages left out of the bundle when the code comes from the cache', async () => {
    sharing();
    await written();
    // The keychain module and undici's index (a proxy variable) are imported at run time.
    const stored = await run(['config', 'set-base-url', server.url, '--allow-http'], { env: { ...box.env, TRIGGER_BASE_URL: undefined } });
    expect(stored.stderr).toBe('');
    expect(stored.code).toBe(0);
    expect(fs.readFileSync(path.join(box.configDir, 'config.json'), 'utf8')).toContain(server.url);
    await expectFired({ ...box.env, HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' });
  });

  it('replaces a damaged cache file, and the command runs as if there were none', async () => {
    sharing();
    await written();
    const file = cacheFile();
    fs.writeFileSync(file, Buffer.alloc(4096, 7));
    // Named cli-<bundle>-<build>-<flags>-...: what an earlier build of this bundle left (removed), the
    // same build's under other start-up flags (kept: a job may alternate them), another install's (kept).
    const name = path.basename(file);
    const older = path.join(path.dirname(file), `${name.slice(0, 12)}-00000000${name.slice(21)}`);
    const otherFlags = path.join(path.dirname(file), `${name.slice(0, 21)}-00000000${name.slice(30)}`);
    const other = path.join(path.dirname(file), `cli-00000000${name.slice(12)}`);
    for (const f of [older, otherFlags, other]) fs.writeFileSync(f, 'another');

    await expectFired();
    const replaced = fs.readFileSync(file);
    expect(replaced.length).toBeGreaterThan(10_000);
    expect(replaced.equals(Buffer.alloc(replaced.length, 7))).toBe(false);
    expect(fs.existsSync(older)).toBe(false);
    expect(fs.existsSync(otherFlags)).toBe(true);
    expect(fs.existsSync(other)).toBe(true);
    await expectFired();
  });

  it('keeps one file per set of start-up flags, each used and left alone by later runs under them', async () => {
    const flagged = { ...box.env, NODE_OPTIONS: '--max-old-space-size=512' };
    await expectFired();
    await expectFired(flagged);
    const both = files(cacheDir()).filter((f) => f.endsWith('.v8cache'));
    expect(both).toHaveLength(2);
    const times = both.map((f) => fs.statSync(f).mtimeMs);
    await expectFired(flagged);
    await expectFired();
    expect(both.map((f) => fs.statSync(f).mtimeMs)).toEqual(times); // V8 accepted each under its own flags
  });

  it('follows XDG_CACHE_HOME, and runs without one where the cache folder cannot be made', async () => {
    const env = { ...box.env, XDG_CACHE_HOME: path.join(box.home, 'xdg-cache') };
    await expectFired(env);
    expect(files(cacheDir(env)).filter((f) => f.endsWith('.v8cache'))).toHaveLength(1);

    const blocked = { ...box.env, XDG_CACHE_HOME: path.join(box.home, 'a-file') };
    fs.writeFileSync(blocked.XDG_CACHE_HOME, '');
    await expectFired(blocked);
    await expectFired(blocked);
  });
});

describe('start-up: what a fire loads', () => {
  it("loads none of Node's modules that the build trimmed away or that are loaded only when used", async () => {
    // Each of these cost a fire start-up time (README, Performance); a change that brings one back
    // on the fire path fails here, not only in the benchmark.
    const list = path.join(box.home, 'modules.txt');
    const preload = path.join(box.home, 'record-modules.cjs');
    fs.writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));`,
    );
    await expectFired({ ...box.env, NODE_OPTIONS: `--require ${preload}` });
    const loaded = new Set(fs.readFileSync(list, 'utf8').split('\n'));
    const unwanted = ['http', 'http2', 'tls', 'child_process', 'perf_hooks', 'crypto', 'zlib', 'worker_threads'];
    expect(unwanted.filter((name) => loaded.has(`NativeModule ${name}`))).toEqual([]);
    expect(loaded.has('NativeModule net')).toBe(true); // the list is real: a fire needs a socket
  });
});

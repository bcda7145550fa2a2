/**
 * The start-up code cache runs only what this user's trigger wrote for this exact bundle (issue 20,
 * item 2). V8 checks cache data against the source's length alone, so each attack here is data of
 * the right length: compiled from other code, from another build of the bundle, restored from
 * elsewhere, owned by another user or in a folder others can write to. Each must be treated as no
 * cache, and the command must run and end as usual.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { installForOtherUser } from '../helpers/other-user.js';
import { useServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => {
  server = s;
  box = b;
});

const BUNDLE = path.join(ROOT, 'dist', 'cli.cjs');
const cacheDir = (b: Sandbox = box) => path.join(b.home, '.cache', 'trigger');
const recordsFile = (b: Sandbox = box) => path.join(b.configDir, 'code-cache.json');

async function expectFired(env: NodeJS.ProcessEnv = box.env, bin?: string) {
  const before = server.requests.length;
  const result = bin
    ? await run([bin, 'fire', 'deploy', 'alice', '--value', '2'], { env, command: process.execPath })
    : await run(['fire', 'deploy', 'alice', '--value', '2'], { env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^✔ deploy · alice · value 2 · 200 OK/);
  expect(server.requests.length).toBe(before + 1);
}

/** The cache file of the built bundle, after a run wrote it. */
function cacheFile(b: Sandbox = box): string {
  const found = fs.readdirSync(cacheDir(b)).filter((f) => f.endsWith('.v8cache'));
  expect(found).toHaveLength(1);
  return path.join(cacheDir(b), found[0]!);
}

/**
 * A preload that records, for each compile of dist/cli.cjs, whether cache data was given to V8 and
 * whether V8 took it: what a user only notices as a slower start. One file for every test, so that
 * NODE_OPTIONS (which names the cache file) is the same for every sandbox; the log is named by an
 * environment variable.
 */
const PRELOAD = path.join(os.tmpdir(), `trigger-record-compiles-${process.pid}.cjs`);
fs.writeFileSync(
  PRELOAD,
  `const vm = require('node:vm');
const fs = require('node:fs');
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    super(code, options);
    if (options && String(options.filename).endsWith('cli.cjs'))
      fs.appendFileSync(process.env.RECORD_COMPILES, JSON.stringify({ given: options.cachedData !== undefined, taken: options.cachedData !== undefined && !this.cachedDataRejected }) + '\\n');
  }
};
`,
);
afterAll(() => fs.rmSync(PRELOAD, { force: true }));

function recording(b: Sandbox = box) {
  const log = path.join(b.home, 'compiles.ndjson');
  return {
    log,
    env: { ...b.env, NODE_OPTIONS: `--require ${PRELOAD}`, RECORD_COMPILES: log },
    /** What the last run did. */
    last(): { given: boolean; taken: boolean } {
      const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
      return JSON.parse(lines.at(-1)!) as { given: boolean; taken: boolean };
    },
  };
}

/**
 * V8 cache data, made by a plain Node process (the flags the binary runs with), for a script of
 * exactly the length dist/cli.cjs has once wrapped as a module, whose code writes `marker` and
 * exports a main() that resolves to 0: what an attacker would plant.
 */
function plantedData(marker: string): Buffer {
  const out = path.join(box.home, 'planted.v8cache');
  const maker = path.join(box.home, 'make-planted.cjs');
  fs.writeFileSync(
    maker,
    `const fs = require('node:fs'), vm = require('node:vm'), { wrap } = require('node:module');
const [file, marker, out] = process.argv.slice(2);
const length = wrap(fs.readFileSync(file, 'latin1')).length;
const body = "require('node:fs').writeFileSync(" + JSON.stringify(marker) + ", process.env.TRIGGER_API_KEY ? 'ran with the key' : 'ran'); module.exports = { main: Promise.resolve.bind(Promise, 0) };";
const source = wrap(body + '/*' + ' '.repeat(length - wrap(body + '/**/').length) + '*/');
if (source.length !== length) throw new Error('not the same length');
fs.writeFileSync(out, new vm.Script(source, { filename: file }).createCachedData());
`,
  );
  const made = spawnSync(process.execPath, [maker, BUNDLE, marker, out], {
    env: { PATH: process.env.PATH, HOME: box.home },
    encoding: 'utf8',
  });
  expect(made.stderr).toBe('');
  expect(made.status).toBe(0);
  return fs.readFileSync(out);
}

describe('the code cache runs only what this user wrote for this bundle', () => {
  it('never runs code of the same length planted in the cache file, and writes the file anew', async () => {
    // Recorded from the first run: the plants go into the file made under the recording's flags, so
    // that the last run shows the file written anew given to V8 and taken.
    const rec = recording();
    await expectFired(rec.env);
    const file = cacheFile();
    const marker = path.join(box.home, 'planted-code-ran');
    const planted = plantedData(marker);
    const plants: Record<string, () => void> = {
      'written over the file': () => fs.writeFileSync(file, planted),
      'written over, with its times put back': () => {
        const { atime, mtime } = fs.statSync(file);
        fs.writeFileSync(file, planted);
        fs.utimesSync(file, atime, mtime);
      },
      'renamed into its place': () => {
        fs.writeFileSync(`${file}.new`, planted, { mode: 0o600 });
        fs.renameSync(`${file}.new`, file);
      },
    };
    for (const [how, plant] of Object.entries(plants)) {
      plant();
      await expectFired(rec.env);
      expect(fs.existsSync(marker), `planted code ran (${how})`).toBe(false);
      const written = fs.readFileSync(file);
      expect(written.equals(planted), how).toBe(false);
      expect(written.length).toBeGreaterThan(10_000);
    }
    // The file written anew is used by the next run and left alone.
    const { mtimeMs } = fs.statSync(file);
    await expectFired(rec.env);
    expect(rec.last()).toEqual({ given: true, taken: true });
    expect(fs.statSync(file).mtimeMs).toBe(mtimeMs);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('does not use the cache of another build of the bundle with the same length', async () => {
    // Another install whose bundle differs in one word of the success line, same length.
    const other = path.join(box.home, 'other-install');
    fs.mkdirSync(other);
    fs.cpSync(path.join(ROOT, 'bin'), path.join(other, 'bin'), { recursive: true });
    fs.cpSync(path.join(ROOT, 'dist'), path.join(other, 'dist'), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(other, 'node_modules'));
    const otherBundle = path.join(other, 'dist', 'cli.cjs');
    const text = fs.readFileSync(otherBundle, 'latin1');
    expect(text).toContain('`value ${result.value}`');
    fs.writeFileSync(otherBundle, text.replace('`value ${result.value}`', '`VALUE ${result.value}`'), 'latin1');
    const { atime, mtime } = fs.statSync(BUNDLE);
    fs.utimesSync(otherBundle, atime, mtime);
    expect(fs.statSync(otherBundle).size).toBe(fs.statSync(BUNDLE).size);

    const otherFire = await run([path.join(other, 'bin', 'trigger.cjs'), 'fire', 'deploy', 'alice', '--value', '2'], {
      env: box.env,
      command: process.execPath,
    });
    expect(otherFire.stdout).toMatch(/^✔ deploy · alice · VALUE 2 · 200 OK/);
    const [otherCache] = fs.readdirSync(cacheDir());
    await expectFired();
    const ours = fs.readdirSync(cacheDir()).filter((f) => f !== otherCache);
    expect(ours).toHaveLength(1);
    fs.copyFileSync(path.join(cacheDir(), otherCache!), path.join(cacheDir(), ours[0]!));

    await expectFired(); // "value 2", this build's code, not "VALUE 2"
    await expectFired();
  });

  /*
   * These share one sandbox, and each leaves it as it found it: the cache written and taken by the
   * last run. A cold start and a first use cost two runs, which each test paid before; run alone
   * (vitest -t), a test pays them in inUse().
   */
  describe('with a cache this user wrote and used', () => {
    let warm: Sandbox | undefined;
    beforeEach(() => {
      warm ??= sandbox({ TRIGGER_API_KEY: TEST_KEY });
      warm.env.TRIGGER_BASE_URL = server.url;
      box = warm;
    });
    afterAll(() => warm?.cleanup());

    /** The recording environment, once a run wrote the cache and the last run took it. */
    async function inUse() {
      const rec = recording();
      if (!fs.existsSync(rec.log)) {
        await expectFired(rec.env);
        await expectFired(rec.env);
      }
      expect(rec.last()).toEqual({ given: true, taken: true });
      return rec;
    }

    it('keeps its records 0600 in the config folder (TRIGGER_CONFIG_DIR), and trusts none others can write', async () => {
      const rec = await inUse();
      expect(fs.statSync(recordsFile()).mode & 0o777).toBe(0o600);
      expect(fs.readdirSync(cacheDir()).filter((f) => !f.endsWith('.v8cache'))).toEqual([]); // never beside the cache
      expect(fs.readFileSync(recordsFile(), 'utf8').includes(TEST_KEY)).toBe(false);

      fs.chmodSync(recordsFile(), 0o666);
      await expectFired(rec.env);
      expect(rec.last()).toEqual({ given: false, taken: false });
      expect(fs.statSync(recordsFile()).mode & 0o777).toBe(0o600); // replaced
      await expectFired(rec.env);
      expect(rec.last()).toEqual({ given: true, taken: true });
    });

    it('does not use a cache folder that others can write to, and leaves its mode as it is', async () => {
      const rec = await inUse();
      expect(fs.statSync(cacheDir()).mode & 0o777).toBe(0o700);
      fs.chmodSync(cacheDir(), 0o777);
      await expectFired(rec.env);
      expect(rec.last()).toEqual({ given: false, taken: false });
      expect(fs.statSync(cacheDir()).mode & 0o777).toBe(0o777);
      fs.chmodSync(cacheDir(), 0o720); // writable by the group
      await expectFired(rec.env);
      expect(rec.last()).toEqual({ given: false, taken: false });
      fs.chmodSync(cacheDir(), 0o755); // readable is fine
      await expectFired(rec.env);
      expect(rec.last()).toEqual({ given: true, taken: true });
      fs.chmodSync(cacheDir(), 0o700); // as it was made: the next test shares this sandbox
    });

    describe('as root', () => {
      needs('root');
      it('does not use a cache file another user owns', async () => {
        const rec = await inUse();
        const file = cacheFile();
        fs.chownSync(file, 65534, 65534);
        await expectFired(rec.env);
        expect(rec.last()).toEqual({ given: false, taken: false });
        expect(fs.statSync(file).uid).toBe(0); // written anew, by this user
        await expectFired(rec.env);
        expect(rec.last()).toEqual({ given: true, taken: true });
      });
    });

    it('runs as usual whatever the records file holds, and trusts none of it', async () => {
      const rec = await inUse();
      const name = path.basename(cacheFile());
      const genuine = fs.readFileSync(recordsFile(), 'utf8');
      for (const content of [
        'null',
        '[]',
        '"x"',
        '{',
        JSON.stringify({ [name]: null }),
        JSON.stringify({ [name]: { for: 1, file: [] } }),
      ]) {
        fs.writeFileSync(recordsFile(), content, { mode: 0o600 });
        await expectFired(rec.env);
        expect(rec.last(), content).toEqual({ given: false, taken: false });
      }
      expect(fs.readFileSync(recordsFile(), 'utf8')).not.toBe(genuine); // the cache file was written anew
      await expectFired(rec.env);
      expect(rec.last()).toEqual({ given: true, taken: true });
    });

    it('does not use a cache restored from elsewhere (as from a CI cache), even with the config folder', async () => {
      await inUse();
      // A second user (or machine, or job) with its own config and cache folders, given the first one's
      // cache file, then its config folder's records too.
      const elsewhere = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
      try {
        const second = recording(elsewhere);
        await expectFired(second.env);
        const file = path.join(cacheDir(elsewhere), path.basename(cacheFile()));
        expect(fs.existsSync(file)).toBe(true); // the same name: the same bundle, Node and flags
        for (const restore of [[cacheFile()], [cacheFile(), recordsFile()]]) {
          fs.cpSync(cacheFile(), file, { preserveTimestamps: true });
          if (restore.length === 2) fs.cpSync(recordsFile(), recordsFile(elsewhere), { preserveTimestamps: true });
          await expectFired(second.env);
          expect(second.last(), restore.join(' and ')).toEqual({ given: false, taken: false });
          await expectFired(second.env);
          expect(second.last()).toEqual({ given: true, taken: true }); // its own, written anew
        }
      } finally {
        elsewhere.cleanup();
      }
    });
  });

  it('runs as usual, without a cache, where no records can be kept', async () => {
    fs.mkdirSync(recordsFile(), { recursive: true }); // a folder where the records would go
    const rec = recording();
    await expectFired(rec.env);
    await expectFired(rec.env);
    expect(rec.last()).toEqual({ given: false, taken: false });
    expect(fs.readdirSync(box.configDir)).toEqual(['code-cache.json']); // nothing else left there
  });

  describe('as a user with no home folder', () => {
    needs('root');

    it('runs without a cache where the user has no home folder (no HOME, no passwd entry)', (ctx) => {
      const asNobody = { uid: 54321, gid: 54321 };
      // That user may not reach the clone (a home folder, a mktemp -d folder) nor the Node running the
      // tests (.ci/run's Node 22 and 24 live under ~/.cache): a copy it can read is made.
      const install = installForOtherUser(asNobody);
      if ('why' in install) return ctx.skip(install.why);
      try {
        const configDir = path.join(box.home, 'shared-config');
        fs.mkdirSync(configDir, { mode: 0o777 });
        fs.chmodSync(configDir, 0o777);
        fs.chmodSync(box.home, 0o755);
        for (let i = 0; i < 2; i++) {
          const result = spawnSync(install.node, [install.bin, 'fire', 'deploy', 'alice', '--dry-run'], {
            ...asNobody,
            cwd: '/',
            env: {
              PATH: process.env.PATH,
              TRIGGER_CONFIG_DIR: configDir,
              TRIGGER_API_KEY: TEST_KEY,
              TRIGGER_BASE_URL: server.url,
              FORCE_COLOR: '0',
            },
            encoding: 'utf8',
          });
          expect(result.stderr).toBe('');
          expect(result.status).toBe(0);
          expect(result.stdout).toMatch(/^curl /);
        }
        expect(server.requests).toHaveLength(0);
      } finally {
        install.cleanup();
      }
    });
  });

  it.skipIf(process.platform !== 'linux')('runs and ends at once where the cache or config folder is under /proc', async () => {
    // mkdirSync's `recursive` loops for ever there (/proc's mkdir answers ENOENT): the run hung.
    // A run that hung would be killed by run()'s time limit, and expectFired would see no exit code 0.
    for (const env of [
      { ...box.env, XDG_CACHE_HOME: '/proc/nope/cache' },
      { ...box.env, TRIGGER_CONFIG_DIR: '/proc/nope/config' },
    ])
      await expectFired(env);
  });
});

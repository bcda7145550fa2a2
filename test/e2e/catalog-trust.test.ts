/**
 * A catalog someone else may have written, through the built binary, for what only a process shows:
 * a run as another user (the victim is not root), a FIFO or /dev/zero named as the catalog
 * (which would block or fill a test's own thread), and the `$schema` of a catalog made by a `trigger`
 * that is not installed in the project (as after `npm install -g`). The rest is in
 * test/commands/catalog-trust.test.ts.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, TEST_KEY, expectNoKey, run, sandbox, type RunResult, type Sandbox } from '../helpers/cli.js';
import { installForOtherUser, type OtherUserInstall } from '../helpers/other-user.js';
import { startServer, type TestServer } from '../helpers/server.js';

let box: Sandbox;
let server: TestServer;
beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const asRoot = process.getuid?.() === 0;
const VICTIM = 65534; // nobody
const MALLORY = 65533;
const MALLORY_CATALOG = { triggers: { purchase: { name: 'Purchase completed', ids: { default: 'mallory-trigger' } } } };

/** The built binary run as another user, with an explicit environment. */
function runAs(install: OtherUserInstall, uid: number, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(install.node, [install.bin, ...args], { env, cwd, uid, gid: uid, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('a catalog another user wrote, as a user who is not root', () => {
  it.skipIf(!asRoot)(
    "the issue's case: another user's triggers.json in a 1777 folder above is refused (exit 2, nothing sent); --catalog trusts it; the user's own and root's are used",
    async (ctx) => {
      // The victim cannot read a clone in a 0700 folder: it runs a copy it can read.
      const install = installForOtherUser({ uid: VICTIM, gid: VICTIM });
      if ('why' in install) return ctx.skip(install.why);
      // /tmp/ww as the issue has it: made by mallory, mode 1777; the victim's folder inside.
      const base = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-ww-'));
      try {
        fs.chmodSync(base, 0o755);
        const ww = path.join(base, 'ww');
        fs.mkdirSync(ww);
        fs.chownSync(ww, MALLORY, MALLORY);
        fs.chmodSync(ww, 0o1777);
        const shared = path.join(ww, 'triggers.json');
        fs.writeFileSync(shared, JSON.stringify(MALLORY_CATALOG), { mode: 0o644 });
        fs.chownSync(shared, MALLORY, MALLORY);
        const victim = path.join(ww, 'victim');
        const home = path.join(base, 'home');
        for (const dir of [victim, home]) {
          fs.mkdirSync(dir, { mode: 0o755 });
          fs.chownSync(dir, VICTIM, VICTIM);
        }
        const env = { ...box.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), TRIGGER_CONFIG_DIR: path.join(home, 'config') };

        const fire = await runAs(install, VICTIM, ['fire', 'purchase', 'alice', '--value', '5'], env, victim);
        expect(fire.code).toBe(2);
        expect(fire.stdout).toBe('');
        expect(fire.stderr).toContain(
          `error: catalog ${shared} is not trusted: ${shared} belongs to uid ${MALLORY}, not to you (nobody (uid ${VICTIM}))`,
        );
        expect(fire.stderr).toContain(`--catalog ${shared}`);
        expect(fire.stderr.trim().split('\n')).toHaveLength(1);
        const status = await runAs(install, VICTIM, ['status'], env, victim);
        expect(status.code).toBe(2);
        expect(status.stdout).toContain(`catalog   ${shared} (cannot be used`);
        expect(status.stderr).toContain('is not trusted');
        expect(server.requests).toEqual([]);

        const named = await runAs(install, VICTIM, ['fire', 'purchase', 'alice', '--value', '5', '--catalog', shared], env, victim);
        expect(named.code).toBe(0);
        expect(server.requests.map((r) => r.url)).toEqual(['/v1/triggers/mallory-trigger/users/alice/events']);

        // The victim's own catalog in the victim's folder, and one of root's in a folder of root's, are used.
        const own = path.join(victim, 'triggers.json');
        fs.writeFileSync(own, JSON.stringify({ triggers: { purchase: {} } }), { mode: 0o644 });
        fs.chownSync(own, VICTIM, VICTIM);
        expect((await runAs(install, VICTIM, ['fire', 'purchase', 'bob'], env, victim)).code).toBe(0);
        fs.rmSync(own);
        const rootsFolder = path.join(base, 'root-owned');
        fs.mkdirSync(path.join(rootsFolder, 'jobs'), { recursive: true, mode: 0o755 });
        fs.writeFileSync(path.join(rootsFolder, 'triggers.json'), JSON.stringify({ triggers: { purchase: {} } }), { mode: 0o644 });
        expect((await runAs(install, VICTIM, ['fire', 'purchase', 'carol'], env, path.join(rootsFolder, 'jobs'))).code).toBe(0);
        expect(server.requests.map((r) => r.url).slice(1)).toEqual([
          '/v1/triggers/purchase/users/bob/events',
          '/v1/triggers/purchase/users/carol/events',
        ]);
        for (const r of [fire, status, named]) expectNoKey(r);
      } finally {
        fs.rmSync(base, { recursive: true, force: true });
        install.cleanup();
      }
    },
    30_000,
  );
});

describe('a catalog that is not a regular file: exit 2 at once, never a hang or unbounded memory', () => {
  it('a FIFO named triggers.json (found by the search, or named), nothing sent', async () => {
    const project = path.join(box.home, 'project');
    fs.mkdirSync(project);
    const fifo = path.join(project, 'triggers.json');
    execFileSync('mkfifo', ['-m', '0644', fifo]);
    for (const args of [
      ['fire', 'purchase', 'alice'],
      ['triggers', 'check'],
      ['fire', 'purchase', 'alice', '--catalog', fifo],
    ]) {
      const result = await run(args, { env: box.env, cwd: project, timeoutMs: 10_000 });
      expect(result.signal, args.join(' ')).toBeNull(); // not killed by the timeout
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`catalog ${fifo} cannot be used: it is a FIFO (named pipe), not a regular file`);
    }
    expect(server.requests).toEqual([]);
  });

  it('/dev/zero as --catalog or TRIGGER_CATALOG', async () => {
    for (const [args, env] of [
      [['fire', 'purchase', 'alice', '--catalog', '/dev/zero'], box.env],
      [['batch', '-', '--trigger', 'purchase'], { ...box.env, TRIGGER_CATALOG: '/dev/zero' }],
      [['triggers', 'list'], { ...box.env, TRIGGER_CATALOG: '/dev/zero' }],
    ] as const) {
      const result = await run([...args], { env, input: 'alice\n', timeoutMs: 10_000 });
      expect(result.signal, args.join(' ')).toBeNull();
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('catalog /dev/zero cannot be used: it is a character device, not a regular file');
    }
    expect(server.requests).toEqual([]);
  });
});

describe('the $schema of a catalog made by a trigger not installed in the project', () => {
  it('is a copy written beside the catalog, which resolves from its folder and equals the package’s', async () => {
    const project = path.join(box.home, 'project');
    fs.mkdirSync(project);
    const result = await run(['triggers', 'add', 'purchase', '--name', 'Purchase completed'], { env: box.env, cwd: project });
    expect(result.code).toBe(0);
    const data = JSON.parse(fs.readFileSync(path.join(project, 'triggers.json'), 'utf8')) as { $schema: string };
    expect(data.$schema).toBe('./triggers.schema.json');
    expect(fs.readFileSync(path.resolve(project, data.$schema), 'utf8')).toBe(
      fs.readFileSync(path.join(ROOT, 'triggers.schema.json'), 'utf8'),
    );
    expect(result.stdout).toContain(`wrote ${path.join(project, 'triggers.schema.json')}`);
  });
});

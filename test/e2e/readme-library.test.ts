/**
 * README's library example as written (audit28 #2): it compiles in a strict TypeScript project, and run as a Node program it sends the
 * event, with the key from the environment and with the key in the OS credential store (where resolveSettings has none).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, TEST_KEY, sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_BASE_URL: undefined });
  // A project that has the package installed: node_modules/trigger-cli is this checkout (built by the e2e global setup).
  fs.mkdirSync(path.join(box.home, 'node_modules', '@types'), { recursive: true });
  fs.symlinkSync(ROOT, path.join(box.home, 'node_modules', 'trigger-cli'));
  fs.symlinkSync(path.join(ROOT, 'node_modules', '@types', 'node'), path.join(box.home, 'node_modules', '@types', 'node'));
  fs.writeFileSync(path.join(box.home, 'package.json'), '{"name":"consumer","private":true,"type":"module"}\n');
  const example = /```js\n([\s\S]*?)```/.exec(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n## Library')[1]!)![1]!;
  fs.writeFileSync(path.join(box.home, 'example.ts'), example);
  fs.writeFileSync(path.join(box.home, 'example.mjs'), example);
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

/** Runs a bash script with `node` in the sandbox's home, in a D-Bus session with an unlocked keyring when asked. */
function script(text: string, keyring = false): Promise<{ code: number | null; out: string }> {
  const start = [
    'eval "$(echo -n pw | gnome-keyring-daemon --daemonize --login --components=secrets | sed "s/^/export /")"',
    'eval "$(gnome-keyring-daemon --start --components=secrets | sed "s/^/export /")"',
  ].join('\n');
  const full = `trigger() { "${process.execPath}" "${BIN}" "$@"; }\n${keyring ? `${start}\n` : ''}${text}`;
  const [command, args] = keyring ? ['dbus-run-session', ['--', 'bash', '-c', full]] : ['bash', ['-c', full]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args as string[], { cwd: box.home, env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out: out.replace(/^dbus-daemon.*\n/gm, '') }));
  });
}

const EVENT = { url: '/v1/triggers/purchase/users/alice/events', body: '{"value":9.99}' };

describe("README's library example", () => {
  it('compiles in a strict TypeScript project', () => {
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = ['--strict', '--noEmit', '--module', 'nodenext', '--target', 'es2022', '--types', 'node', 'example.ts'];
    let errors = '';
    try {
      execFileSync(process.execPath, [tsc, ...args], { cwd: box.home, encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      errors = String((error as { stdout?: string }).stdout);
    }
    expect(errors).toBe('');
  }, 60_000);

  it('sends the event with the key and base URL from the environment', async () => {
    const result = await script(`TRIGGER_API_KEY=${TEST_KEY} TRIGGER_BASE_URL=${server.url} "${process.execPath}" example.mjs`);
    expect(result).toEqual({ code: 0, out: '' });
    expect(server.requests.map((r) => ({ url: r.url, body: r.body, key: r.headers.authorization }))).toEqual([
      { ...EVENT, key: `Bearer ${TEST_KEY}` },
    ]);
  });

  describe('with the key in the OS credential store (trigger config set-key on a desktop)', () => {
    needs('dbus-run-session', 'gnome-keyring', 'secret-tool');
    it('sends the event with that key', async () => {
      const result = await script(
        `trigger config set-key ${TEST_KEY} >/dev/null && trigger config set-base-url ${server.url} >/dev/null && "${process.execPath}" example.mjs`,
        true,
      );
      expect(result).toEqual({ code: 0, out: '' });
      expect(server.requests.map((r) => ({ url: r.url, body: r.body, key: r.headers.authorization }))).toEqual([
        { ...EVENT, key: `Bearer ${TEST_KEY}` },
      ]);
    });
  });
});

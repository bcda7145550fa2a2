/**
 * The OS credential store, for real: gnome-keyring's Secret Service in a private D-Bus session
 * (dbus-run-session), unlocked with a login password, as on a Linux desktop. Each test runs its
 * commands inside one such session. .ci/run installs gnome-keyring, libsecret-tools and dbus.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { startServer, type TestServer } from '../helpers/server.js';

const KEYRING = ['dbus-run-session', 'gnome-keyring', 'secret-tool'] as const;

let server: TestServer;
let box: Sandbox;
beforeEach(async () => {
  server = await startServer();
  box = sandbox();
  box.env.TRIGGER_BASE_URL = server.url;
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const START_KEYRING = [
  'eval "$(echo -n pw | gnome-keyring-daemon --daemonize --login --components=secrets | sed "s/^/export /")"',
  'eval "$(gnome-keyring-daemon --start --components=secrets | sed "s/^/export /")"',
].join('\n');

/** Runs a bash script in a fresh D-Bus session with an unlocked keyring; `trigger` is the built binary. */
function inKeyring(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const full = `set -e\ntrigger() { "${process.execPath}" "${BIN}" "$@"; }\n${START_KEYRING}\n${script}`;
    const child = spawn('dbus-run-session', ['--', 'bash', '-c', full], { env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr: stderr.replace(/^dbus-daemon.*\n/gm, '') }));
  });
}

/** Every file under HOME, read, so that a test can check none holds the key. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe('the system keychain (Secret Service)', () => {
  needs(...KEYRING);
  it('set-key stores the key there, fire uses it, status says so, unset removes it', async () => {
    const result = await inKeyring(`
      trigger config set-key ${TEST_KEY}
      echo "lookup=$(secret-tool lookup service trigger-cli username default)"
      trigger fire deploy alice --quiet
      trigger status --json
      echo "config=$(tr -d '\\n' < "$TRIGGER_CONFIG_DIR/config.json")"
      trigger config unset api-key
      echo "after=$(secret-tool lookup service trigger-cli username default || true)"
    `);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✔ API key ••••z789 saved in the Secret Service keyring for profile "default"');
    expect(result.stdout).toContain(`lookup=${TEST_KEY}`);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TEST_KEY}`]);
    const status = JSON.parse(/^\{"ok".*$/m.exec(result.stdout)![0]) as { ok: boolean; apiKey: { masked: string; source: string } };
    expect(status).toMatchObject({ ok: true, apiKey: { masked: '••••z789', source: 'keychain' } });
    expect(JSON.parse(/^config=(.*)$/m.exec(result.stdout)![1]!)).toEqual({ profiles: { default: { apiKeyStorage: 'keychain' } } });
    expect(result.stdout).toMatch(/^after=$/m);
    expect(result.stdout).toContain('api-key removed from profile "default"');
    // The key is in no file under HOME (the keyring's own file is encrypted).
    const holding = filesUnder(box.home).filter((file) => fs.readFileSync(file).includes(TEST_KEY));
    expect(holding).toEqual([]);
  });

  it('config delete removes the profile and its key from the store', async () => {
    const result = await inKeyring(`
      trigger config set-key ${TEST_KEY} --profile staging
      trigger config delete staging
      echo "after=$(secret-tool lookup service trigger-cli username staging || true)"
      trigger config list --json
    `);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('profile "staging" deleted, with its key in the Secret Service keyring');
    expect(result.stdout).toMatch(/^after=$/m);
    expect(result.stdout).toContain('"profiles":[]');
  });

  it('--insecure-storage and CI keep the key in the 0600 file, and say so in one line', async () => {
    const result = await inKeyring(`
      trigger config set-key ${TEST_KEY} --insecure-storage
      CI=true trigger config set-key ${TEST_KEY} --profile ci
      echo "lookup=$(secret-tool lookup service trigger-cli username default || true)"
    `);
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      'note: the key is in the config file (mode 0600), as --insecure-storage asked',
      'note: CI is set, so the key is in the config file (mode 0600), not a system keychain',
    ]);
    expect(result.stdout).toMatch(/^lookup=$/m);
    const stored = JSON.parse(fs.readFileSync(path.join(box.configDir, 'config.json'), 'utf8')) as {
      profiles: Record<string, { apiKey?: string }>;
    };
    expect(stored.profiles.default?.apiKey === TEST_KEY && stored.profiles.ci?.apiKey === TEST_KEY).toBe(true);
  });
});

describe('without a credential store', () => {
  it('set-key falls back to the file, and fire pays nothing for the store', async () => {
    // That a store which does not answer is given up on after a second: test/unit/keychain-timeout.test.ts.
    const result = await run(['config', 'set-key', TEST_KEY], { env: box.env });
    expect(result.code).toBe(0);
    // In plain words, not the D-Bus message ("Using X11 for dbus-daemon autolaunch was disabled ...").
    expect(result.stderr).toBe('note: no system keychain is running here, so the key is in the config file (mode 0600)\n');
    const fired = await run(['fire', 'deploy', 'alice'], { env: box.env });
    expect(fired.code).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
  });

  it('a profile whose key is in a store that cannot be reached fails in one line, exit 2, nothing sent', async () => {
    fs.mkdirSync(box.configDir, { recursive: true });
    fs.writeFileSync(path.join(box.configDir, 'config.json'), JSON.stringify({ profiles: { default: { apiKeyStorage: 'keychain' } } }), {
      mode: 0o600,
    });
    const result = await run(['fire', 'deploy', 'alice'], { env: box.env });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /the API key of profile "default" is kept in the Secret Service keyring, but no system keychain is running here/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('set-key where the keychain cannot take the key, said in plain words', () => {
  needs(...KEYRING);
  const fileKey = () =>
    (JSON.parse(fs.readFileSync(path.join(box.configDir, 'config.json'), 'utf8')) as { profiles: Record<string, { apiKey?: string }> })
      .profiles.default?.apiKey;

  it.each([
    [
      'a bus address whose socket is gone',
      'export DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/bus',
      'no system keychain is running here',
    ],
    [
      'a keyring daemon that was never unlocked',
      'eval "$(gnome-keyring-daemon --start --components=secrets | sed "s/^/export /")"',
      'the system keychain is locked (or has no default keyring)',
    ],
  ])('%s', async (_what, setup, words) => {
    const script = `set -e\n${setup}\n"${process.execPath}" "${BIN}" config set-key ${TEST_KEY}`;
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn('dbus-run-session', ['--', 'bash', '-c', script], { env: box.env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr: stderr.replace(/^(dbus-daemon|gnome-keyring-daemon|\*\*).*\n/gm, '') }));
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`note: ${words}, so the key is in the config file (mode 0600)\n`);
    expect(fileKey() === TEST_KEY).toBe(true);
  });
});

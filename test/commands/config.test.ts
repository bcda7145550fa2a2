/**
 * trigger config and trigger status in-process, with an explicit environment (no keychain: the
 * environment given has no session bus, so keys go to the file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/cli.js';
import { commandEnv, runCommand } from '../helpers/in-process.js';

let sandbox: ReturnType<typeof commandEnv>;
beforeEach(() => {
  sandbox = commandEnv();
});
afterEach(() => sandbox.cleanup());

const cli = (args: string[], env: NodeJS.ProcessEnv = sandbox.env) => runCommand(args, env);

describe('trigger config, in-process', () => {
  it('set-key --insecure-storage, get, list, unset', async () => {
    expect((await cli(['config', 'set-key', TEST_KEY, '--insecure-storage'])).code).toBe(0);
    expect((await cli(['config', 'set-base-url', 'https://api.example.com'])).code).toBe(0);
    const get = await cli(['config', 'get', '--json']);
    expect(JSON.parse(get.stdout)).toEqual({
      profile: 'default',
      apiKey: '••••z789',
      baseUrl: 'https://api.example.com',
      overriddenBy: {},
    });
    expect(get.stdout + get.stderr).not.toContain(TEST_KEY);
    expect((await cli(['config', 'list', '--names'])).stdout).toBe('default\n');
    expect((await cli(['config', 'unset', 'api-key'])).code).toBe(0);
    const stored = JSON.parse(fs.readFileSync(path.join(sandbox.env.TRIGGER_CONFIG_DIR!, 'config.json'), 'utf8')) as {
      profiles: Record<string, object>;
    };
    expect(stored.profiles.default).toEqual({ baseUrl: 'https://api.example.com' });
  });

  it.each([
    [['config', 'get', 'colour'], 'unknown setting "colour"; the settings are: api-key, base-url'],
    [['config', 'use', 'nope'], 'profile "nope" is not in'],
    [['config', 'delete', 'nope'], 'profile "nope" is not in'],
    [['config', 'set-base-url', 'ftp://x'], 'must start with https://'],
    [['config', 'set-key', 'a b'], 'contains a space at position 2'],
    [['config', 'get', '--profile', 'bad name!'], 'profile name "bad name!" is not valid'],
  ])('%j: exit 2, one line that says what to fix', async (args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  // audit25 #9: `printf key | trigger config set-key --profile "$ENV"` with ENV unset overwrote the default profile's key.
  it.each([
    ['--profile', ['--profile', ''], {}],
    ['TRIGGER_PROFILE', [], { TRIGGER_PROFILE: '' }],
  ])('an empty %s is refused (exit 2), not read as the default profile', async (given, extra: string[], env) => {
    expect((await cli(['config', 'set-key', TEST_KEY, '--insecure-storage'])).code).toBe(0);
    const config = path.join(sandbox.env.TRIGGER_CONFIG_DIR!, 'config.json');
    const before = fs.readFileSync(config, 'utf8');
    const result = await cli(['config', 'set-key', 'tk_other_Key123456789', '--insecure-storage', ...extra], { ...sandbox.env, ...env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: ${given} is empty: name a profile, or leave ${given} out for the active one; use up to 64 letters, digits, "-", "_", "." (e.g. staging)\n`,
    );
    expect(fs.readFileSync(config, 'utf8')).toBe(before);
    for (const args of [['status'], ['fire', 'p', 'u']]) {
      const other = await cli([...args, ...extra], { ...sandbox.env, ...env });
      expect([other.code, other.stderr.split('\n')[0]]).toEqual([2, expect.stringContaining(`error: ${given} is empty`)]);
    }
  });

  it("a relative TRIGGER_CONFIG_DIR (a quoted '~/cfg') is refused, exit 2, and nothing is made in the current folder (audit26 #8)", async () => {
    const made = path.join(process.cwd(), '~'); // in-process, a relative folder is this test process's current folder
    const before = fs.existsSync(made);
    try {
      for (const args of [['config', 'set-key', TEST_KEY, '--insecure-storage'], ['status'], ['fire', 't', 'u', '--dry-run']]) {
        const result = await cli(args, { ...sandbox.env, TRIGGER_CONFIG_DIR: '~/cfg' });
        const refused = 'error: TRIGGER_CONFIG_DIR must be an absolute path, not ~/cfg; nothing was read or stored';
        expect([result.code, result.stderr.split('\n')[0]]).toEqual([
          2,
          `${refused} — a quoted ~ is not your home folder: write $HOME instead`,
        ]);
      }
      expect(fs.existsSync(made)).toBe(before); // was: ~/cfg/config.json there, holding the key
    } finally {
      if (!before) fs.rmSync(made, { recursive: true, force: true });
    }
  });

  it('a config file that starts with a UTF-8 BOM (as an editor on Windows saves it) is read (fix26c noticed: refused as not JSON)', async () => {
    const file = path.join(sandbox.env.TRIGGER_CONFIG_DIR!, 'config.json');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const profile = { apiKey: TEST_KEY, baseUrl: 'https://api.example.com' };
    fs.writeFileSync(file, `\ufeff${JSON.stringify({ profiles: { default: profile } })}\n`, { mode: 0o600 });
    const result = await cli(['status', '--json']);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(JSON.parse(result.stdout)).toMatchObject({ apiKey: { masked: '••••z789', source: 'profile' }, baseUrl: { source: 'profile' } });
  });

  it('a hand-edited "apiKey": 12345 is refused in one line naming the file, not passed over as "no API key is set" (fix26c noticed)', async () => {
    const file = path.join(sandbox.env.TRIGGER_CONFIG_DIR!, 'config.json');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, JSON.stringify({ profiles: { staging: { apiKey: 12345, baseUrl: 'https://api.example.com' } } }), {
      mode: 0o600,
    });
    const result = await cli(['fire', 't', 'u', '--profile', 'staging']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: config file ${file}: the apiKey of profile "staging" is a number, not text; it was left untouched — set it again with: trigger config set-key --profile staging\n`,
    );
    // A key from the environment is the one in effect: the stored one is not read, so nothing stops.
    const fromEnv = await cli(['fire', 't', 'u', '--profile', 'staging', '--dry-run'], { ...sandbox.env, TRIGGER_API_KEY: TEST_KEY });
    expect(fromEnv.code).toBe(0);
  });

  it('status reads the environment given, and says where each value came from', async () => {
    const result = await cli(['status', '--json'], {
      ...sandbox.env,
      TRIGGER_API_KEY: TEST_KEY,
      TRIGGER_BASE_URL: 'https://api.example.com',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      ok: true,
      apiKey: { masked: '••••z789', source: 'env' },
      baseUrl: { url: 'https://api.example.com', source: 'env' },
      configFile: { exists: false },
    });
  });
});

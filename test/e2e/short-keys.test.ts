/**
 * Keys too short to be API keys (docs/choices.md) are refused wherever they come from, with exit 2,
 * one line that does not echo them, nothing sent and nothing stored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const TOO_SHORT =
  /^error: the API key from .+ is (\d+) characters? long, too short to be an API key \(trigger needs 12 or more\); nothing was stored or sent/m;
const keys = ['x', 'purchase', 'abcdefghijk']; // 1, 8 and 11 characters

/** Fails without echoing the key when it is in the text as a word of its own. */
const expectNotEchoed = (text: string, key: string) => {
  if (new RegExp(`(^|[^\\w])${key}([^\\w]|$)`).test(text.replace(TOO_SHORT, ''))) throw new Error('the key was echoed');
};

describe('a key shorter than 12 characters', () => {
  it.each(keys)('%j from --api-key, TRIGGER_API_KEY, a batch and the emulator: exit 2, nothing sent', async (key) => {
    for (const [args, env, input] of [
      [['fire', 't', 'u', '--api-key', key], box.env, ''],
      [['fire', 't', 'u'], { ...box.env, TRIGGER_API_KEY: key }, ''],
      [['batch', '-', '--trigger', 't', '--format', 'lines'], { ...box.env, TRIGGER_API_KEY: key }, 'u1\nu2\n'],
      [['emulator', '--port', '0', '--key', key], box.env, ''],
      [['emulator', '--port', '0'], { ...box.env, TRIGGER_API_KEY: key }, ''],
    ] as const) {
      const result = await run([...args], { env, input });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(TOO_SHORT);
      expect(result.stderr.match(TOO_SHORT)?.[1]).toBe(String(key.length));
      expectNotEchoed(result.stderr, key);
      expectNotEchoed(result.stdout, key);
    }
    expect(server.requests).toHaveLength(0);
  });

  it.each(keys)('%j given to config set-key (argument and stdin) is not stored', async (key) => {
    for (const [args, input] of [
      [['config', 'set-key', key, '--insecure-storage'], ''],
      [['config', 'set-key', '--insecure-storage'], `${key}\n`],
    ] as const) {
      const result = await run([...args], { env: { ...box.env, CI: 'true' }, input });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(TOO_SHORT);
      expectNotEchoed(result.stderr, key);
    }
    const file = path.join(box.configDir, 'config.json');
    if (fs.existsSync(file)) expect(fs.readFileSync(file, 'utf8')).not.toContain(`"${key}"`);
  });

  it('stored in a profile (an older version took it): fire refuses it, with the command that fixes it', async () => {
    fs.mkdirSync(box.configDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(box.configDir, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: 'purchase' } } }), {
      mode: 0o600,
    });
    const env = { ...box.env };
    delete env.TRIGGER_API_KEY;
    const result = await run(['fire', 't', 'u'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(TOO_SHORT);
    expect(result.stderr).toContain('profile "default"');
    expect(server.requests).toHaveLength(0);
  });

  it('12 characters is taken', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const result = await run(['fire', 'purchase', 'u', '--json'], { env: { ...box.env, TRIGGER_API_KEY: 'abcdefghijkl' } });
    expect(result.code).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer abcdefghijkl');
  });
});

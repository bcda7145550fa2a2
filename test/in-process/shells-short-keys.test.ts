/**
 * Keys too short to be API keys (docs/choices.md) are refused wherever they come from, with exit 2,
 * one line that does not echo them, nothing sent and nothing stored: main() in-process, against a
 * real server on 127.0.0.1. test/e2e/short-keys.test.ts keeps the keys given on standard input.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { json, type TestServer, useServer } from '../helpers/server.js';
import { TOO_SHORT, expectNotEchoed, expectRefusedShort, keys } from '../helpers/short-keys.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

describe('a key shorter than 12 characters', () => {
  it.each(keys)('%j from --api-key, TRIGGER_API_KEY and the emulator: exit 2, nothing sent', async (key) => {
    for (const [args, env] of [
      [['fire', 't', 'u', '--api-key', key], box.env],
      [['fire', 't', 'u'], { ...box.env, TRIGGER_API_KEY: key }],
      [['emulator', '--port', '0', '--key', key], box.env],
      [['emulator', '--port', '0'], { ...box.env, TRIGGER_API_KEY: key }],
    ] as const) {
      const result = await run([...args], { env });
      expectRefusedShort(result, key);
    }
    expect(server.requests).toHaveLength(0);
  });

  it.each(keys)('%j given to config set-key as an argument is not stored', async (key) => {
    const result = await run(['config', 'set-key', key, '--insecure-storage'], { env: { ...box.env, CI: 'true' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(TOO_SHORT);
    expectNotEchoed(result.stderr, key);
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

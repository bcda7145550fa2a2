/**
 * Keys too short to be API keys (docs/choices.md) are refused wherever they come from, with exit 2,
 * one line that does not echo them, nothing sent and nothing stored. Here the keys that come on
 * standard input (a pipe, which only a process has); from --api-key, TRIGGER_API_KEY, the emulator, a
 * set-key argument and a profile: test/in-process/shells-short-keys.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { type TestServer, useServer } from '../helpers/server.js';
import { TOO_SHORT, expectNotEchoed, expectRefusedShort, keys } from '../helpers/short-keys.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

describe('a key shorter than 12 characters', () => {
  it.each(keys)('%j from TRIGGER_API_KEY, for a batch read from stdin: exit 2, nothing sent', async (key) => {
    const result = await run(['batch', '-', '--trigger', 't', '--format', 'lines'], {
      env: { ...box.env, TRIGGER_API_KEY: key },
      input: 'u1\nu2\n',
    });
    expectRefusedShort(result, key);
    expect(server.requests).toHaveLength(0);
  });

  it.each(keys)('%j given to config set-key on stdin is not stored', async (key) => {
    const result = await run(['config', 'set-key', '--insecure-storage'], { env: { ...box.env, CI: 'true' }, input: `${key}\n` });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(TOO_SHORT);
    expectNotEchoed(result.stderr, key);
    const file = path.join(box.configDir, 'config.json');
    if (fs.existsSync(file)) expect(fs.readFileSync(file, 'utf8')).not.toContain(`"${key}"`);
  });
});

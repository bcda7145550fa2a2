/**
 * Keys that cannot work, from a flag, the environment and standard input: the built binary against a
 * real server on 127.0.0.1. Servers that echo the key and data that tries to write to the terminal
 * or the CI log run in-process: test/in-process/secrets.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { type TestServer, useServer } from '../helpers/server.js';

const KEY = 'sk_live_SECRETKEY0123456789abcdefWXYZ';
let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]), KEY);

const trigger = (args: string[], env: NodeJS.ProcessEnv = box.env, input?: string) => run(args, { env, input, timeoutMs: 30_000 });

/** Fails, without printing the key, when any 10-character piece of it is in `text`. */
function expectNoPiece(where: string, text: string, key = KEY): void {
  for (let i = 0; i + 10 <= key.length; i++) {
    if (text.includes(key.slice(i, i + 10))) throw new Error(`a piece of the key (characters ${i + 1} to ${i + 10}) is in ${where}`);
  }
}

describe('keys that cannot work', () => {
  const bad: Array<[string, string, RegExp]> = [
    ['curly quote', `${KEY.slice(0, 20)}\u201d`, /curly quote \(U\+201D\).* at position 21/],
    ['zero-width space', `${KEY.slice(0, 10)}\u200b${KEY.slice(10)}`, /invisible character \(U\+200B\) at position 11/],
    ['Cyrillic', `sk_live_\u0421ECRETKEY0123456789`, /non-ASCII character \(U\+0421\) at position 9/],
  ];

  it.each(bad)('a %s key is refused from the flag and the environment: exit 2, nothing sent, not echoed', async (_name, key, message) => {
    for (const [args, env] of [
      [['fire', 't', 'u', '--api-key', key], box.env],
      [['fire', 't', 'u'], { ...box.env, TRIGGER_API_KEY: key }],
      [['batch', '-', '--trigger', 't', '--format', 'lines'], { ...box.env, TRIGGER_API_KEY: key }],
    ] as const) {
      const result = await trigger([...args], env, 'u1\n');
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expectNoPiece('stderr', result.stderr, key.replace(/[^\x21-\x7e]/g, ''));
    }
    expect(server.requests).toHaveLength(0);
  });

  it.each(bad)('a %s key is never stored by set-key (argument or standard input)', async (_name, key, message) => {
    const env = { ...box.env, TRIGGER_API_KEY: undefined };
    const fromArgument = await trigger(['config', 'set-key', key], env);
    const fromStdin = await trigger(['config', 'set-key'], env, `${key}\n`);
    for (const result of [fromArgument, fromStdin]) {
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
      expectNoPiece('stderr', result.stderr, key.replace(/[^\x21-\x7e]/g, ''));
    }
    expect(fs.existsSync(path.join(box.configDir, 'config.json'))).toBe(false);
  });
});

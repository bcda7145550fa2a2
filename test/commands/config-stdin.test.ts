/**
 * `config set-key` without the key as an argument reads it from the command's standard input, the
 * one in its context (issue 29: every command uses only its context), not the process's own.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { TEST_KEY } from '../helpers/cli.js';
import { capturingOutput, commandEnv } from '../helpers/in-process.js';

let sandbox: ReturnType<typeof commandEnv>;
beforeEach(() => {
  sandbox = commandEnv();
});
afterEach(() => sandbox.cleanup());

it("reads the key from the context's stdin and stores it, printing it nowhere", async () => {
  const { io, stdout, stderr } = capturingOutput();
  const stdin = Readable.from([`  ${TEST_KEY}\n`]);
  const code = await main(['node', 'trigger', 'config', 'set-key', '--insecure-storage'], { io, env: sandbox.env, stdin });
  expect(stderr.text).toBe('note: the key is in the config file (mode 0600), as --insecure-storage asked\n');
  expect(code).toBe(0);
  expect(stdout.text).not.toContain(TEST_KEY);
  const config = JSON.parse(fs.readFileSync(`${sandbox.env.TRIGGER_CONFIG_DIR}/config.json`, 'utf8'));
  expect(config.profiles.default.apiKey).toBe(TEST_KEY);
});

it('an empty stdin in the context is refused: exit 2, nothing stored', async () => {
  const { io, stderr } = capturingOutput();
  const code = await main(['node', 'trigger', 'config', 'set-key', '--insecure-storage'], {
    io,
    env: sandbox.env,
    stdin: Readable.from(['\n']),
  });
  expect(code).toBe(2);
  expect(stderr.text).toContain('no key given: pass it as an argument, pipe it on standard input');
  expect(fs.existsSync(`${sandbox.env.TRIGGER_CONFIG_DIR}/config.json`)).toBe(false);
});

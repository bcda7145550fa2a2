/**
 * `trigger config get <name>` for a setting that is not stored names the command that stores it:
 * the hint once said `config set-api-key`, which does not exist, and `set-base-url` without its URL.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { commandEnv, runCommand } from '../helpers/in-process.js';

let sandbox: ReturnType<typeof commandEnv>;
beforeEach(() => {
  sandbox = commandEnv();
});
afterEach(() => sandbox.cleanup());

it.each([
  [['config', 'get', 'api-key'], 'error: api-key is not set in profile "default"', '— run: trigger config set-key\n'],
  [
    ['config', 'get', 'base-url', '--profile', 'staging'],
    'error: profile "staging" is not in',
    '— create it with: trigger config set-key --profile staging\n',
  ],
  [
    ['config', 'get', 'base-url'],
    'error: base-url is not set in profile "default"',
    '— run: trigger config set-base-url https://<your-service-host>\n',
  ],
])('%j says what to run', async (args, message, hint) => {
  const result = await runCommand(args, sandbox.env);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain(message);
  expect(result.stderr.endsWith(hint)).toBe(true);
});

it('names the profile for one that is not the default', async () => {
  expect((await runCommand(['config', 'set-base-url', 'https://api.example.com', '--profile', 'staging'], sandbox.env)).code).toBe(0);
  const result = await runCommand(['config', 'get', 'api-key', '--profile', 'staging'], sandbox.env);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('run: trigger config set-key --profile staging');
});

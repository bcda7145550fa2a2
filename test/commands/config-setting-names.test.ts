/**
 * `config get` and `config unset` take a setting's name in any letter case, with "-", "_" or nothing
 * between its words (api-key, apiKey, API_KEY), and refuse any other name.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/cli.js';
import { commandEnv, runCommand } from '../helpers/in-process.js';

let sandbox: ReturnType<typeof commandEnv>;
beforeEach(() => {
  sandbox = commandEnv();
});
afterEach(() => sandbox.cleanup());

const cli = (args: string[]) => runCommand(args, sandbox.env);

it.each([
  ['api-key', '••••z789'],
  ['apiKey', '••••z789'],
  ['API_KEY', '••••z789'],
  ['apikey', '••••z789'],
  ['base-url', 'https://api.example.com'],
  ['baseUrl', 'https://api.example.com'],
  ['BASE_URL', 'https://api.example.com'],
])('config get %s prints that setting', async (name, shown) => {
  expect((await cli(['config', 'set-key', TEST_KEY, '--insecure-storage'])).code).toBe(0);
  expect((await cli(['config', 'set-base-url', 'https://api.example.com'])).code).toBe(0);
  const result = await cli(['config', 'get', name]);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(`${shown}\n`);
});

it('config unset BASE_URL removes the base URL; a name that is no setting is refused', async () => {
  expect((await cli(['config', 'set-base-url', 'https://api.example.com'])).code).toBe(0);
  expect((await cli(['config', 'unset', 'BASE_URL'])).code).toBe(0);
  expect((await cli(['config', 'get', 'base-url'])).code).toBe(2);
  for (const name of ['api', 'key', 'base-url-x']) {
    const refused = await cli(['config', 'get', name]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`unknown setting "${name}"; the settings are: api-key, base-url`);
  }
});

/**
 * audit28, finding 1: the key is masked only once the settings are resolved (commands/service.ts adds it to the Output). An argument
 * refused before that (a flag's value, one argument too many, a base URL) is echoed raw, although the key is already known from
 * TRIGGER_API_KEY, or from the Action's input api-key. Nothing is sent in any of these runs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/cli.js';
import { commandEnv, runActionInProcess, runCommand, type CommandSandbox } from '../helpers/in-process.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: CommandSandbox;
beforeEach(async () => {
  server = await startServer((_req, res) => json(res, 200, { success: true }));
  box = commandEnv();
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

/** Where the key shows in a run's output, raw (an empty list when it does not). */
const rawKeyIn = (run: { stdout: string; stderr: string }) => (['stdout', 'stderr'] as const).filter((s) => run[s].includes(TEST_KEY));

describe('a key given in the wrong place, while TRIGGER_API_KEY holds it', () => {
  // The key pasted into the wrong flag, or the variables swapped (--base-url "$TRIGGER_API_KEY").
  const cases: Array<[string, string[]]> = [
    ['--timeout', ['fire', 'purchase', 'alice', '--timeout', TEST_KEY]],
    ['--value', ['fire', 'purchase', 'alice', '--value', TEST_KEY]],
    ['--base-url', ['fire', 'purchase', 'alice', '--base-url', TEST_KEY]],
    ['an extra argument', ['fire', 'purchase', 'alice', TEST_KEY]],
    ['batch --concurrency', ['batch', 'in.csv', '--concurrency', TEST_KEY]],
  ];
  for (const [label, args] of cases) {
    it(`${label}: refused (exit 2), nothing sent, and the key is not printed`, async () => {
      const env = { ...box.env, TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url };
      const result = await runCommand(args, env);
      expect(result.code).toBe(2);
      expect(server.requests).toHaveLength(0);
      expect(rawKeyIn(result)).toEqual([]);
    });
  }
});

describe('the Action, with the key in the input api-key', () => {
  it('a mistyped args value that is the key is not printed to the step log or its annotation', async () => {
    const inputs = {
      'api-key': TEST_KEY,
      'base-url': server.url,
      'trigger-id': 'purchase',
      'user-id': 'alice',
      args: `--timeout ${TEST_KEY}`,
    };
    const result = await runActionInProcess(inputs, { env: box.env });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(rawKeyIn(result)).toEqual([]);
  });
});

describe('a key the command line already holds, refused before the settings are resolved', () => {
  const other = `${TEST_KEY}_and_more`; // a longer key that holds TEST_KEY: masked whole, not as TEST_KEY's mask and its tail
  const cases: Array<[string, string[], NodeJS.ProcessEnv]> = [
    ['--api-key K, then --base-url K', ['fire', 'purchase', 'alice', '--api-key', TEST_KEY, '--base-url', TEST_KEY], {}],
    ['--api-key=K, then --timeout K', ['fire', 'purchase', 'alice', '--api-key=' + TEST_KEY, '--timeout', TEST_KEY], {}],
    ['--K as a flag', ['fire', 'purchase', 'alice', `--${TEST_KEY}`], { TRIGGER_API_KEY: TEST_KEY }],
    ['config get K', ['config', 'get', TEST_KEY], { TRIGGER_API_KEY: TEST_KEY }],
    ["emulator's --key K, then --port K", ['emulator', '--key', TEST_KEY, '--port', TEST_KEY], {}],
    ['completion K', ['completion', TEST_KEY], { TRIGGER_API_KEY: TEST_KEY }],
    ['a longer key beside it', ['fire', 'purchase', 'alice', '--api-key', other, '--timeout', other], { TRIGGER_API_KEY: TEST_KEY }],
  ];
  for (const [label, args, extra] of cases) {
    it(`${label}: exit 2, nothing sent, no part of the key printed`, async () => {
      const result = await runCommand(args, { ...box.env, TRIGGER_BASE_URL: server.url, ...extra });
      expect(result.code).toBe(2);
      expect(server.requests).toHaveLength(0);
      expect(result.stderr).toMatch(/^error: /m);
      expect(rawKeyIn(result)).toEqual([]);
      expect(result.stdout + result.stderr).not.toContain('_and_more');
    });
  }
});

it('a long key (a JWT) cut to an excerpt in a usage error shows neither its start nor its end', async () => {
  const key = `eyJ${'0123456789abcdefghij'.repeat(5)}_end_of_the_key`; // over the 64 characters an echo is cut at (output/excerpt.ts)
  const env = { ...box.env, TRIGGER_API_KEY: key, TRIGGER_BASE_URL: server.url };
  for (const args of [
    ['fire', 'purchase', 'alice', '--timeout', key],
    ['fire', 'purchase', 'alice', '--json', `--${key}`],
    ['completion', key],
  ]) {
    const result = await runCommand(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('…');
    expect(result.stdout + result.stderr).not.toMatch(/0123456789|of_the_key/);
  }
  expect(server.requests).toHaveLength(0);
});

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
    const inputs = { 'api-key': TEST_KEY, 'base-url': server.url, 'trigger-id': 'purchase', 'user-id': 'alice', args: `--timeout ${TEST_KEY}` };
    const result = await runActionInProcess(inputs, { env: box.env });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(rawKeyIn(result)).toEqual([]);
  });
});

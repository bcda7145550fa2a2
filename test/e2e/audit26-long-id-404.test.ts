/**
 * audit26 repro: the 404 hint echoes the trigger id and the whole request path, so a long id is printed whole (twice for a long
 * trigger id). Contract: "A piece of input echoed in an error is cut to a readable length (an excerpt and the full length)".
 * Fails on 6b80cdd at the assertion that names the bug.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { run, sandbox, TEST_KEY, type Sandbox } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
let box: Sandbox | undefined;
afterEach(async () => {
  await server?.close();
  box?.cleanup();
  server = box = undefined;
});

describe('a 404 for a long id', () => {
  for (const [name, args] of [
    ['user id', ['purchase', 'u'.repeat(5000)]],
    ['trigger id', ['p'.repeat(5000), 'alice']],
  ] as const) {
    it(`cuts a 5,000-character ${name} in the error line`, async () => {
      server = await startServer((_req, res) => json(res, 404, { error: 'not found' }));
      box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
      const result = await run(['fire', ...args], { env: box.env });
      expect(result.code).toBe(1);
      // On 6b80cdd: 5,2xx characters for the user id ("asked for /v1/triggers/purchase/users/uuuu…"), 10,2xx for the trigger id.
      expect(result.stderr.length).toBeLessThan(1000);
    });
  }
});

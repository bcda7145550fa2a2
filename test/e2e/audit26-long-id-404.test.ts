/**
 * audit26 repro: the 404 hint echoes the trigger id and the whole request path, so a long id is printed whole (twice for a long
 * trigger id). Contract: "A piece of input echoed in an error is cut to a readable length (an excerpt and the full length)".
 * Fails on 6b80cdd at the assertion that names the bug.
 */
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

describe('a 404 for a long id', () => {
  for (const [name, args] of [
    ['user id', ['purchase', 'u'.repeat(5000)]],
    ['trigger id', ['p'.repeat(5000), 'alice']],
  ] as const) {
    it(`cuts a 5,000-character ${name} in the error line`, async () => {
      server.handle((_req, res) => json(res, 404, { error: 'not found' }));
      const result = await run(['fire', ...args], { env: box.env });
      expect(result.code).toBe(1);
      // On 6b80cdd: 5,2xx characters for the user id ("asked for /v1/triggers/purchase/users/uuuu…"), 10,2xx for the trigger id.
      expect(result.stderr.length).toBeLessThan(1000);
    });
  }
});

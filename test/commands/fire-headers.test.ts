/**
 * The dry run shows the headers the client really sends (one table, client/request.ts): the same
 * names, values and order as the server receives from the real fire, the key masked in the JSON and
 * read from the environment in the curl command. And the default --retries is the client's.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRIES } from '../../src/client/retry.js';
import { TEST_KEY } from '../helpers/cli.js';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => {
  server = s;
  sandbox = b;
});

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('fire --dry-run --json', () => {
  it('lists exactly the headers the real fire sends, a traceparent too', async () => {
    const env = { ...sandbox.env, TRACEPARENT };
    const dry = await runCommand(['fire', 'deploy', 'alice', '--value', '2', '--dry-run', '--json'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).not.toContain(TEST_KEY);
    const shown = JSON.parse(dry.stdout) as { headers: Record<string, string>; curl: string };
    expect(server.requests).toHaveLength(0);

    const real = await runCommand(['fire', 'deploy', 'alice', '--value', '2'], env);
    expect(real.code).toBe(0);
    const sent = server.requests[0]!.headers;
    for (const [name, value] of Object.entries(shown.headers)) {
      if (name === 'authorization') expect(sent[name]).toBe(`Bearer ${TEST_KEY}`);
      else expect(sent[name]).toBe(value);
    }
    expect(Object.keys(shown.headers)).toEqual(['authorization', 'content-type', 'accept', 'user-agent', 'traceparent']);
    expect(shown.curl).toContain(`-H 'Traceparent: ${TRACEPARENT}'`);
    expect(shown.curl).toContain('"Authorization: Bearer $TRIGGER_API_KEY"');
  });
});

describe('--retries', () => {
  it(`retries ${DEFAULT_RETRIES} times by default, as the client does`, async () => {
    server.handle((_req, res) => json(res, 503, { error: 'busy' }, { 'retry-after': '0' }));
    const result = await runCommand(['fire', 'deploy', 'alice'], sandbox.env);
    expect(result.code).not.toBe(0);
    expect(server.requests).toHaveLength(DEFAULT_RETRIES + 1);
  });
});

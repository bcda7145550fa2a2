/**
 * audit26 repro: `--api-key "$STAGING_KEY" --base-url "$STAGING_URL"` with both variables unset sends the event with the stored
 * profile's key to the stored profile's service (production), exit 0. `--profile ""` and `TRIGGER_PROFILE=` are refused for this
 * very reason (docs/choices.md, audit25). Fails on 6b80cdd at the assertion that names the bug.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { run, sandbox, type Sandbox } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
let box: Sandbox | undefined;
afterEach(async () => {
  await server?.close();
  box?.cleanup();
  server = box = undefined;
});

describe('an empty --api-key or --base-url (an unset variable in a script)', () => {
  for (const args of [
    ['--api-key', ''],
    ['--base-url', ''],
    ['--api-key', '', '--base-url', ''],
  ]) {
    it(`${args.map((a) => a || '""').join(' ')} is refused, and nothing goes to the stored profile's service`, async () => {
      server = await startServer(); // "production": the service the stored profile names
      box = sandbox();
      expect((await run(['config', 'set-key', 'tk_production_key_0001', '--insecure-storage'], { env: box.env })).code).toBe(0);
      expect((await run(['config', 'set-base-url', server.url], { env: box.env })).code).toBe(0);
      const result = await run(['fire', 'purchase', 'alice', ...args], { env: box.env });
      // On 6b80cdd: exit 0, "✔ purchase · alice · ...", and production received the event with the production key.
      expect(server.requests).toHaveLength(0);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^error: --(api-key|base-url) is empty: give the (API key|base URL), or leave --\1 out; nothing was sent\n$/,
      );
    });
  }

  it('TRIGGER_API_KEY= and TRIGGER_BASE_URL= (set, but empty) are refused in fire and batch as the flags are', async () => {
    server = await startServer();
    box = sandbox();
    expect((await run(['config', 'set-key', 'tk_production_key_0001', '--insecure-storage'], { env: box.env })).code).toBe(0);
    expect((await run(['config', 'set-base-url', server.url], { env: box.env })).code).toBe(0);
    const fire = await run(['fire', 'purchase', 'alice'], { env: { ...box.env, TRIGGER_API_KEY: '' } });
    expect(fire.stderr).toBe('error: TRIGGER_API_KEY is empty: give the API key, or unset TRIGGER_API_KEY; nothing was sent\n');
    expect(fire.code).toBe(2);
    const batch = await run(['batch', '-', '--trigger', 'purchase', '--format', 'lines'], {
      env: { ...box.env, TRIGGER_BASE_URL: '' },
      input: 'alice\n',
    });
    expect(batch.stderr).toContain('error: TRIGGER_BASE_URL is empty: give the base URL, or unset TRIGGER_BASE_URL');
    expect(batch.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});

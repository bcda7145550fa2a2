/**
 * audit26 repros: answers the built binary misjudges. Each test fails on 6b80cdd at the assertion that names the bug.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { run, sandbox, TEST_KEY, type Sandbox } from '../helpers/cli.js';
import { rawAnswer, startRawServer, type RawServer } from '../helpers/raw-server.js';

let server: RawServer | undefined;
let box: Sandbox | undefined;
afterEach(async () => {
  await server?.close();
  box?.cleanup();
  server = box = undefined;
});

describe('a 2xx whose body is over the 1 MiB read limit', () => {
  it('is not "accepted" when the part that was read says "success": false (fire --json)', async () => {
    // 2 MiB of padding after the refusal: the first 1 MiB read holds `{"success":false,...`, the rest is cut off.
    const body = `{"success":false,"error":"quota exceeded","detail":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    server = await startRawServer((socket) => socket.write(rawAnswer('200 OK', { 'Content-Type': 'application/json' }, body)));
    box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
    const result = await run(['fire', 'purchase', 'alice', '--json'], { env: box.env });
    const json = JSON.parse(result.stdout) as { ok: boolean; response?: unknown };
    expect(server.requests).toHaveLength(1);
    // On 6b80cdd: exit 0 and {"ok":true,...,"response":"{\"success\":false,..."}: the output itself shows the refusal it accepted.
    expect({ code: result.code, ok: json.ok }).not.toEqual({ code: 0, ok: true });
  });

  it('is not counted accepted in a batch either', async () => {
    const body = `{"success":false,"error":"quota exceeded","detail":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    server = await startRawServer((socket) => socket.write(rawAnswer('200 OK', { 'Content-Type': 'application/json' }, body)));
    box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
    const result = await run(['batch', '-', '--trigger', 'purchase', '--format', 'lines', '--failed', `${box.home}/failed.csv`], {
      env: box.env,
      input: 'alice\nbob\n',
    });
    expect(server.requests).toHaveLength(2);
    // On 6b80cdd: "✔ 2 accepted of 2 rows", exit 0, no failed file.
    expect(result.code).not.toBe(0);
    expect(result.stderr).not.toContain('2 accepted of 2 rows');
  });
});

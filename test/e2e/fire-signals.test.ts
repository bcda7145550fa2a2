/**
 * `trigger fire` stopped by SIGTERM (timeout, docker stop, Kubernetes) or SIGHUP (a closed terminal)
 * while it waits for the answer: the exit code a shell reports for that signal, and the outcome said
 * as unknown, as for Ctrl-C (test/e2e/fire.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { expectNoKey, run, type Sandbox } from '../helpers/cli.js';
import { useServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => {
  server = s;
  box = b;
});

describe('trigger fire: stopped by another signal than SIGINT', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s while waiting for the answer: exit %i, the outcome unknown', async (signal, code) => {
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    server.handle(() => arrived());
    const result = await run(['fire', 't', 'u', '--json'], {
      env: box.env,
      onSpawn: (child) => void requestArrived.then(() => child.kill(signal)),
    });
    expect(result.code).toBe(code);
    expect(result.stderr).toContain('may or may not have been recorded');
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { kind: 'interrupted', exitCode: code, recorded: 'unknown' } });
    expect(server.requests).toHaveLength(1);
    expectNoKey(result);
  });
});

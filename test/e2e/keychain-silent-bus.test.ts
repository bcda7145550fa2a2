/**
 * A D-Bus session socket that accepts a connection and never answers (a frozen dbus-daemon, a stale
 * forwarded socket; audit23). The contract: "Looking for a store never hangs: an unreachable one is
 * given up within a second." @napi-rs/keyring connects to the bus synchronously in `new AsyncEntry(...)`,
 * on the main thread, so the 1 s timer in src/settings/keychain.ts never ran: set-key, status and fire
 * hung for good (killed here after 10 s). The bus is now asked first (busAnswers).
 *
 * flake28: status once exited 0 here, saying nothing (1 CI run in ~60), and fire could too. The second was two timers, an
 * AbortSignal.timeout and the store's own, unref'd: the abort came first, closed the silent bus's socket, and with nothing left to
 * wait on the process ended before the store's timer rejected. A preload stands for a loaded machine: the process is held 50 ms
 * just before it sets a one-second timer, the gap that let the abort come alone (before the fix: exit 0 and no output, every time).
 */
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_TIMEOUT_MS } from '../../src/settings/keychain.js';
import { TEST_KEY, expectNoKey, run, sandbox, type RunResult, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let bus: net.Server;
const held: net.Socket[] = [];
beforeEach(async () => {
  box = sandbox();
  const socket = path.join(box.home, 'bus.sock');
  bus = net.createServer((socket) => void held.push(socket)); // takes the connection, says nothing
  await new Promise<void>((resolve) => bus.listen(socket, resolve));
  box.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${socket}`;
});
afterEach(async () => {
  for (const socket of held.splice(0)) socket.destroy();
  await new Promise((resolve) => bus.close(resolve));
  box.cleanup();
});

/** The whole run, so that a failure shows its stdout and stderr too (checked for the key first). */
function told(result: RunResult): RunResult {
  expectNoKey(result);
  return { code: result.code, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

describe('a credential store that never answers', () => {
  it('config set-key gives up on it and keeps the key in the file', async () => {
    // The hang detector (SIGKILL after 10 s) is far above the promised second; no timing is asserted.
    const result = await run(['config', 'set-key'], { env: box.env, input: `${TEST_KEY}\n`, timeoutMs: 10_000 });
    expect(told(result)).toEqual({ signal: null, code: 0, stdout: expect.any(String), stderr: expect.stringMatching(/keychain/) });
  });

  // fire too: before the fix it also exited 0 unsaid there, which a script reads as the event sent.
  it.each(['status', 'fire t u1'])('%s with a key kept in the store answers instead of hanging, and never exits 0', async (command) => {
    const fs = await import('node:fs');
    fs.mkdirSync(box.configDir, { recursive: true, mode: 0o700 });
    const file = path.join(box.configDir, 'config.json');
    fs.writeFileSync(file, JSON.stringify({ profiles: { default: { apiKeyStorage: 'keychain', baseUrl: 'http://127.0.0.1:9' } } }), {
      mode: 0o600,
    });
    const preload = path.join(box.home, 'held.cjs');
    fs.writeFileSync(
      preload,
      `const set = setTimeout, hold = new Int32Array(new SharedArrayBuffer(4));
globalThis.setTimeout = (fn, ms, ...rest) => (ms === ${STORE_TIMEOUT_MS} && Atomics.wait(hold, 0, 0, 50), set(fn, ms, ...rest));`,
    );
    const result = await run(command.split(' '), { env: { ...box.env, NODE_OPTIONS: `--require ${preload}` }, timeoutMs: 10_000 });
    expect(told(result)).toEqual({
      signal: null,
      code: 2,
      stdout: expect.any(String),
      stderr: expect.stringContaining('did not answer within a second'),
    });
  });
});

/**
 * A D-Bus session socket that accepts a connection and never answers (a frozen dbus-daemon, a stale
 * forwarded socket; audit23). The contract: "Looking for a store never hangs: an unreachable one is
 * given up within a second." @napi-rs/keyring connects to the bus synchronously in `new AsyncEntry(...)`,
 * on the main thread, so the 1 s timer in src/settings/keychain.ts never ran: set-key, status and fire
 * hung for good (killed here after 10 s). The bus is now asked first (busAnswers).
 */
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';

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

describe('a credential store that never answers', () => {
  it('config set-key gives up on it and keeps the key in the file', async () => {
    // The hang detector (SIGKILL after 10 s) is far above the promised second; no timing is asserted.
    const result = await run(['config', 'set-key'], { env: box.env, input: `${TEST_KEY}\n`, timeoutMs: 10_000 });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/keychain/);
  });

  it('status with a key kept in the store answers instead of hanging', async () => {
    const fs = await import('node:fs');
    fs.mkdirSync(box.configDir, { recursive: true, mode: 0o700 });
    const file = path.join(box.configDir, 'config.json');
    fs.writeFileSync(file, JSON.stringify({ profiles: { default: { apiKeyStorage: 'keychain', baseUrl: 'http://127.0.0.1:9' } } }), {
      mode: 0o600,
    });
    const result = await run(['status'], { env: box.env, timeoutMs: 10_000 });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
  });
});

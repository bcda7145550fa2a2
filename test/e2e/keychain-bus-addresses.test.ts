/**
 * busAnswers (src/settings/keychain.ts) asked only the first unix: address of DBUS_SESSION_BUS_ADDRESS, where libdbus
 * tries every address in order (review23): a silent bus behind a first address that cannot be reached, or at a tcp:
 * address, still hung set-key in @napi-rs/keyring's constructor (killed here at 10 s). Every address is asked now.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let unixBus: net.Server;
let tcpBus: net.Server;
const held: net.Socket[] = [];
const silent = () => net.createServer((socket) => void held.push(socket)); // takes the connection, says nothing
beforeEach(async () => {
  box = sandbox();
  [unixBus, tcpBus] = [silent(), silent()];
  await new Promise<void>((resolve) => unixBus.listen(path.join(box.home, 'bus.sock'), resolve));
  await new Promise<void>((resolve) => tcpBus.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  for (const socket of held.splice(0)) socket.destroy();
  await Promise.all([unixBus, tcpBus].map((bus) => new Promise((resolve) => bus.close(resolve))));
  box.cleanup();
});

const setKey = () => run(['config', 'set-key'], { env: box.env, input: `${TEST_KEY}\n`, timeoutMs: 10_000 });

describe('a silent bus at an address busAnswers does not ask', () => {
  it('the second of two unix: addresses, the first not there', async () => {
    box.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${path.join(box.home, 'none.sock')};unix:path=${path.join(box.home, 'bus.sock')}`;
    expect(fs.existsSync(path.join(box.home, 'none.sock'))).toBe(false);
    const result = await setKey();
    expect(result.signal, 'killed: hung').toBeNull();
    expect(result.code).toBe(0);
  });

  it('a tcp: address', async () => {
    box.env.DBUS_SESSION_BUS_ADDRESS = `tcp:host=127.0.0.1,port=${(tcpBus.address() as net.AddressInfo).port}`;
    const result = await setKey();
    expect(result.signal, 'killed: hung').toBeNull();
    expect(result.code).toBe(0);
  });
});

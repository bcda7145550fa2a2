/**
 * audit25 repro: a proxy that closes the connection as soon as it reads CONNECT (a proxy restarting,
 * a policy that drops the tunnel, a port that is not a proxy). The client opens a new connection to
 * the proxy again and again, as fast as it can, until --timeout ends the attempt: 9,583 CONNECTs in
 * 2 s here (about 2 s of CPU), 84,599 for a default run of 3 attempts of 3 s. The message then
 * blames the service ("no response from https://... within 2 s ... check that the service is up").
 * Contract: "A failure at the proxy is named as the proxy's ... and counts as not sent."
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { freePort } from '../helpers/server.js';

let box: Sandbox;
let proxy: net.Server;
let connections = 0;
beforeEach(async () => {
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY });
  connections = 0;
  proxy = net.createServer((socket) => {
    connections++;
    socket.on('error', () => undefined);
    socket.once('data', () => socket.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  box.cleanup();
});

describe('a proxy that closes the connection when it reads CONNECT', () => {
  it('is tried once an attempt, and named as the proxy', async () => {
    const port = (proxy.address() as AddressInfo).port;
    const service = await freePort();
    const result = await run(
      ['fire', 'p', 'u', '--base-url', `https://localhost:${service}`, '--timeout', '2', '--retries', '0', '--json'],
      {
        env: { ...box.env, HTTPS_PROXY: `http://127.0.0.1:${port}` },
      },
    );
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout).error.recorded).toBe('no');
    // Today: thousands of connections in the 2 s, and "no response from https://localhost:... within 2 s".
    expect({ connections: connections <= 3, namesProxy: /proxy/i.test(result.stderr) }).toEqual({ connections: true, namesProxy: true });
  });
});

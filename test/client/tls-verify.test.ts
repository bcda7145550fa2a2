/**
 * The library's own connections verify certificates even while the host process has
 * NODE_TLS_REJECT_UNAUTHORIZED=0 set (the library leaves its host's environment alone, so the
 * explicit `rejectUnauthorized: true` is what holds): directly and through a proxy's CONNECT tunnel,
 * against a real https server on 127.0.0.1 with the self-signed certificate of test/fixtures.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fireEvent } from '../../src/client/client.js';
import { NetworkError } from '../../src/errors.js';
import { ROOT } from '../helpers/cli.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';

let server: https.Server;
let url: string;
let proxy: TestProxy;
let requests = 0;
const saved = process.env.NODE_TLS_REJECT_UNAUTHORIZED;

beforeAll(async () => {
  const fixture = (name: string) => fs.readFileSync(path.join(ROOT, 'test', 'fixtures', name));
  server = https.createServer({ cert: fixture('localhost-cert.pem'), key: fixture('localhost-key.pem') }, (req, res) => {
    requests++;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy = await startProxy();
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'; // read by Node on every TLS connection
});
afterAll(async () => {
  if (saved === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  else process.env.NODE_TLS_REJECT_UNAUTHORIZED = saved;
  await proxy.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('with NODE_TLS_REJECT_UNAUTHORIZED=0 in the process', () => {
  it.each([
    ['directly', () => ({})],
    ['through a proxy', () => ({ HTTPS_PROXY: proxy.hostPort })],
  ])('%s, a certificate no CA vouches for is refused before anything is sent', async (_how, env) => {
    const error = await fireEvent(
      { triggerId: 't', userId: 'u' },
      { baseUrl: url, apiKey: 'tk_tls_verify_key_0001', retries: 0, env: env() },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toMatch(/TLS handshake failed/);
    expect(requests).toBe(0);
    expect(process.env.NODE_TLS_REJECT_UNAUTHORIZED).toBe('0'); // the host's environment is its own
  });
});

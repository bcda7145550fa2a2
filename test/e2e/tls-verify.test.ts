/**
 * Certificates are verified whatever NODE_TLS_REJECT_UNAUTHORIZED says, directly and through a proxy's
 * CONNECT tunnel: the built binary against a real https server on 127.0.0.1 with the self-signed
 * certificate of test/fixtures, which only NODE_EXTRA_CA_CERTS makes trusted.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TEST_KEY, expectNoKey, run, sandbox } from '../helpers/cli.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';

const cert = path.join(ROOT, 'test', 'fixtures', 'localhost-cert.pem');
const IGNORED = /^warning: NODE_TLS_REJECT_UNAUTHORIZED=0 is ignored: trigger always verifies the certificate/m;
const NODE_WARNING = /Setting the NODE_TLS_REJECT_UNAUTHORIZED/;
let server: https.Server;
let url: string;
let proxy: TestProxy;
/** Requests that reached the server (none can without a completed handshake), and handshakes completed. */
const received: string[] = [];
let handshakes = 0;

beforeAll(async () => {
  server = https.createServer(
    { cert: fs.readFileSync(cert), key: fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'localhost-key.pem')) },
    (req, res) => {
      received.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"success":true}');
      });
    },
  );
  server.on('secureConnection', () => handshakes++);
  server.on('tlsClientError', () => {}); // the refused handshakes
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://localhost:${(server.address() as AddressInfo).port}`;
  proxy = await startProxy();
});
afterAll(async () => {
  await proxy.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const insecure = (extra: NodeJS.ProcessEnv = {}) =>
  sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: url, NODE_TLS_REJECT_UNAUTHORIZED: '0', ...extra });

describe('NODE_TLS_REJECT_UNAUTHORIZED=0', () => {
  it.each([
    ['directly', {}],
    ['through a proxy (CONNECT)', () => ({ HTTPS_PROXY: proxy.hostPort })],
  ])('%s: the untrusted certificate is refused, nothing is sent, and one line says the variable is ignored', async (_how, extra) => {
    const [requests, tls] = [received.length, handshakes];
    const box = insecure(typeof extra === 'function' ? extra() : extra);
    try {
      const result = await run(['fire', 't', 'u'], { env: box.env });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/TLS handshake failed/);
      expect(result.stderr.match(new RegExp(IGNORED.source, 'gm'))).toHaveLength(1);
      expect(result.stderr).not.toMatch(NODE_WARNING); // Node's own claim that connections are insecure
      expect(received.length).toBe(requests);
      expect(handshakes).toBe(tls);
      expectNoKey(result);
    } finally {
      box.cleanup();
    }
  });

  it('batch: every row is refused at the handshake, not sent', async () => {
    const [requests, tls] = [received.length, handshakes];
    const box = insecure();
    try {
      const result = await run(['batch', '-', '--trigger', 't', '--format', 'lines', '--json', '--retries', '0'], {
        env: box.env,
        input: 'a\nb\n',
      });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(IGNORED);
      expect(result.stderr).not.toMatch(NODE_WARNING);
      expect(received.length).toBe(requests);
      expect(handshakes).toBe(tls);
      expectNoKey(result);
    } finally {
      box.cleanup();
    }
  });

  it.each([
    ['directly', {}],
    ['through a proxy (CONNECT)', () => ({ HTTPS_PROXY: proxy.hostPort })],
  ])('%s: a private CA in NODE_EXTRA_CA_CERTS still works, and the line is still printed', async (_how, extra) => {
    const box = insecure({ NODE_EXTRA_CA_CERTS: cert, ...(typeof extra === 'function' ? extra() : extra) });
    try {
      const result = await run(['fire', 't', 'u'], { env: box.env });
      expect(result.code).toBe(0);
      expect(received.at(-1)).toBe('POST /v1/triggers/t/users/u/events');
      expect(result.stderr).toMatch(IGNORED);
      expect(result.stderr).not.toMatch(NODE_WARNING);
    } finally {
      box.cleanup();
    }
  });

  it('any other value says nothing', async () => {
    const box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: url, NODE_TLS_REJECT_UNAUTHORIZED: '1', NODE_EXTRA_CA_CERTS: cert });
    try {
      const result = await run(['fire', 't', 'u'], { env: box.env });
      expect(result.code).toBe(0);
      expect(result.stderr).not.toMatch(/NODE_TLS_REJECT_UNAUTHORIZED/);
    } finally {
      box.cleanup();
    }
  });
});

/**
 * Proxies as curl takes them, end to end: the built binary and a small proxy on 127.0.0.1 that
 * tunnels CONNECT to an https service with the test certificate, trusted through NODE_EXTRA_CA_CERTS
 * (read only as a process starts). Forwarding, 407s, refusals, a proxy that is down and NO_PROXY run
 * in-process: test/in-process/proxy.test.ts.
 */
import fs from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { ROOT, TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { type TestServer } from '../helpers/server.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';

const cert = path.join(ROOT, 'test', 'fixtures', 'localhost-cert.pem');
let secure: https.Server;
let secureUrl: string;
const secureReceived: string[] = [];

beforeAll(async () => {
  secure = https.createServer(
    { cert: fs.readFileSync(cert), key: fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'localhost-key.pem')) },
    (req, res) => {
      secureReceived.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"success":true}');
      });
    },
  );
  await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
  secureUrl = `https://localhost:${(secure.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => secure.close(() => resolve())));

let proxy: TestProxy | undefined;
let plain: TestServer | undefined;
let box: Sandbox | undefined;
afterEach(async () => {
  await proxy?.close();
  await plain?.close();
  box?.cleanup();
  proxy = plain = box = undefined;
});

function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, NODE_EXTRA_CA_CERTS: cert, ...extra });
  return box.env;
}

const PASSWORD = 'pr0xy-S3cret-pw';

describe('an https:// proxy whose TLS handshake fails (audit23)', () => {
  it('is named with the service: not "the server there does not speak TLS" about the service alone', async () => {
    proxy = await startProxy(); // plain http, named https:// below
    const e = env({ TRIGGER_BASE_URL: secureUrl, HTTPS_PROXY: `https://${proxy.hostPort}` });
    const result = await run(['fire', 't', 'u', '--retries', '0'], { env: e });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`through the proxy https://${proxy.hostPort} (from HTTPS_PROXY)`);
    expect(result.stderr).toContain('the TLS handshake failed with the proxy or, through it, with the service');
    expect(result.stderr).not.toContain('use http://localhost');
    expect(result.stderr).not.toContain('DeprecationWarning'); // Node's DEP0123, for the proxy's IP as a TLS server name
  });
});

describe('a proxy written as curl takes it', () => {
  it('HTTPS_PROXY=127.0.0.1:port (no scheme) is http://, and tunnels to an https service', async () => {
    proxy = await startProxy();
    const before = secureReceived.length;
    const result = await run(['fire', 't', 'u', '--json'], { env: env({ TRIGGER_BASE_URL: secureUrl, HTTPS_PROXY: proxy.hostPort }) });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, status: 200 });
    expect(proxy.asked).toEqual([`CONNECT ${new URL(secureUrl).host}`]);
    expect(secureReceived.slice(before)).toEqual(['POST /v1/triggers/t/users/u/events']);
  });

  it('sends the credentials in the proxy URL, and never shows them', async () => {
    proxy = await startProxy({ credentials: { user: 'me', password: PASSWORD } });
    const result = await run(['fire', 't', 'u', '--verbose'], {
      env: env({ TRIGGER_BASE_URL: secureUrl, HTTPS_PROXY: `me:${PASSWORD}@${proxy.hostPort}` }),
    });
    expect(result.code).toBe(0);
    expect(proxy.auth).toEqual([`Basic ${Buffer.from(`me:${PASSWORD}`).toString('base64')}`]);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  });
});

describe('through the tunnel, answers are read as they are directly', () => {
  it('an unasked-for 100 Continue from the service is skipped, and a gzip "success": false is decoded', async () => {
    proxy = await startProxy();
    let answer = 0;
    const raw = tls.createServer(
      { cert: fs.readFileSync(cert), key: fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'localhost-key.pem')) },
      (socket) => {
        socket.on('error', () => {});
        socket.once('data', () => {
          const body = answer++ === 0 ? '{"success":true}' : zlib.gzipSync('{"success":false,"message":"paused"}');
          const coding = typeof body === 'string' ? '' : 'Content-Encoding: gzip\r\n';
          socket.write('HTTP/1.1 100 Continue\r\n\r\n');
          socket.end(
            Buffer.concat([
              Buffer.from(`HTTP/1.1 200 OK\r\n${coding}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`),
              Buffer.from(body),
            ]),
          );
        });
      },
    );
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const base = `https://localhost:${(raw.address() as AddressInfo).port}`;
      const e = env({ TRIGGER_BASE_URL: base, HTTPS_PROXY: proxy.hostPort });
      const accepted = await run(['fire', 't', 'u', '--retries', '0'], { env: e });
      expect(accepted.stderr).toBe('');
      expect(accepted.code).toBe(0);
      const refused = await run(['fire', 't', 'u', '--retries', '0'], { env: e });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/said "success": false: paused/);
      expect(proxy.asked).toHaveLength(2);
    } finally {
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });
});

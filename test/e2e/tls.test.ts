/**
 * https with a private certificate authority: trusted through NODE_EXTRA_CA_CERTS, refused without.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TEST_KEY, expectNoKey, run, sandbox } from '../helpers/cli.js';

const cert = path.join(ROOT, 'test', 'fixtures', 'localhost-cert.pem');
let server: https.Server;
let url: string;
const received: string[] = [];

beforeAll(async () => {
  server = https.createServer(
    { cert: fs.readFileSync(cert), key: fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'localhost-key.pem')) },
    (req, res) => {
      received.push(`${req.method} ${req.url} ${req.headers.authorization === `Bearer ${TEST_KEY}` ? 'key ok' : 'no key'}`);
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"success":true}');
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://localhost:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('https', () => {
  it('trusts a private CA given in NODE_EXTRA_CA_CERTS', async () => {
    const box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: url, NODE_EXTRA_CA_CERTS: cert });
    try {
      const result = await run(['fire', 't', 'u'], { env: box.env });
      expect(result.code).toBe(0);
      expect(received.at(-1)).toBe('POST /v1/triggers/t/users/u/events key ok');
    } finally {
      box.cleanup();
    }
  });

  it('without it, refuses the certificate: exit 3 with the fix, and the key was never sent', async () => {
    const before = received.length;
    const box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: url });
    try {
      const result = await run(['fire', 't', 'u'], { env: box.env });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(
        /TLS handshake failed \(\w+\) — nothing was sent: the TLS handshake failed before the request; for a private certificate authority set NODE_EXTRA_CA_CERTS/,
      );
      expect(received.length).toBe(before);
      expectNoKey(result);
    } finally {
      box.cleanup();
    }
  });

  it.each([
    ['names no file', (dir: string) => path.join(dir, 'no-such-ca.pem'), 'there is no such file'],
    ['names a file with no certificate', (dir: string) => write(dir, 'not-a-ca.pem', 'hello\n'), 'skips what is not a certificate'],
  ])('NODE_EXTRA_CA_CERTS set but %s: the hint says to check that file, not to set it (audit23)', async (_, file, words) => {
    const box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: url });
    try {
      const ca = file(box.home);
      const result = await run(['fire', 't', 'u'], { env: { ...box.env, NODE_EXTRA_CA_CERTS: ca } });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(`NODE_EXTRA_CA_CERTS names ${ca}: check that it holds the authority's certificate in PEM`);
      expect(result.stderr).toContain(words);
    } finally {
      box.cleanup();
    }
  });
});

describe('a trusted certificate for another host', () => {
  it('is named as such, with the names it is for, not as one to trust (review23); nothing is sent', async () => {
    const fixture = (name: string) => fs.readFileSync(path.join(ROOT, 'test', 'fixtures', name));
    let hits = 0;
    const other = https.createServer({ cert: fixture('other-cert.pem'), key: fixture('other-key.pem') }, (_req, res) =>
      res.end(`${++hits}`),
    );
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const ca = path.join(ROOT, 'test', 'fixtures', 'other-cert.pem');
    const box = sandbox({ TRIGGER_API_KEY: TEST_KEY, NODE_EXTRA_CA_CERTS: ca });
    try {
      const base = `https://localhost:${(other.address() as AddressInfo).port}`;
      const result = await run(['fire', 't', 'u', '--base-url', base], { env: box.env });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('TLS handshake failed (ERR_TLS_CERT_ALTNAME_INVALID)');
      expect(result.stderr).toMatch(
        /the certificate is trusted but not for this host \(.*localhost.*DNS:other\.example\): use a name it is for/,
      );
      expect(result.stderr).not.toContain('NODE_EXTRA_CA_CERTS');
      expect(hits).toBe(0);
      expectNoKey(result);
    } finally {
      box.cleanup();
      await new Promise((resolve) => other.close(resolve));
    }
  });
});

function write(dir: string, name: string, text: string): string {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
}

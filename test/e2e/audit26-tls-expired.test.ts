/**
 * audit26 repro: a certificate that has expired is reported as a missing certificate authority. The fixtures
 * (test/fixtures/audit26): a CA valid until 2045, and a certificate for localhost / 127.0.0.1 it signed, valid in January 2025 only.
 * Fails on 6b80cdd at the assertion that names the bug.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TEST_KEY, expectNoKey, run, sandbox } from '../helpers/cli.js';

const fixtures = path.join(ROOT, 'test', 'fixtures', 'audit26');
let server: https.Server;
let url: string;
let received = 0;

beforeAll(async () => {
  server = https.createServer(
    { cert: fs.readFileSync(path.join(fixtures, 'expired-cert.pem')), key: fs.readFileSync(path.join(fixtures, 'expired-key.pem')) },
    (req, res) => {
      received++;
      req.resume();
      res.end('{"success":true}');
    },
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://localhost:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('an expired certificate', () => {
  it('signed by the CA in NODE_EXTRA_CA_CERTS: the hint does not send the user to check that file', async () => {
    const box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: url, NODE_EXTRA_CA_CERTS: path.join(fixtures, 'ca-cert.pem') });
    try {
      const result = await run(['fire', 't', 'u'], { env: box.env });
      expect(result.code).toBe(3);
      expect(received).toBe(0);
      expectNoKey(result);
      // On 6b80cdd: "TLS handshake failed (CERT_HAS_EXPIRED) — nothing was sent: ...; NODE_EXTRA_CA_CERTS names .../ca-cert.pem:
      // check that it holds the authority's certificate in PEM (...)". The file is right; the server's certificate ran out in 2025.
      expect(result.stderr).not.toContain("check that it holds the authority's certificate");
    } finally {
      box.cleanup();
    }
  });
});

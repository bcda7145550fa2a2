/**
 * Proxies as curl takes them, in-process: a small proxy on 127.0.0.1 that forwards plain http, asks
 * for credentials (407), refuses CONNECT or is down; NO_PROXY with CIDR ranges and bare IPv6
 * addresses. What the service received is the judge. A tunnel that reaches the https service needs
 * NODE_EXTRA_CA_CERTS, which Node reads only as a process starts: test/e2e/proxy.test.ts.
 */
import fs from 'node:fs';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { ROOT, TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { freePort, startServer, type TestServer } from '../helpers/server.js';
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

describe('a proxy written as curl takes it', () => {
  it('http_proxy=127.0.0.1:port (no scheme) forwards to an http service', async () => {
    proxy = await startProxy();
    plain = await startServer();
    const result = await run(['fire', 't', 'u'], { env: env({ TRIGGER_BASE_URL: plain.url, http_proxy: proxy.hostPort }) });
    expect(result.code).toBe(0);
    expect(proxy.asked).toEqual([`POST ${plain.url}/v1/triggers/t/users/u/events`]);
    expect(plain.requests).toHaveLength(1);
  });
});

describe('--verbose (audit25)', () => {
  it('names the proxy a request goes through once, its password masked; none when NO_PROXY sends it direct', async () => {
    proxy = await startProxy({ credentials: { user: 'me', password: PASSWORD } });
    plain = await startServer();
    const e = env({ TRIGGER_BASE_URL: plain.url, HTTP_PROXY: `http://me:${PASSWORD}@${proxy.hostPort}` });
    const result = await run(['fire', 't', 'u', '--verbose'], { env: e });
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n').filter((line) => line.includes('proxy'));
    expect(lines).toEqual([`* through the proxy http://me:••••@${proxy.hostPort} (from HTTP_PROXY)`]);
    expect(proxy.asked).toHaveLength(1);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    const direct = await run(['fire', 't', 'u', '--verbose'], { env: { ...e, NO_PROXY: '127.0.0.1' } });
    expect(direct.code).toBe(0);
    expect(direct.stderr).not.toContain('proxy');
  });
});

describe('trigger status', () => {
  it('shows the proxy in effect as curl takes it, its password masked', async () => {
    const result = await run(['status', '--json'], {
      env: env({ TRIGGER_BASE_URL: 'https://api.example.com', HTTPS_PROXY: `me:${PASSWORD}@127.0.0.1:3128` }),
    });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { proxy: string }).proxy).toBe('http://me:••••@127.0.0.1:3128');
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    const human = await run(['status'], { env: box!.env });
    expect(human.stdout).toMatch(/proxy +http:\/\/me:••••@127\.0\.0\.1:3128/);
    expect(human.stdout + human.stderr).not.toContain(PASSWORD);
  });
});

describe('trigger status with a proxy every command refuses (audit25)', () => {
  it.each([
    ['HTTPS_PROXY is not a proxy address the tool can use: http://not a url at all', 'not a url at all'],
    ['HTTPS_PROXY names a proxy the tool cannot use: ftp://h:1', 'ftp://h:1'],
    ['HTTPS_PROXY is not a proxy address the tool can use: http://h\\u202e:1', 'http://h\u202e:1'],
  ])('"%s": status lists it as a problem in the words fire refuses it with (exit 2), escaped', async (words, value) => {
    const e = env({ TRIGGER_BASE_URL: 'https://api.example.com', HTTPS_PROXY: value });
    const fire = await run(['fire', 't', 'u'], { env: e });
    expect(fire.code).toBe(2);
    expect(fire.stderr).toContain(`error: ${words}`);
    const result = await run(['status'], { env: e });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: ${words}`);
    expect(result.stdout).toContain(`proxy     ${words.split(': ')[1]}`);
    expect(result.stdout).not.toContain('\u202e');
    const json = JSON.parse((await run(['status', '--json'], { env: e })).stdout) as { ok: boolean; problems: Array<{ message: string }> };
    expect(json.ok).toBe(false);
    expect(json.problems.map((p) => p.message)).toEqual([words.replace('\\u202e', '\u202e')]); // JSON holds the text as it is
  });
});

describe('a failure at the proxy is named as the proxy’s, and counts as not sent', () => {
  it('407 to CONNECT: names the proxy and its 407, says to check its credentials, exit 3, recorded "no"', async () => {
    proxy = await startProxy({ credentials: { user: 'me', password: PASSWORD } });
    const before = secureReceived.length;
    const result = await run(['fire', 't', 'u', '--json', '--retries', '0'], {
      env: env({ TRIGGER_BASE_URL: secureUrl, HTTPS_PROXY: `http://me:wrong-${PASSWORD}@${proxy.hostPort}` }),
    });
    expect(result.code).toBe(3);
    const out = JSON.parse(result.stdout) as { ok: boolean; error: { message: string; hint: string; recorded: string; code: string } };
    expect(out.ok).toBe(false);
    expect(out.error.recorded).toBe('no');
    expect(out.error.code).toBe('ERR_PROXY_AUTH_REQUIRED');
    expect(out.error.message).toBe(
      `the proxy http://me:••••@${proxy.hostPort} (from HTTPS_PROXY) asked for credentials: 407 Proxy Authentication Required`,
    );
    expect(out.error.hint).toMatch(/^nothing was sent to the service; check the proxy's user name and password/);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    expect(secureReceived.length).toBe(before);
    expectNoKey(result);
  });

  it('407 is not retried: the same credentials would be refused again', async () => {
    proxy = await startProxy({ credentials: { user: 'me', password: PASSWORD } });
    const result = await run(['fire', 't', 'u', '--retries', '2'], {
      env: env({ TRIGGER_BASE_URL: secureUrl, HTTPS_PROXY: `http://me:wrong-${PASSWORD}@${proxy.hostPort}` }),
    });
    expect(result.code).toBe(3);
    expect(proxy.asked.filter((line) => line.startsWith('CONNECT'))).toHaveLength(1);
  });

  it('407 from a forwarding proxy (http service): the same, and the service got nothing', async () => {
    proxy = await startProxy({ credentials: { user: 'me', password: PASSWORD } });
    plain = await startServer();
    const result = await run(['fire', 't', 'u', '--retries', '0'], {
      env: env({ TRIGGER_BASE_URL: plain.url, HTTP_PROXY: proxy.hostPort }),
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `error: the proxy http://${proxy.hostPort} (from HTTP_PROXY) asked for credentials: 407 Proxy Authentication Required`,
    );
    expect(result.stderr).not.toMatch(/outcome is unknown|<html|<title/);
    expect(plain.requests).toHaveLength(0);
  });

  it('a proxy that refuses CONNECT (403) is the proxy refusing, not the service', async () => {
    proxy = await startProxy({ refuseConnect: 403 });
    const result = await run(['fire', 't', 'u', '--json', '--retries', '0'], {
      env: env({ TRIGGER_BASE_URL: secureUrl, HTTPS_PROXY: proxy.hostPort }),
    });
    expect(result.code).toBe(3);
    const out = JSON.parse(result.stdout) as { error: { message: string; recorded: string } };
    expect(out.error.message).toBe(
      `the proxy http://${proxy.hostPort} (from HTTPS_PROXY) would not open the way to ${secureUrl}: 403 Forbidden`,
    );
    expect(out.error.recorded).toBe('no');
  });

  it('a proxy that is down is named, not the service', async () => {
    const port = await freePort();
    const result = await run(['fire', 't', 'u', '--json', '--retries', '0'], {
      env: env({ TRIGGER_BASE_URL: secureUrl, HTTPS_PROXY: `127.0.0.1:${port}` }),
    });
    expect(result.code).toBe(3);
    const out = JSON.parse(result.stdout) as { error: { message: string; hint: string; recorded: string } };
    expect(out.error.message).toBe(`cannot reach the proxy http://127.0.0.1:${port} (from HTTPS_PROXY): connection refused`);
    expect(out.error.hint).toMatch(/^nothing was sent; check HTTPS_PROXY and that the proxy is running/);
    expect(out.error.recorded).toBe('no');
  });

  it('a batch row stopped by a 407 is kept as not sent, not marked outcome unknown', async () => {
    proxy = await startProxy({ credentials: { user: 'me', password: PASSWORD } });
    plain = await startServer();
    const e = env({ TRIGGER_BASE_URL: plain.url, HTTP_PROXY: proxy.hostPort });
    const input = path.join(box!.home, 'rows.csv');
    const failed = path.join(box!.home, 'failed.csv');
    fs.writeFileSync(input, 'triggerId,userId\nt,alice\n');
    const result = await run(['batch', input, '--failed', failed, '--retries', '0'], { env: e, cwd: box!.home });
    expect(result.code).not.toBe(0);
    const kept = fs.readFileSync(failed, 'utf8').trim().split('\n');
    expect(kept).toHaveLength(2);
    expect(kept[1]).toMatch(/^t,alice,/);
    expect(kept[1]).toContain('407');
    expect(kept[1]).not.toContain('outcome unknown');
    expect(plain.requests).toHaveLength(0);
  });

  it('a proxy variable that is not a URL is a usage error (exit 2), one line, nothing sent', async () => {
    const before = secureReceived.length;
    const result = await run(['fire', 't', 'u', '--json'], { env: env({ TRIGGER_BASE_URL: secureUrl, HTTPS_PROXY: 'http://[bad' }) });
    expect(result.code).toBe(2);
    expect((JSON.parse(result.stdout) as { error: { message: string } }).error.message).toMatch(
      /^HTTPS_PROXY is not a proxy address the tool can use/,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(secureReceived.length).toBe(before);
  });
});

/** A port that takes connections but is no proxy: it closes on CONNECT, says nothing, or answers as an SSH server (audit25). */
async function notAProxy(
  mode: 'close' | 'silent' | 'ssh',
): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => (mode === 'close' ? socket.destroy() : mode === 'ssh' ? socket.write('SSH-2.0-OpenSSH_9.6\r\n') : undefined));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, connections: () => sockets.size, close };
}

describe('a port that does not answer CONNECT as a proxy does (audit25)', () => {
  type Failed = { error: { kind: string; message: string; hint: string; recorded: string } };
  const fire = (port: number, timeout: string) =>
    run(['fire', 't', 'u', '--json', '--retries', '0', '--timeout', timeout], {
      env: env({ TRIGGER_BASE_URL: secureUrl, HTTPS_PROXY: `http://me:${PASSWORD}@127.0.0.1:${port}` }),
    });

  it('one that closes the connection on CONNECT is connected to once, and named: not reconnected to until --timeout', async () => {
    const closer = await notAProxy('close');
    try {
      const result = await fire(closer.port, '2');
      expect(result.code).toBe(3);
      const { error } = JSON.parse(result.stdout) as Failed;
      expect(error.message).toBe(
        `cannot reach the proxy http://me:••••@127.0.0.1:${closer.port} (from HTTPS_PROXY): connection closed by the other side before it answered`,
      );
      expect(error.recorded).toBe('no');
      expect(closer.connections()).toBe(1);
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    } finally {
      await closer.close();
    }
  });

  it('one that answers CONNECT with something not HTTP is named, not the service', async () => {
    const ssh = await notAProxy('ssh');
    try {
      const result = await fire(ssh.port, '5');
      expect(result.code).toBe(3);
      const { error } = JSON.parse(result.stdout) as Failed;
      expect(error.message).toMatch(
        new RegExp(`^cannot reach the proxy http://me:••••@127\\.0\\.0\\.1:${ssh.port} \\(from HTTPS_PROXY\\): `),
      );
      expect(error.hint).toMatch(/^nothing was sent; check HTTPS_PROXY and that the proxy is running/);
      expect(error.recorded).toBe('no');
    } finally {
      await ssh.close();
    }
  });

  it('one that never answers CONNECT: the time-out names the proxy, and the hint says to check it, not the service', async () => {
    const silent = await notAProxy('silent');
    try {
      const result = await fire(silent.port, '1');
      expect(result.code).toBe(3);
      const { error } = JSON.parse(result.stdout) as Failed;
      expect(error.kind).toBe('timeout');
      expect(error.message).toBe(
        `no response from ${secureUrl} through the proxy http://me:••••@127.0.0.1:${silent.port} (from HTTPS_PROXY) within 1 s`,
      );
      expect(error.hint).toContain('check that the proxy is running and can reach the service');
      expect(error.recorded).toBe('no');
    } finally {
      await silent.close();
    }
  });
});

describe('NO_PROXY as curl reads it', () => {
  it('a CIDR range (127.0.0.0/8) sends loopback direct', async () => {
    proxy = await startProxy();
    plain = await startServer();
    const result = await run(['fire', 't', 'u'], {
      env: env({ TRIGGER_BASE_URL: plain.url, HTTP_PROXY: proxy.hostPort, NO_PROXY: '10.0.0.0/8, 127.0.0.0/8' }),
    });
    expect(result.code).toBe(0);
    expect(proxy.asked).toEqual([]);
    expect(plain.requests).toHaveLength(1);
  });

  it('a bare IPv6 address (::1) sends [::1] direct', async () => {
    proxy = await startProxy();
    plain = await startServer(undefined, '::1');
    const result = await run(['fire', 't', 'u'], {
      env: env({ TRIGGER_BASE_URL: plain.url, HTTP_PROXY: proxy.hostPort, no_proxy: 'example.com,::1' }),
    });
    expect(result.code).toBe(0);
    expect(proxy.asked).toEqual([]);
    expect(plain.requests).toHaveLength(1);
  });
});

/**
 * trigger fire in-process against a real server on 127.0.0.1: what the server received, the exit
 * code, stdout and stderr, and that the key shows in neither. test/e2e/fire.test.ts keeps a spawned
 * run for each exit code, a signal, and --version/--help as the binary gives them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { freePort, json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;

beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: '' });
  box.env.TRIGGER_BASE_URL = server.url;
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const fire = (args: string[], env: NodeJS.ProcessEnv = box.env) => run(['fire', ...args], { env });

describe('trigger fire: success', () => {
  it('sends {} without a value', async () => {
    const result = await fire(['signup', 'bob']);
    expect(result.code).toBe(0);
    expect(server.requests[0]?.body).toBe('{}');
    expect(result.stdout).toContain('no value');
  });

  it.each([
    ['..', '%2E%2E'],
    ['.', '%2E'],
    ['../../admin', '..%2F..%2Fadmin'],
    ['a b/c?d#e%f', 'a%20b%2Fc%3Fd%23e%25f'],
    ['名前😀', '%E5%90%8D%E5%89%8D%F0%9F%98%80'],
  ])('sends the awkward user id %j as data', async (userId, segment) => {
    const result = await fire(['t', userId]);
    expect(result.code).toBe(0);
    expect(server.requests[0]?.url).toBe(`/v1/triggers/t/users/${segment}/events`);
  });

  it('each awkward id reaches the service as the same string (against the emulator)', async () => {
    const emulator = await startEmulator({ port: 0, key: TEST_KEY });
    const ids = ['..', '.', '../../admin', 'a b/c?d#e%f', '%2E%2E', '名前😀', ' padded ', 'line\nbreak'];
    try {
      for (const userId of ids) {
        const result = await fire(['t/../x', userId, '--base-url', emulator.url]);
        expect(result.code, userId).toBe(0);
      }
      expect(emulator.events.map((e) => [e.triggerId, e.userId])).toEqual(ids.map((id) => ['t/../x', id]));
    } finally {
      await emulator.close();
    }
  });

  it('sends a large integer with the digits typed', async () => {
    const result = await fire(['t', 'u', '--value', '12345678901234567890', '--json']);
    expect(result.code).toBe(0);
    expect(server.requests[0]?.body).toBe('{"value":12345678901234567890}');
    expect(result.stdout).toContain('"value":12345678901234567890,');
  });

  it('accepts a negative value after --value', async () => {
    const result = await fire(['t', 'u', '--value', '-3']);
    expect(result.code).toBe(0);
    expect(server.requests[0]?.body).toBe('{"value":-3}');
  });

  it('--json prints exactly one object, and nothing else on stdout', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }, { 'x-request-id': 'req_abc' }));
    const result = await fire(['purchase', 'alice', '--value', '.5', '--json']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const object = JSON.parse(lines[0]!);
    expect(object).toMatchObject({
      ok: true,
      status: 200,
      triggerId: 'purchase',
      userId: 'alice',
      value: 0.5,
      attempts: 1,
      requestId: 'req_abc',
      response: { success: true },
    });
    expect(typeof object.durationMs).toBe('number');
  });

  it('--quiet prints nothing on success', async () => {
    const result = await fire(['t', 'u', '--quiet']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('');
    expect(server.requests).toHaveLength(1);
  });

  it('--verbose traces request and response on stderr with the key masked', async () => {
    const result = await fire(['t', 'u', '--value', '1', '--verbose']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`> POST ${server.url}/v1/triggers/t/users/u/events`);
    expect(result.stderr).toContain('> authorization: Bearer ••••z789');
    expect(result.stderr).toContain('> {"value":1}');
    expect(result.stderr).toMatch(/< 200 \(\d+ ms\)/);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expectNoKey(result);
  });

  it('--dry-run needs no API key', async () => {
    const result = await fire(['t', 'u', '--dry-run'], { ...box.env, TRIGGER_API_KEY: undefined });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'note: the command reads the key from $TRIGGER_API_KEY, which is not set in this shell (the key is not set): export it before running it\n',
    );
    expect(result.stdout).toContain('Authorization: Bearer $TRIGGER_API_KEY');
  });

  it('--dry-run --json prints one object describing the request; a stored key gets a note about $TRIGGER_API_KEY', async () => {
    const env = { ...box.env, TRIGGER_API_KEY: undefined };
    expect((await run(['config', 'set-key', TEST_KEY, '--insecure-storage'], { env })).code).toBe(0);
    const result = await fire(['t', 'a b', '--value', '2', '--dry-run', '--json'], env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: true,
      dryRun: true,
      method: 'POST',
      url: `${server.url}/v1/triggers/t/users/a%20b/events`,
      headers: {
        authorization: 'Bearer ••••z789',
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': expect.stringMatching(/^trigger-cli\//),
      },
      body: '{"value":2}',
      curl: expect.stringContaining('curl --fail-with-body'),
    });
    expect(result.stderr).toContain('the key is in profile "default"): export it before running it');
    expect(server.requests).toHaveLength(0);
    expectNoKey(result);
  });

  it('a third argument that looks like a number suggests --value', async () => {
    const result = await fire(['purchase', 'alice', '9.99']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('fire takes a trigger id and a user id; got 1 more ("9.99") — to send a value, use: --value 9.99');
    expect(server.requests).toHaveLength(0);
  });

  it('--dry-run prints a curl command and sends nothing', async () => {
    const result = await fire(['t', '..', '--value', '2', '--dry-run']);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(result.stdout).toContain(`'${server.url}/v1/triggers/t/users/%2E%2E/events'`);
    expect(result.stdout).toContain('$TRIGGER_API_KEY');
    expect(result.stdout).toContain(`--data-raw '{"value":2}'`);
    expectNoKey(result);
  });

  it('shows the request id with the result', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }, { 'request-id': 'rid-9' }));
    const result = await fire(['t', 'u']);
    expect(result.stdout).toContain('request id rid-9');
  });

  it('retries 429 then succeeds', async () => {
    server.handle((_req, res, i) =>
      i === 0 ? json(res, 429, { error: 'slow down' }, { 'retry-after': '0' }) : json(res, 200, { success: true }),
    );
    const result = await fire(['t', 'u', '--json']);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(JSON.parse(result.stdout).attempts).toBe(2);
  });
});

describe('trigger fire: failures', () => {
  it('404: a hint about the trigger id and its type Custom', async () => {
    server.handle((_req, res) => json(res, 404, { message: 'Trigger not found' }));
    const result = await fire(['nope', 'u']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('404 Not Found: Trigger not found');
    expect(result.stderr).toContain('"nope"');
    expect(result.stderr).toContain('type Custom');
  });

  it('422 problem+json: title and detail', async () => {
    server.handle((_req, res) => {
      res.writeHead(422, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Invalid value', detail: 'value must be positive', status: 422 }));
    });
    const result = await fire(['t', 'u', '--value', '-1', '--json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invalid value: value must be positive');
    const object = JSON.parse(result.stdout);
    expect(object).toMatchObject({
      ok: false,
      status: 422,
      value: -1,
      error: { kind: 'refused', serverMessage: 'Invalid value: value must be positive' },
    });
  });

  it('"success": false on a 200 is a refusal', async () => {
    server.handle((_req, res) => json(res, 200, { success: false, error: 'trigger disabled' }));
    const result = await fire(['t', 'u']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('"success": false');
    expect(result.stderr).toContain('trigger disabled');
  });

  it('a refused connection: exit 3 after the retries', async () => {
    const port = await freePort();
    const result = await fire(['t', 'u', '--base-url', `http://127.0.0.1:${port}`, '--json']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('connection refused');
    expect(JSON.parse(result.stdout)).toMatchObject({
      ok: false,
      status: null,
      attempts: 3,
      error: { kind: 'network', code: 'ECONNREFUSED' },
    });
  });

  it('a server that never answers: exit 3, "no response within 1 s", one request', async () => {
    server.handle(() => undefined);
    const result = await fire(['t', 'u', '--timeout', '1']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('no response from');
    expect(result.stderr).toContain('within 1 s');
    expect(server.requests).toHaveLength(1);
  });

  it('a redirect to a second server: exit 1, names the Location, the second server gets nothing', async () => {
    const other = await startServer();
    try {
      server.handle((_req, res) => {
        res.writeHead(302, { location: `${other.url}/steal` });
        res.end();
      });
      const result = await fire(['t', 'u']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${other.url}/steal`);
      expect(other.requests).toHaveLength(0);
      expectNoKey(result);
    } finally {
      await other.close();
    }
  });

  it('a 50 MB error body: read no more than 1 MiB, print an excerpt', async () => {
    let aborted = false;
    let closed!: () => void;
    // A spawned run closes the connection when its process ends; here the client has to.
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    server.handle((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/plain', 'content-length': 50 * 1024 * 1024 });
      const chunk = Buffer.alloc(64 * 1024, 'e');
      let sent = 0;
      res.on('error', () => undefined);
      res.on('close', () => {
        aborted = sent < 50 * 1024 * 1024;
        closed();
      });
      const write = () => {
        while (sent < 50 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', write);
        }
        res.end();
      };
      write();
    });
    const result = await fire(['t', 'u']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('502 Bad Gateway: eeee');
    expect(result.stderr.length).toBeLessThan(1000);
    await connectionClosed;
    expect(aborted).toBe(true);
  });

  it('a server that echoes the key back does not get it printed', async () => {
    server.handle((req, res) => json(res, 403, { error: `key ${req.headers.authorization} is not allowed` }));
    const result = await fire(['t', 'u', '--json', '--verbose']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('key Bearer ••••z789 is not allowed');
    expectNoKey(result);
  });

  it('GitHub Actions: a failure is also an ::error:: annotation', async () => {
    server.handle((_req, res) => json(res, 404, { message: 'Trigger not found' }));
    const result = await fire(['t', 'u'], { ...box.env, GITHUB_ACTIONS: 'true' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^::error title=trigger::.*404 Not Found: Trigger not found/m);
  });
});

describe('trigger fire: usage errors send nothing and exit 2', () => {
  // The table of usage errors runs in-process: test/commands/fire.test.ts.

  it('a corrupt config file: exit 2, its path, left untouched', async () => {
    fs.mkdirSync(box.configDir, { recursive: true });
    const file = path.join(box.configDir, 'config.json');
    fs.writeFileSync(file, '{"profiles": {"default": {"apiKey": "k_1"');
    const result = await fire(['t', 'u']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain('not valid JSON');
    // Not "delete it": it holds every profile's settings (audit23); moved aside, nothing is lost.
    expect(result.stderr).toContain(
      `fix it by hand (it holds every profile's settings), or move it aside and start again: mv ${file} ${file}.broken`,
    );
    expect(result.stderr).not.toContain('delete');
    expect(fs.readFileSync(file, 'utf8')).toBe('{"profiles": {"default": {"apiKey": "k_1"');
    expect(server.requests).toHaveLength(0);
  });
});

describe('help and version', () => {
  it('no command prints the help on stdout (exit 0, as gh does); an unknown command is a usage error (exit 2)', async () => {
    const bare = await run([], { env: box.env });
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain('Usage: trigger [options] [command]');
    expect(bare.stderr).toBe('');
    const unknown = await run(['frie'], { env: box.env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('fire');
  });
});

describe('trigger fire: proxies', () => {
  it('goes through HTTP_PROXY, path as built, and honours NO_PROXY', async () => {
    const proxy = await startServer();
    try {
      const viaProxy = await fire(['t', '..', '--value', '1'], { ...box.env, HTTP_PROXY: proxy.url });
      expect(viaProxy.code).toBe(0);
      expect(server.requests).toHaveLength(0);
      expect(proxy.requests).toHaveLength(1);
      // A proxy gets the absolute URL, and it is not normalised either.
      expect(proxy.requests[0]?.url).toBe(`${server.url}/v1/triggers/t/users/%2E%2E/events`);
      expect(proxy.requests[0]?.body).toBe('{"value":1}');

      const direct = await fire(['t', 'u'], { ...box.env, http_proxy: proxy.url, NO_PROXY: '127.0.0.1' });
      expect(direct.code).toBe(0);
      expect(server.requests).toHaveLength(1);
      expect(proxy.requests).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});

describe('TRACEPARENT', () => {
  const trace = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

  it('a valid one goes out as the traceparent header', async () => {
    const result = await fire(['deploy', 'alice'], { ...box.env, TRACEPARENT: trace });
    expect(result.code).toBe(0);
    expect(server.requests[0]?.headers.traceparent).toBe(trace);
  });

  it('an invalid one is not sent, and --verbose says so', async () => {
    const result = await fire(['deploy', 'alice', '--verbose'], { ...box.env, TRACEPARENT: 'garbage' });
    expect(result.code).toBe(0);
    expect(server.requests[0]?.headers.traceparent).toBeUndefined();
    expect(result.stderr).toContain('TRACEPARENT is not a W3C traceparent');
    const quiet = await fire(['deploy', 'alice'], { ...box.env, TRACEPARENT: 'garbage' });
    expect(quiet.stderr).toBe('');
  });
});

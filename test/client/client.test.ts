/**
 * The client against a real node:http server on 127.0.0.1: what arrives, what is retried, and how
 * each failure is typed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, fireEvent, type ClientEvent } from '../../src/client/client.js';
import { NetworkError, ServiceError, UsageError } from '../../src/errors.js';
import { freePort, json, startServer, type TestServer } from '../helpers/server.js';

const KEY = 'tk_client_test_key_0001';
const STORE = ' (resolveSettings has no key kept in the OS credential store: use loadSettings)';
let server: TestServer;

beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

const options = (extra: Partial<Parameters<typeof createClient>[0]> = {}) => ({
  baseUrl: server.url,
  apiKey: KEY,
  retryBaseMs: 10,
  ...extra,
});

describe('the request on the wire', () => {
  it('sends exactly the documented request', async () => {
    const result = await fireEvent({ triggerId: 'purchase', userId: 'alice@example.com', value: '9.99' }, options());
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/v1/triggers/purchase/users/alice%40example.com/events');
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.headers['user-agent']).toMatch(/^trigger-cli\/\d+\.\d+\.\d+ node\//);
    expect(req?.body).toBe('{"value":9.99}');
    expect(result).toMatchObject({ ok: true, status: 200, attempts: 1, value: '9.99', response: { success: true } });
  });

  it.each([
    ['..', '%2E%2E'],
    ['.', '%2E'],
    ['a/../b', 'a%2F..%2Fb'],
    ['q?x=1#frag', 'q%3Fx%3D1%23frag'],
    ['100% sure', '100%25%20sure'],
    ['😀 émoji', '%F0%9F%98%80%20%C3%A9moji'],
  ])('sends user id %j as one raw segment', async (userId, segment) => {
    await fireEvent({ triggerId: 't', userId }, options());
    expect(server.requests[0]?.url).toBe(`/v1/triggers/t/users/${segment}/events`);
    expect(decodeURIComponent(server.requests[0]!.url.split('/')[5]!)).toBe(userId);
  });

  it('keeps a base URL path prefix', async () => {
    await fireEvent({ triggerId: 't', userId: 'u' }, options({ baseUrl: `${server.url}/api/` }));
    expect(server.requests[0]?.url).toBe('/api/v1/triggers/t/users/u/events');
    expect(server.requests[0]?.body).toBe('{}');
  });

  it('surfaces a request id', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }, { 'x-request-id': 'req_42' }));
    const result = await fireEvent({ triggerId: 't', userId: 'u' }, options());
    expect(result.requestId).toBe('req_42');
  });

  it("reads the answer's headers whatever their case: request id, repeated headers, Retry-After", async () => {
    server.handle((_req, res, i) => {
      if (i === 0) {
        res.writeHead(503, [
          ['Content-Type', 'application/json'],
          ['RETRY-AFTER', '0'],
        ]);
        res.end('{"error":"busy"}');
        return;
      }
      res.writeHead(200, [
        ['Content-Type', 'application/json'],
        ['X-Request-ID', 'req_case'],
        ['X-Dup', 'a'],
        ['x-dup', 'b'],
      ]);
      res.end('{"success":true}');
    });
    const events: ClientEvent[] = [];
    const result = await fireEvent({ triggerId: 't', userId: 'u' }, options({ retryBaseMs: 60_000, onEvent: (e) => events.push(e) }));
    expect(result).toMatchObject({ ok: true, attempts: 2, requestId: 'req_case' });
    const responses = events.filter((e) => e.type === 'response') as Array<{ status: number; headers: Record<string, unknown> }>;
    expect(responses.map((e) => e.status)).toEqual([503, 200]);
    expect(responses[0]?.headers['retry-after']).toBe('0');
    expect(responses[1]?.headers).toMatchObject({ 'x-request-id': 'req_case', 'x-dup': ['a', 'b'] });
  });

  it('takes the answer after an informational 103 Early Hints', async () => {
    server.handle((_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload' });
      json(res, 200, { success: true }, { 'x-request-id': 'req_after_103' });
    });
    const result = await fireEvent({ triggerId: 't', userId: 'u' }, options());
    expect(result).toMatchObject({ ok: true, status: 200, requestId: 'req_after_103', response: { success: true } });
  });

  it('reuses one kept-alive connection for many events', async () => {
    const client = createClient(options());
    for (let i = 0; i < 5; i++) await client.fire({ triggerId: 't', userId: `u${i}` });
    await client.close();
    expect(server.requests.map((r) => r.url)).toEqual([0, 1, 2, 3, 4].map((i) => `/v1/triggers/t/users/u${i}/events`));
    expect(new Set(server.requests.map((r) => r.remotePort)).size).toBe(1);
  });
});

describe('retries', () => {
  it('retries 429 and 503, honouring Retry-After', async () => {
    server.handle((_req, res, i) => {
      if (i === 0) return json(res, 429, { error: 'slow down' }, { 'retry-after': '0' });
      if (i === 1) return json(res, 503, { error: 'busy' });
      json(res, 200, { success: true });
    });
    const events: ClientEvent[] = [];
    const result = await fireEvent({ triggerId: 't', userId: 'u' }, options({ onEvent: (e) => events.push(e) }));
    expect(result.attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
    expect(events.filter((e) => e.type === 'retry').map((e) => (e as { delayMs: number }).delayMs)[0]).toBe(0);
  });

  it('stops after the allowed retries', async () => {
    server.handle((_req, res) => json(res, 503, { error: 'down' }, { 'retry-after': '0' }));
    const error = await fireEvent({ triggerId: 't', userId: 'u' }, options({ retries: 2 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
  });

  it('does not wait for a Retry-After beyond 60 s', async () => {
    server.handle((_req, res) => json(res, 429, { error: 'later' }, { 'retry-after': '3600' }));
    // Waiting the hour would outlast the test's time limit: that is the check, not a clock.
    const error = (await fireEvent({ triggerId: 't', userId: 'u' }, options()).catch((e: unknown) => e)) as ServiceError;
    expect(server.requests).toHaveLength(1);
    expect(error.status).toBe(429);
    expect(error.hint).toContain('3600 s');
  });

  it.each([500, 502, 504, 400, 408])('never retries %i', async (status) => {
    server.handle((_req, res) => json(res, status, { error: 'no' }));
    await expect(fireEvent({ triggerId: 't', userId: 'u' }, options())).rejects.toBeInstanceOf(ServiceError);
    expect(server.requests).toHaveLength(1);
  });

  it('never retries a connection reset after the request was sent', async () => {
    server.handle((_req, res) => {
      res.socket?.destroy();
    });
    const error = await fireEvent({ triggerId: 't', userId: 'u' }, options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).kind).toBe('network');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a refused connection, then gives up with exit 3', async () => {
    const port = await freePort();
    const error = await fireEvent({ triggerId: 't', userId: 'u' }, options({ baseUrl: `http://127.0.0.1:${port}` })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ECONNREFUSED');
    expect((error as NetworkError).attempts).toBe(3);
    expect((error as NetworkError).exitCode).toBe(3);
  });

  it('--retries 0 makes one attempt', async () => {
    server.handle((_req, res) => json(res, 429, {}, { 'retry-after': '0' }));
    await expect(fireEvent({ triggerId: 't', userId: 'u' }, options({ retries: 0 }))).rejects.toBeInstanceOf(ServiceError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('limits', () => {
  it('bounds one attempt with the timeout and does not retry it', async () => {
    server.handle(() => undefined); // never answers
    const error = (await fireEvent({ triggerId: 't', userId: 'u' }, options({ timeoutMs: 300 })).catch((e: unknown) => e)) as NetworkError;
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('within 0.3 s');
    expect(server.requests).toHaveLength(1);
  });

  it('bounds a body that trickles in', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"success":');
    });
    const error = (await fireEvent({ triggerId: 't', userId: 'u' }, options({ timeoutMs: 300 })).catch((e: unknown) => e)) as NetworkError;
    expect(error.kind).toBe('timeout');
  });

  it('reads at most 1 MiB of an answer, then drops the connection rather than read the rest', async () => {
    let dropped: Promise<void> | undefined;
    server.handle((_req, res) => {
      dropped = new Promise((resolve) => res.socket!.once('close', () => resolve()));
      res.writeHead(500, { 'content-type': 'text/plain', 'content-length': 8 * 1024 * 1024 });
      res.write('x'.repeat(3 * 1024 * 1024)); // and never the rest: only a dropped connection ends it
    });
    const events: ClientEvent[] = [];
    const client = createClient(options({ retries: 0, onEvent: (e) => events.push(e) }));
    try {
      const error = await client.fire({ triggerId: 't', userId: 'u' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).status).toBe(500);
      expect(((error as ServiceError).body as string).length).toBe(1024 * 1024);
      const response = events.find((e) => e.type === 'response') as { truncated: boolean; body: string } | undefined;
      expect(response?.truncated).toBe(true);
      expect(response?.body.length).toBe(1024 * 1024);
      const closed = await Promise.race([dropped!.then(() => true), new Promise((resolve) => setTimeout(resolve, 2000, false))]);
      expect(closed, 'the client dropped the connection itself').toBe(true);
    } finally {
      await client.destroy();
    }
  });

  it('does not follow a redirect, and names the Location', async () => {
    const other = await startServer();
    server.handle((_req, res) => {
      res.writeHead(307, { location: `${other.url}/v1/triggers/t/users/u/events` });
      res.end();
    });
    const error = (await fireEvent({ triggerId: 't', userId: 'u' }, options()).catch((e: unknown) => e)) as ServiceError;
    expect(error.status).toBe(307);
    expect(error.message).toContain(other.url);
    expect(other.requests).toHaveLength(0);
    await other.close();
  });
});

describe('typed failures', () => {
  it('treats "success": false on a 200 as refused', async () => {
    server.handle((_req, res) => json(res, 200, { success: false, message: 'trigger is paused' }));
    const error = (await fireEvent({ triggerId: 't', userId: 'u' }, options()).catch((e: unknown) => e)) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.serverMessage).toBe('trigger is paused');
    expect(error.exitCode).toBe(1);
  });

  it('refuses bad input before sending anything', async () => {
    await expect(fireEvent({ triggerId: 't', userId: '' }, options())).rejects.toBeInstanceOf(UsageError);
    await expect(fireEvent({ triggerId: 't', userId: 'u', value: 'abc' }, options())).rejects.toBeInstanceOf(UsageError);
    expect(server.requests).toHaveLength(0);
  });

  // audit24 finding 3: from JavaScript (no types to stop it) a misspelt or null id was sent to the user "undefined" or "null", and an
  // object id, a missing key or base URL threw a bare TypeError.
  const untyped = (event: unknown) => event as Parameters<typeof fireEvent>[0];
  it.each([
    ['userId missing', { triggerId: 'p' }, 'userId must be a string; got undefined'],
    ['userId null', { triggerId: 'p', userId: null }, 'userId must be a string; got null'],
    ['triggerId missing', { userId: 'u' }, 'triggerId must be a string; got undefined'],
    ['userId an object', { triggerId: 'p', userId: {} }, 'userId must be a string; got an object'],
    ['userId a number', { triggerId: 'p', userId: 12345 }, 'userId must be a string; got a number'],
    ['no event at all', undefined, 'triggerId must be a string; got undefined'],
  ])('%s: a UsageError, nothing sent', async (_label, event, message) => {
    const error = await fireEvent(untyped(event), options()).catch((e: unknown) => e);
    const fired = await createClient(options())
      .fire(untyped(event))
      .catch((e: unknown) => e);
    expect(server.requests.map((r) => r.url)).toEqual([]);
    expect([error, fired]).toEqual([expect.any(UsageError), expect.any(UsageError)]);
    expect([(error as Error).message, (fired as Error).message]).toEqual([message, message]);
  });

  it.each([
    ['apiKey missing', { baseUrl: 'http://127.0.0.1:9' }, 'apiKey must be a string (the API key); got undefined' + STORE],
    ['apiKey a number', { baseUrl: 'http://127.0.0.1:9', apiKey: 12345678901234 }, 'apiKey must be a string (the API key); got a number'],
    ['baseUrl missing', { apiKey: KEY }, 'baseUrl must be a URL such as https://api.example.com; got undefined'],
    ['no options at all', undefined, 'apiKey must be a string (the API key); got undefined' + STORE],
  ])('%s: a UsageError that names it, not a TypeError', async (_label, given, message) => {
    const error = await fireEvent({ triggerId: 'p', userId: 'u' }, given as Parameters<typeof fireEvent>[1]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(message);
  });

  it('a URL object as baseUrl, as a JavaScript caller has one, is that URL (review24b: every attempt failed and was retried)', async () => {
    const base = new URL(options().baseUrl as string);
    const result = await fireEvent({ triggerId: 't', userId: 'u' }, { ...options(), baseUrl: base } as unknown as Parameters<
      typeof fireEvent
    >[1]);
    expect(result.status).toBe(200);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/triggers/t/users/u/events']);
  });

  // audit24 finding 15: 3e9 ms overflowed Node's timers, which warned (TimeoutOverflowWarning) and fired every millisecond.
  it.each([3e9, Infinity, Number.NaN, 0, '30'])('timeoutMs %s: a UsageError, nothing sent', async (timeoutMs) => {
    const error = await fireEvent({ triggerId: 't', userId: 'u' }, options({ timeoutMs: timeoutMs as number })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('timeoutMs must be a number over 0 and up to 86400000 (a day)');
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['1e999', 'value 1e999 is beyond the range of a double-precision number'],
    ['abc', 'value must be a decimal number such as 9.99, -3 or 1e3; got "abc"'],
  ])('a bad value %s names the property value, not the flag --value', async (value, message) => {
    const error = await fireEvent({ triggerId: 't', userId: 'u', value }, options()).catch((e: unknown) => e);
    const fired = await createClient(options())
      .fire({ triggerId: 't', userId: 'u', value })
      .catch((e: unknown) => e);
    expect([(error as Error).message, (fired as Error).message]).toEqual([message, message]);
    expect(server.requests).toHaveLength(0);
  });

  it('a bigint value is sent with every digit (it was refused as "not a finite number")', async () => {
    const result = await fireEvent({ triggerId: 't', userId: 'u', value: 12345678901234567890n }, options());
    expect(server.requests.map((r) => r.body)).toEqual(['{"value":12345678901234567890}']);
    expect(result.value).toBe('12345678901234567890');
  });

  it('keeps the key out of error messages and hints', async () => {
    server.handle((_req, res) => json(res, 401, { error: 'bad key' }));
    const error = (await fireEvent({ triggerId: 't', userId: 'u' }, options()).catch((e: unknown) => e)) as ServiceError;
    expect(error.hint).toContain('••••0001');
    expect(`${error.message} ${error.hint} ${JSON.stringify(error.body)}`.includes(KEY)).toBe(false);
  });
});

/**
 * What a Node program hands the library's client, checked as the CLI checks its flags (audit28, findings 4, 5, 7-9, 11-12): against a
 * real node:http server on 127.0.0.1.
 */
import { getEventListeners } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findCatalog } from '../../src/catalog/find.js';
import { createClient, fireEvent } from '../../src/client/client.js';
import { prepareEvent } from '../../src/client/request.js';
import { UsageError } from '../../src/errors.js';
import { resolveSettings } from '../../src/settings/resolve.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const KEY = 'tk_library_inputs_key_0001';
let server: TestServer;
beforeEach(async () => {
  server = await startServer((_req, res) => json(res, 200, { success: true }));
});
afterEach(async () => {
  await server.close();
});

describe('an event object with more members than EventInput (a row from an analytics table)', () => {
  it('a `path` member is data: the event goes to the events endpoint with its value', async () => {
    const row = { triggerId: 'purchase', userId: 'alice', value: 9.99, path: '/checkout/complete', body: '' };
    const result = await fireEvent(row, { baseUrl: `${server.url}/api`, apiKey: KEY });
    expect(server.requests.map((r) => `${r.url} ${r.body}`)).toEqual(['/api/v1/triggers/purchase/users/alice/events {"value":9.99}']);
    expect(result.value).toBe('9.99');
  });

  it("prepareEvent's own event is sent as prepared", async () => {
    const client = createClient({ baseUrl: server.url, apiKey: KEY });
    try {
      await client.fire(prepareEvent({ triggerId: 'p', userId: 'u', value: '12345678901234567890' }));
    } finally {
      await client.close();
    }
    expect(server.requests.map((r) => `${r.url} ${r.body}`)).toEqual(['/v1/triggers/p/users/u/events {"value":12345678901234567890}']);
  });
});

describe('a BaseUrl object (an exported type) instead of a string', () => {
  const fire = (baseUrl: unknown, more: object = {}) =>
    fireEvent({ triggerId: 't', userId: 'u' }, { baseUrl: baseUrl as string, apiKey: KEY, retries: 0, timeoutMs: 300, ...more }).then(
      () => new Error('sent and accepted'),
      (e: unknown) => e as Error,
    );

  it('is checked as the string would be: plain http to a host that is not loopback is a UsageError, nothing sent', async () => {
    // 192.0.2.1 is TEST-NET-1: nothing answers there. As a string, this base URL is refused before anything is sent.
    const baseUrl = { origin: 'http://192.0.2.1:8080', prefix: '', href: 'http://192.0.2.1:8080', secure: true, loopback: true };
    expect(await fire(baseUrl.origin)).toBeInstanceOf(UsageError);
    const error = await fire(baseUrl);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/plain http/);
    const malformed = await fire({ origin: 'http://h/x?y#', prefix: '/../../admin' });
    expect([malformed.constructor.name, malformed.message]).toEqual(['UsageError', 'base URL must not contain a query string ("?...")']);
  });

  it("resolveSettings' own is taken as it was resolved: its path, and its --allow-http", async () => {
    const [host, port] = [server.url.replace(/:\d+$/, ''), server.port];
    const settings = resolveSettings({ env: { TRIGGER_API_KEY: KEY, TRIGGER_BASE_URL: `${host}:${port}/api/` }, config: { profiles: {} } });
    await fire(settings.baseUrl);
    expect(server.requests.map((r) => r.url)).toEqual(['/api/v1/triggers/t/users/u/events']);
    const env = { TRIGGER_API_KEY: KEY, TRIGGER_BASE_URL: 'http://192.0.2.1:8080' };
    const allowed = resolveSettings({ env, flags: { allowHttp: true }, config: { profiles: {} } });
    expect((await fire(allowed.baseUrl, { env: {} })).constructor.name).toBe('NetworkError'); // sent (nothing answers there)
  });
});

describe('settings from resolveSettings where the key is in the OS credential store (apiKey undefined)', () => {
  it('say to call loadSettings, which reads the store', async () => {
    const error = await fireEvent({ triggerId: 't', userId: 'u' }, { baseUrl: server.url, apiKey: undefined as unknown as string }).then(
      () => new Error('sent'),
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/^apiKey must be a string \(the API key\); got undefined \(.*use loadSettings\)$/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('options checked as timeoutMs and retries are', () => {
  it('connections: a value that is no count of connections is a UsageError, not a raw undici error or unlimited connections', async () => {
    const errors: string[] = [];
    for (const connections of [-1, Number.NaN, '8' as unknown as number, 0, 1.5]) {
      const error = await fireEvent({ triggerId: 't', userId: 'u' }, { baseUrl: server.url, apiKey: KEY, connections }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      errors.push(error instanceof UsageError ? error.message : `${String(connections)}: ${error ? error.constructor.name : 'sent'}`);
    }
    expect(new Set(errors)).toEqual(new Set(['connections must be a whole number, 1 or more']));
    expect(server.requests).toHaveLength(0);
  });

  it('a traceparent that is no header value is a UsageError at once, not a time-out blamed on the service', async () => {
    const options = { baseUrl: server.url, apiKey: KEY, retries: 1, timeoutMs: 1_000, traceparent: '00-x\r\nX-Injected: 1' };
    const error = await fireEvent({ triggerId: 't', userId: 'u' }, options).catch((e: unknown) => e as Error);
    expect(server.requests).toHaveLength(0);
    expect(error).toBeInstanceOf(UsageError);
  });
});

describe('one AbortSignal for many events at once (a program-wide shutdown signal)', () => {
  it('prints no MaxListenersExceededWarning, and holds no listener once they end', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const client = createClient({ baseUrl: server.url, apiKey: KEY, connections: 4 });
    const shutdown = new AbortController();
    try {
      const events = Array.from({ length: 20 }, (_, i) => client.fire({ triggerId: 't', userId: `u${i}` }, { signal: shutdown.signal }));
      await Promise.all(events);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
      await client.close();
    }
    expect(server.requests).toHaveLength(20);
    expect(warnings).toEqual([]);
    expect(getEventListeners(shutdown.signal, 'abort')).toEqual([]);
  });

  it('still interrupts every event in flight', async () => {
    server.handle(() => undefined); // never answers
    const client = createClient({ baseUrl: server.url, apiKey: KEY, connections: 20 });
    const shutdown = new AbortController();
    try {
      const events = Array.from({ length: 15 }, (_, i) =>
        client.fire({ triggerId: 't', userId: `u${i}` }, { signal: shutdown.signal }).catch((e: unknown) => (e as Error).constructor.name),
      );
      while (server.requests.length < 15) await new Promise((resolve) => setTimeout(resolve, 5));
      shutdown.abort();
      expect(new Set(await Promise.all(events))).toEqual(new Set(['InterruptedError']));
    } finally {
      await client.destroy();
    }
  });
});

describe('an interrupted event', () => {
  it("keeps the signal's reason as its cause", async () => {
    server.handle(() => undefined); // never answers
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const fired = fireEvent({ triggerId: 't', userId: 'u' }, { baseUrl: server.url, apiKey: KEY, signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    const error = await fired.then(
      () => new Error('sent'),
      (e: unknown) => e as Error,
    );
    expect([error.constructor.name, error.cause]).toEqual(['InterruptedError', reason]);
  });
});

describe('findCatalog', () => {
  it('takes process.env when given no env, as the other library functions do', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'library-inputs-'));
    try {
      fs.writeFileSync(path.join(dir, 'triggers.json'), '{"triggers":{}}\n');
      const saved = process.env.TRIGGER_CATALOG;
      delete process.env.TRIGGER_CATALOG;
      try {
        expect(findCatalog({ cwd: dir })).toEqual({ path: path.join(dir, 'triggers.json'), source: 'found' });
      } finally {
        if (saved !== undefined) process.env.TRIGGER_CATALOG = saved;
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

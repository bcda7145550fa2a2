/**
 * audit28, finding 6: the library client against a server that echoes the key, on a real node:http server on 127.0.0.1 (taken from
 * audit28's test/client/audit28-client.test.ts, whose other tests are fix28d's).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, type ClientEvent } from '../../src/client/client.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const KEY = 'tk_audit28_client_key_0001';
let server: TestServer;
beforeEach(async () => {
  server = await startServer((_req, res) => json(res, 200, { success: true }));
});
afterEach(async () => {
  await server.close();
});

describe('a server that echoes the key', () => {
  it('in its request id header: masked in the result and the error, as its body is', async () => {
    server.handle((req, res) => {
      const echoed = String(req.headers.authorization).slice('Bearer '.length);
      json(
        res,
        req.url.includes('/refused/') ? 401 : 200,
        { success: !req.url.includes('/refused/') },
        { 'x-request-id': `req-${echoed}` },
      );
    });
    const options = { baseUrl: server.url, apiKey: KEY, retries: 0 };
    const result = await fireEvent({ triggerId: 't', userId: 'u' }, options);
    const refused = fireEvent({ triggerId: 'refused', userId: 'u' }, options);
    const error = (await refused.then(
      () => ({}),
      (e: unknown) => e,
    )) as { requestId?: string; body?: unknown };
    expect(JSON.stringify(error.body)).not.toContain(KEY); // the body is masked (choices.md: "the library masks at the source")
    expect([result.requestId, error.requestId].filter((id) => id?.includes(KEY))).toEqual([]);
    expect([result.requestId, error.requestId]).toEqual(['req-••••0001', 'req-••••0001']); // masked, as the CLI shows it, not dropped
  });

  it('in its body and headers: not handed to onEvent, which "receives no key" (ClientOptions.onEvent)', async () => {
    server.handle((req, res) => {
      const echoed = String(req.headers.authorization);
      json(res, 500, { error: `bad ${echoed}` }, { 'x-request-id': echoed.slice(7), 'x-echo': echoed });
    });
    const events: ClientEvent[] = [];
    await fireEvent(
      { triggerId: 't', userId: 'u' },
      { baseUrl: server.url, apiKey: KEY, retries: 0, onEvent: (e) => events.push(e) },
    ).catch(() => undefined);
    expect(events.map((e) => e.type)).toEqual(['request', 'response']);
    expect(JSON.stringify(events)).not.toContain(KEY);
  });
});

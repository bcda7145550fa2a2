/**
 * What a Node program hands the library's client, checked as the CLI checks its flags (audit28, findings 4, 5, 7-9, 11-12): against a
 * real node:http server on 127.0.0.1.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, fireEvent } from '../../src/client/client.js';
import { prepareEvent } from '../../src/client/request.js';
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

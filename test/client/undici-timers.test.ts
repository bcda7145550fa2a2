/**
 * An attempt's time limit is the client's own (Deadlines, one timer for all attempts): undici's own headers and body timers are off. Left on,
 * each request armed one, which undici's timer list kept for up to a second: about 5% of a 100,000-row batch's CPU time (perf27).
 */
import { createRequire } from 'node:module';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { startServer, type TestServer } from '../helpers/server.js';

// The module undici's HTTP/1.1 client arms its timers through (the client loads undici's pool from node_modules, as this does).
const undiciTimers = createRequire(import.meta.url)('undici/lib/util/timers.js') as { setFastTimeout: (...args: unknown[]) => unknown };

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await server.close();
});

it('arms no undici timer per request, only one per connection made: the attempt deadline alone bounds a request', async () => {
  const armed = vi.spyOn(undiciTimers, 'setFastTimeout');
  const client = createClient({ baseUrl: server.url, apiKey: 'tk_undici_timers_test_0001', timeoutMs: 30_000 });
  try {
    for (let i = 0; i < 20; i++) await client.fire({ triggerId: 't', userId: `u${i}` });
  } finally {
    await client.close();
  }
  expect(server.requests).toHaveLength(20);
  const connections = new Set(server.requests.map((r) => r.remotePort)).size; // one connection's time limit to connect each: no more
  expect(armed).toHaveBeenCalledTimes(connections);
});

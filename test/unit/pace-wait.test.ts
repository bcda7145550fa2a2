/**
 * The client's waits before a retry under a 429 storm: a batch's lanes share one stop signal, and
 * each wait used to add its own abort listener to it (64 under --concurrency 64: Node's
 * MaxListenersExceededWarning on stderr, even with --quiet). Real server on 127.0.0.1, port 0.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { InterruptedError } from '../../src/errors.js';
import { TEST_KEY } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('waits before a retry', () => {
  it('64 waits on one stop signal add one abort listener, taken off when the waits end; no warning', async () => {
    // Waits of 30 s, ended by the stop: with 5 s, a loaded machine (13 s for this test) let the first
    // waits run out and retry before the 64th request had been answered.
    server = await startServer((_req, res) => json(res, 429, { success: false }, { 'retry-after': '30' }));
    let waiting = 0;
    const client = createClient({
      ...{ baseUrl: server.url, apiKey: TEST_KEY, allowHttp: true, connections: 64, retries: 3 },
      onEvent: (e) => void (e.type === 'retry' && waiting++),
    });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const stop = new AbortController();
      const events = Array.from({ length: 64 }, (_, i) => ({ triggerId: 't', userId: `u${i}` }));
      const fires = events.map((event) =>
        client.fire(event, { stopRetries: stop.signal }).then(
          () => 'accepted',
          (error: unknown) => error,
        ),
      );
      // Every request answered 429 and now waits 30 s before its retry.
      while (waiting < 64) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
      stop.abort();
      const outcomes = await Promise.all(fires);
      expect(outcomes.every((o) => o instanceof InterruptedError && o.notSent)).toBe(true);
      expect(server.requests).toHaveLength(64); // none retried after the stop
      expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
      // Waits that end by their time take the listener off too.
      const other = new AbortController();
      waiting = 0;
      server.handle((_req, res) => json(res, 429, { success: false }, { 'retry-after': '0' }));
      const done = await Promise.all(
        events.slice(0, 16).map((event) => client.fire(event, { stopRetries: other.signal }).catch((error: unknown) => error)),
      );
      expect(done.every((e) => (e as { status?: number }).status === 429)).toBe(true);
      expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await client.destroy();
    }
  });
});

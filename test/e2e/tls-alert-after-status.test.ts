/**
 * review26b: bytes 0x15 0x03 where the parser stops after a 200 status line (a chunk size, a header value) were taken for "a TLS
 * alert answering plain http" (63cee52) and the event recorded "no": the service answered 200 and may well have taken it. Failed
 * on 801293e.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { startRawServer, type RawServer } from '../helpers/raw-server.js';

let box: Sandbox;
let raw: RawServer | undefined;
beforeEach(() => {
  box = sandbox();
});
afterEach(async () => {
  await raw?.close();
  raw = undefined;
  box.cleanup();
});

describe('review26b: a 200 answer cut by 0x15 0x03 is not "a TLS alert"', () => {
  const answers: Array<[string, Buffer]> = [
    [
      'a chunk size',
      Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n\x15\x03\x03\r\n', 'latin1'),
    ],
    ['a header value', Buffer.from('HTTP/1.1 200 OK\r\nx-a: \x15\x03\r\ncontent-length: 16\r\n\r\n{"success":true}', 'latin1')],
  ];
  it.each(answers)(
    '200 OK, then 0x15 0x03 in %s: recorded "unknown", not "no"',
    async (_where, bytes) => {
      raw = await startRawServer((socket) => socket.end(bytes));
      const env = { ...box.env, TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: raw.url };
      const result = await run(['fire', 't', 'u', '--json'], { env, timeoutMs: 30_000 });
      const line = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { error?: { recorded?: string } };
      expect(raw.requests.length).toBe(1);
      // 801293e: exit 3, "cannot reach ...: it answered with a TLS alert", recorded "no" (a batch keeps it as not sent; its replay sends it again).
      expect(line.error?.recorded).toBe('unknown');
    },
    60_000,
  );
});

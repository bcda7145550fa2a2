/**
 * The rough edges a newcomer meets in the first hour, each as it was reported: messages for odd
 * answers, wording, replays that grow, the emulator's console and log; commands in-process.
 * test/e2e/first-hour.test.ts keeps the hidden prompt and ^C in a terminal, and a batch on stdin.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { failedLine } from '../../src/batch/failed.js';
import { progressLine, summaryLines } from '../../src/batch/report.js';
import { emptyCounts } from '../../src/batch/recorder.js';
import type { Row } from '../../src/batch/rows.js';
import { startEmulator } from '../../src/emulator/server.js';
import { PLAIN } from '../../src/output/colors.js';
import { formatMs } from '../../src/output/render.js';
import { TEST_KEY, type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { freePort, json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

/** A raw TCP server that answers the first request with these bytes. */
async function rawServer(answer: string): Promise<{ url: string; close(): void }> {
  const srv = net.createServer((socket) => socket.once('data', () => socket.end(answer)));
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}`, close: () => srv.close() };
}

describe('messages for odd answers', () => {
  it('https to a plain-http port: nothing was sent, and the hint asks whether the port is plain http', async () => {
    const result = await run(['fire', 't', 'u', '--base-url', server.url.replace('http:', 'https:')], { env: box.env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('nothing was sent: the server there does not speak TLS; is this port plain http?');
    expect(result.stderr).not.toContain('may or may not have been recorded');
  });

  it('an unsolicited 100 Continue before the 200 is skipped (RFC 9110): the event is accepted', async () => {
    const raw = await rawServer('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 16\r\n\r\n{"success":true}');
    try {
      const result = await run(['fire', 't', 'u', '--base-url', raw.url, '--retries', '0'], { env: box.env });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
    } finally {
      raw.close();
    }
  });

  it('a 431 with no body has a reason and a hint; a 429 after retries says how many attempts', async () => {
    server.handle((_req, res) => {
      res.writeHead(431, { 'content-length': 0 });
      res.end();
    });
    const big = await run(['fire', 't', 'u'], { env: box.env });
    expect(big.stderr).toContain('431 Request Header Fields Too Large — the service found the request too large');
    server.handle((_req, res) => json(res, 429, { error: 'slow down' }, { 'retry-after': '0' }));
    const busy = await run(['fire', 't', 'u', '--retries', '2'], { env: box.env });
    expect(busy.code).toBe(3);
    expect(busy.stderr).toContain('429 Too Many Requests (after 3 attempts): slow down');
  });

  it('the base-URL hint names where the URL came from', async () => {
    const port = await freePort();
    const result = await run(['fire', 't', 'u', '--base-url', `http://127.0.0.1:${port}`, '--retries', '0'], { env: box.env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'connection refused — nothing was sent; check the base URL (from --base-url) and that the service is up',
    );
  });
});

describe('wording', () => {
  it.each([
    [84, '84 ms'],
    [2346, '2.35 s'],
    [277_050, '4m37s'],
    [3_725_000, '1h02m'],
  ])('formatMs(%i) is %s', (ms, text) => expect(formatMs(ms)).toBe(text));

  it('one row is one row, kept "it"; the progress line counts failed and invalid as the summary does', () => {
    const counts = { ...emptyCounts(), rows: 1, accepted: 0, failed: 1 };
    const lines = summaryLines(
      {
        counts,
        elapsedMs: 10,
        dryRun: false,
        failedFile: 'f.csv',
        next: { command: 'trigger batch f.csv', resume: false },
        notReadAfter: undefined,
      },
      PLAIN,
    );
    expect(lines[0]).toContain('of 1 row in');
    expect(lines[1]).toBe('  1 row kept in f.csv; once the cause is fixed, send it with: trigger batch f.csv');
    const progress = progressLine({ ...emptyCounts(), rows: 10, accepted: 7, invalid: 3 }, 1000, 7000, PLAIN);
    expect(progress).toContain('0 failed · 3 invalid');
    expect(progress).toContain('ETA 16m30s');
  });

  it('a binary file is one readable line, not raw bytes', async () => {
    const file = path.join(box.home, 'photo.csv');
    fs.writeFileSync(
      file,
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x1b]), Buffer.alloc(4000, 0x41)]),
    );
    const result = await run(['batch', file], { env: box.env });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    // eslint-disable-next-line no-control-regex
    expect(result.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(result.stderr.length).toBeLessThan(600);
  });
});

describe('replays that must not grow', () => {
  const row = (record: Row['record'], line = 4): Row => ({ line, record, triggerId: 't', userId: 'u', value: undefined });

  it('a row with too many CSV fields keeps one error column, replay after replay', () => {
    const first = failedLine(
      row({ format: 'csv', fields: ['purchase', 'too', 'many', 'fields'] }, 401),
      'invalid, not sent: expected 3 fields as in the header, got 4',
      ['triggerId', 'userId', 'value'],
    );
    expect(first).toBe('purchase,too,many,fields,"line 401: invalid, not sent: expected 3 fields as in the header, got 4"\n');
    const replayed = failedLine(
      row({
        format: 'csv',
        fields: ['purchase', 'too', 'many', 'fields', 'line 401: invalid, not sent: expected 3 fields as in the header, got 4'],
      }),
      'invalid, not sent: expected 4 fields as in the header, got 5',
      ['triggerId', 'userId', 'value', 'error'],
    );
    expect(replayed).toBe('purchase,too,many,fields,"line 4: invalid, not sent: expected 4 fields as in the header, got 5"\n');
  });

  it('an NDJSON row keeps its digits and member order in the failed file', () => {
    const raw = '{"userId":12345678901234567890,"triggerId":"t","value":1.50}';
    const line = failedLine(
      row({ format: 'ndjson', object: JSON.parse(raw) as Record<string, unknown>, valueText: '1.50', raw }, 7),
      'invalid, not sent: x',
      undefined,
    );
    expect(line).toBe('{"userId":12345678901234567890,"triggerId":"t","value":1.50,"error":"line 7: invalid, not sent: x"}\n');
  });

  it('a numeric userId too large to keep exactly is refused with the fix, and its digits are kept', async () => {
    const input = path.join(box.home, 'big.ndjson');
    fs.writeFileSync(input, '{"triggerId":"t","userId":12345678901234567890}\n');
    const result = await run(['batch', input, '--failed', path.join(box.home, 'failed.ndjson')], { env: box.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '"userId" is a number too large (or not whole) to keep exactly; write it as a string, e.g. "userId":"12345678901234567890"',
    );
    expect(fs.readFileSync(path.join(box.home, 'failed.ndjson'), 'utf8')).toContain('"userId":12345678901234567890,');
    expect(server.requests).toHaveLength(0);
  });
});

describe('the emulator', () => {
  it('its console and its --log agree when a client gives up waiting', async () => {
    const log = path.join(box.home, 'events.ndjson');
    const printed: string[] = [];
    const emu = await startEmulator({
      port: 0,
      key: TEST_KEY,
      log,
      latencyMs: 1500,
      keepEvents: false,
      onRequest: (entry) => entry.event && printed.push(entry.event.userId),
    });
    try {
      for (const user of ['a', 'b', 'c']) {
        const result = await run(['fire', 't', user, '--timeout', '0.3', '--base-url', emu.url], { env: box.env });
        expect(result.code).toBe(3);
      }
      await new Promise((r) => setTimeout(r, 1600));
      const logged = fs
        .readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { userId: string }).userId);
      expect(logged).toEqual(['a', 'b', 'c']);
      expect(printed).toEqual(logged);
      expect(emu.stats.recorded).toBe(3);
    } finally {
      await emu.close({ force: true });
    }
  });

  it('--log that cannot be written: one line, the request answered 500, the emulator keeps running', async () => {
    const errors: string[] = [];
    const emu = await startEmulator({ port: 0, key: TEST_KEY, log: '/dev/full', onLogError: (m) => errors.push(m) });
    try {
      const first = await run(['fire', 't', 'u', '--base-url', emu.url], { env: box.env });
      expect(first.code).toBe(3); // a 500: the fire cannot know whether it was recorded
      expect(first.stderr).toContain('500 Internal Server Error: the emulator could not write its log (no space left on the disk)');
      expect(errors).toEqual(['cannot write the log /dev/full: no space left on the disk; the event was answered 500 and not recorded']);
      expect((await run(['fire', 't', 'u', '--base-url', emu.url], { env: box.env })).code).toBe(3); // still there
    } finally {
      await emu.close({ force: true });
    }
  });

  it('accepts the Bearer scheme in any letter case', async () => {
    const emu = await startEmulator({ port: 0, key: TEST_KEY });
    try {
      for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
        const answer = await fetch(`${emu.url}/v1/triggers/t/users/u/events`, {
          method: 'POST',
          headers: { authorization: `${scheme} ${TEST_KEY}`, 'content-type': 'application/json' },
          body: '{}',
        });
        expect(answer.status).toBe(200);
      }
    } finally {
      await emu.close({ force: true });
    }
  });
});

describe('file errors in words', () => {
  it('--failed naming a folder, or a file in a missing folder: a sentence, not EISDIR or ENOENT', async () => {
    const input = path.join(box.home, 'in.csv');
    fs.writeFileSync(input, 'triggerId,userId\nt,u\n');
    const folder = await run(['batch', input, '--failed', box.home], { env: box.env });
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain(`cannot write --failed ${box.home}: it is a folder`);
    const missing = await run(['batch', input, '--failed', path.join(box.home, 'no', 'f.csv')], { env: box.env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('its folder does not exist');
    expect(folder.stderr + missing.stderr).not.toMatch(/EISDIR|ENOENT/);
  });

  it('emulator --log in a missing folder: a sentence', async () => {
    const result = await run(['emulator', '--port', '0', '--log', path.join(box.home, 'no', 'log.ndjson')], { env: box.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('its folder does not exist');
    expect(result.stderr).not.toContain('ENOENT');
  });
});

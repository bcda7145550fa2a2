/**
 * `trigger batch` as a user runs it, in-process (main() with an explicit environment): a real
 * node:http server on 127.0.0.1, checking what the server received, the failed file, stdout, stderr
 * and the exit code. Moved from test/e2e/batch.test.ts, assertions unchanged; that file keeps what
 * only a process shows (standard input piped in, signals, a reader that goes away, four jobs at once).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, homeFile, type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { json, type Received, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const file = (name: string, text: string) => homeFile(box, name, text);
const read = (name: string) => fs.readFileSync(path.join(box.home, name), 'utf8');
const batch = (args: string[], input?: string, env: NodeJS.ProcessEnv = box.env) =>
  run(['batch', ...args], { env, input, timeoutMs: 60_000 });
const sent = (requests: Received[]) => requests.map((r) => `${r.url} ${r.body}`).sort();

describe('trigger batch: input', () => {
  it('CSV with quoting and reordered columns sends exactly those requests', async () => {
    const input = file(
      'events.csv',
      'value,userId,triggerId\n9.99,"smith, ""j""",purchase\n,"line\nbreak",signup\n12345678901234567890,..,purchase\n',
    );
    const result = await batch([input]);
    expect(result.code).toBe(0);
    expect(sent(server.requests)).toEqual(
      [
        '/v1/triggers/purchase/users/smith%2C%20%22j%22/events {"value":9.99}',
        '/v1/triggers/signup/users/line%0Abreak/events {}',
        '/v1/triggers/purchase/users/%2E%2E/events {"value":12345678901234567890}',
      ].sort(),
    );
    expect(server.requests.every((r) => r.headers.authorization === `Bearer ${TEST_KEY}`)).toBe(true);
    expect(result.stdout.trim()).toMatch(/^✔ 3 accepted of 3 rows in (\d+ ms|[\d.]+ s)/); // a loaded machine takes over a second
    expect(result.stderr).toBe('');
    expectNoKey(result);
  });

  it('uses one pool of kept-alive connections, not one per row', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `t,u${i}`).join('\n');
    const result = await batch([file('many.csv', `triggerId,userId\n${rows}\n`), '--concurrency', '4']);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(200);
    expect(new Set(server.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(4);
  });

  it('NDJSON with invalid rows: those are never sent, and the failed file names their lines', async () => {
    const input = file(
      'events.ndjson',
      [
        '{"triggerId":"t","userId":"a","value":1}',
        'not json',
        '{"triggerId":"t","userId":"","value":2}',
        '{"triggerId":"t","userId":"b","value":"9,99"}',
        '{"triggerId":"t","userId":"c","value":12345678901234567890}',
      ].join('\n'),
    );
    const result = await batch([input, '--failed', path.join(box.home, 'failed.ndjson')]);
    expect(result.code).toBe(1);
    expect(sent(server.requests)).toEqual([
      '/v1/triggers/t/users/a/events {"value":1}',
      '/v1/triggers/t/users/c/events {"value":12345678901234567890}',
    ]);
    const failed = read('failed.ndjson')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(failed).toEqual([
      { error: expect.stringMatching(/^line 2: invalid, not sent: not valid JSON/), input: 'not json' },
      { triggerId: 't', userId: '', value: 2, error: 'line 3: invalid, not sent: empty userId' },
      {
        triggerId: 't',
        userId: 'b',
        value: '9,99',
        error: expect.stringMatching(/^line 4: invalid, not sent: value must be a decimal number/),
      },
    ]);
    expect(result.stderr).toContain('✖ line 2: invalid, not sent: not valid JSON');
    expect(result.stdout).toMatch(/✖ 2 accepted · 0 failed · 3 invalid of 5 rows/);
  });
});

describe('trigger batch: failures and replay', () => {
  it('server failures go to the failed file, and replaying it sends exactly those rows', async () => {
    server.handle((req, res) => {
      if (req.url.includes('/users/b/') || req.url.includes('/users/d%2Ce/')) json(res, 422, { error: 'boom' });
      else if (req.url.includes('/users/c/')) json(res, 404, { message: 'no such trigger' });
      else json(res, 200, { success: true });
    });
    const input = file('events.csv', 'triggerId,userId,value,note\nt,a,1,x\nt,b,2,"y, z"\nt,c,,\nt,"d,e",4,w\nt,f,5,v\n');
    const first = await batch([input, '--failed', path.join(box.home, 'failed.csv')]);
    expect(first.code).toBe(1);
    expect(server.requests).toHaveLength(5); // a refusal is never retried
    const failedLines = read('failed.csv').trim().split('\n');
    expect(failedLines[0]).toBe('triggerId,userId,value,note,error');
    expect(failedLines.slice(1).sort()).toEqual(
      [
        't,b,2,"y, z",line 3: the service refused the event: 422 Unprocessable Content: boom',
        't,c,,,line 4: the service refused the event: 404 Not Found: no such trigger',
        't,"d,e",4,w,line 5: the service refused the event: 422 Unprocessable Content: boom',
      ].sort(),
    );

    server.requests.length = 0;
    server.handle((_req, res) => json(res, 200, { success: true }));
    const replay = await batch([path.join(box.home, 'failed.csv'), '--failed', path.join(box.home, 'failed-again.csv')]);
    expect(replay.code).toBe(0);
    expect(sent(server.requests)).toEqual(
      [
        '/v1/triggers/t/users/b/events {"value":2}',
        '/v1/triggers/t/users/c/events {}',
        '/v1/triggers/t/users/d%2Ce/events {"value":4}',
      ].sort(),
    );
    // Nothing failed: the file holds only the header, and replays as zero rows.
    expect(read('failed-again.csv')).toBe('triggerId,userId,value,note,error\n');
    server.requests.length = 0;
    const empty = await batch([path.join(box.home, 'failed-again.csv')]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/^✔ 0 accepted/);
    expect(server.requests).toHaveLength(0);
  });

  it('429 then 200 for a row: retried, accepted once', async () => {
    server.handle((_req, res, index) =>
      index === 0 ? json(res, 429, { error: 'slow down' }, { 'retry-after': '0' }) : json(res, 200, { success: true }),
    );
    const result = await batch([file('one.csv', 'triggerId,userId\nt,u\n'), '--json']);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ line: 2, ok: true, attempts: 2 });
  });

  it('stops early when every row fails the same way (a refused key), keeping the rest', async () => {
    server.handle((_req, res) => json(res, 401, { error: 'bad key' }));
    const rows = Array.from({ length: 300 }, (_, i) => `t,u${i}`).join('\n');
    const result = await batch([
      file('many.csv', `triggerId,userId\n${rows}\n`),
      '--concurrency',
      '2',
      '--failed',
      path.join(box.home, 'failed.csv'),
    ]);
    expect(result.code).toBe(1);
    expect(server.requests.length).toBeLessThan(30);
    expect(read('failed.csv').trim().split('\n')).toHaveLength(301);
    expect(result.stderr).toContain('stopping: 10 failures in a row: 401 Unauthorized');
    expect(result.stdout).toContain('stopped early');
  });
});

describe('trigger batch: pacing and concurrency', () => {
  it('--concurrency 3 never has more than three requests in flight at the server', async () => {
    server.handle(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 30));
      json(res, 200, { success: true });
    });
    const rows = Array.from({ length: 40 }, (_, i) => `t,u${i}`).join('\n');
    const result = await batch([file('many.csv', `triggerId,userId\n${rows}\n`), '--concurrency', '3']);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(40);
    expect(server.inFlight.max).toBe(3);
  });

  it('--rate paces the requests: the second waits for the first to be through, then all are sent once', async () => {
    // The spacing (exactly 50 ms at 20 a second, from the first) is asserted on a virtual clock in
    // test/unit/batch-time.test.ts; here, the order the schedule makes (unpaced, --concurrency auto
    // would start four at once).
    let firstAnswered = false;
    const beforeFirstAnswer: number[] = [];
    server.handle((_req, res, index) => {
      if (index === 0) res.on('finish', () => (firstAnswered = true));
      else if (!firstAnswered) beforeFirstAnswer.push(index);
      json(res, 200, { success: true });
    });
    const rows = Array.from({ length: 11 }, (_, i) => `t,u${i}`).join('\n');
    const result = await batch([file('paced.csv', `triggerId,userId\n${rows}\n`), '--rate', '20']);
    expect(result.code).toBe(0);
    expect(beforeFirstAnswer).toEqual([]);
    expect(new Set(server.requests.map((r) => r.url)).size).toBe(11);
  });
});

describe('trigger batch: output', () => {
  it('--json prints one NDJSON result per row with its line number, and nothing else on stdout', async () => {
    server.handle((req, res) =>
      req.url.includes('/users/b/') ? json(res, 404, { error: 'nope' }) : json(res, 200, { success: true }, { 'x-request-id': 'r1' }),
    );
    const result = await batch([file('in.csv', 'triggerId,userId,value\nt,a,1.50\nt,b,2\nt,c,x\n'), '--json']);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    const objects = lines.map((l) => JSON.parse(l) as { line: number }).sort((a, b) => a.line - b.line);
    expect(objects).toMatchObject([
      { line: 2, ok: true, status: 200, triggerId: 't', userId: 'a', value: 1.5, requestId: 'r1' },
      { line: 3, ok: false, status: 404, userId: 'b', error: { kind: 'refused', serverMessage: 'nope' } },
      // Never sent: recorded "no", as a sent row's error says it (audit23); the value null, as fire's for a --value that is no number.
      { line: 4, ok: false, status: null, userId: 'c', value: null, error: { kind: 'invalid', recorded: 'no' } },
    ]);
    expect(lines.find((l) => l.includes('"line":2'))).toContain('"value":1.50,');
    expect(result.stderr).toMatch(/1 accepted · 1 failed · 1 invalid of 3 rows/);
  });

  it('--json: a row an earlier run sent without an answer says recorded "unknown"; an invalid row\'s value is a number or null', async () => {
    // A replay of a failed file: the row of unknown outcome is skipped. It said recorded "no" (safe to send again): it may be recorded.
    const kept = 'triggerId,userId,value,error\nt,u,3,line 2: outcome unknown: 500 boom\nt,,4,line 3: x\nt,v,abc,line 4: y\n';
    const result = await batch([file('kept.csv', kept), '--json']);
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(0);
    const objects = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number })
      .sort((a, b) => a.line - b.line);
    expect(objects).toMatchObject([
      { line: 2, ok: false, value: 3, error: { kind: 'unknown', recorded: 'unknown' } },
      { line: 3, ok: false, value: 4, error: { kind: 'invalid', recorded: 'no' } }, // was "4", a string: invalid for its empty userId
      { line: 4, ok: false, value: null, error: { kind: 'invalid', recorded: 'no' } }, // was "abc"
    ]);
  });

  it('appends a summary table to $GITHUB_STEP_SUMMARY and annotates the failure', async () => {
    server.handle((_req, res) => json(res, 400, { error: 'bad' }));
    const summary = path.join(box.home, 'summary.md');
    fs.writeFileSync(summary, '# earlier step\n');
    const result = await batch([file('in.csv', 'triggerId,userId\nt,a\n')], undefined, {
      ...box.env,
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(result.code).toBe(1);
    const text = fs.readFileSync(summary, 'utf8');
    expect(text.startsWith('# earlier step\n### trigger batch ')).toBe(true);
    expect(text).toContain('| failed | 1 |');
    expect(text).toContain('| accepted | 0 |');
    expect(result.stderr).toContain('::error title=trigger::trigger batch');
  });
});

/**
 * `trigger emulator` in-process on a free port (main(), stopped as a signal would stop it), driven by
 * `trigger fire` in-process and by raw HTTP requests. test/e2e/emulator.test.ts keeps what needs a
 * process: SIGINT and SIGTERM with a request in flight, a port in use, and npm run demo.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import {
  runInProcess as run,
  startEmulatorInProcess as startEmulatorProcess,
  type InProcessEmulator as EmulatorProcess,
} from '../helpers/in-process.js';

let box: Sandbox;
let emu: EmulatorProcess | undefined;

beforeEach(() => {
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY });
});
afterEach(async () => {
  await emu?.stop('SIGKILL');
  emu = undefined;
  box.cleanup();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(url: string, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}${options.path}`,
      { method: options.method ?? 'POST', headers: options.headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const good = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' };
const fire = (url: string, args: string[]) => run(['fire', ...args], { env: { ...box.env, TRIGGER_BASE_URL: url } });

describe('trigger emulator: recording', () => {
  it('records what trigger fire sent: values, no value and awkward ids, on stdout and in the log', async () => {
    const log = path.join(box.home, 'events.ndjson');
    emu = await startEmulatorProcess(['--log', log], box.env);
    const ids = ['alice@example.com', '..', '.', '100% a/b?c#d', '名前😀', 'a\u034fb'];
    for (const [i, userId] of ids.entries()) {
      const result = await fire(emu.url, ['purchase', userId, ...(i === 0 ? ['--value', '9.99'] : [])]);
      expect(result.code).toBe(0);
    }
    expect((await fire(emu.url, ['purchase', 'big', '--value', '12345678901234567890'])).code).toBe(0);

    const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(ids.length + 1);
    const events = lines.map((line) => JSON.parse(line) as { triggerId: string; userId: string; value?: number });
    expect(events.map((e) => e.userId)).toEqual([...ids, 'big']);
    expect(events.every((e) => e.triggerId === 'purchase')).toBe(true);
    expect(events[0]?.value).toBe(9.99);
    expect('value' in events[1]!).toBe(false);
    expect(lines.at(-1)).toContain('"value":12345678901234567890,');

    const printed = await emu.waitForLines(ids.length + 1);
    expect(printed[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} ✔ purchase · alice@example\.com · value 9\.99$/);
    expect(printed[1]).toMatch(/ · \.\. · no value$/);
    // Shown as `trigger fire` shows them (audit25 #14: the emulator quoted a space, fire did not), an invisible U+034F escaped (#4).
    expect(printed[3]).toContain(' · 100% a/b?c#d · ');
    expect(printed[5]).toContain(' · "a\\u034fb" · ');
    expect(printed.at(-1)).toContain('value 12345678901234567890');
    expectNoKey({ stdout: emu.stdout(), stderr: emu.stderr() });
  });

  it('generates a key when none is given and prints the two export lines', async () => {
    const env = { ...box.env };
    delete env.TRIGGER_API_KEY;
    emu = await startEmulatorProcess([], env);
    const key = /export TRIGGER_API_KEY=(\S+)/.exec(emu.stderr())?.[1];
    expect(key).toMatch(/^emu_[\w-]{20,}$/);
    expect(emu.stderr()).toContain(`export TRIGGER_BASE_URL=${emu.url}`);
    const result = await run(['fire', 't', 'u'], { env: { ...env, TRIGGER_BASE_URL: emu.url, TRIGGER_API_KEY: key } });
    expect(result.code).toBe(0);
  });

  it('only accepts the --trigger ids when given', async () => {
    emu = await startEmulatorProcess(['--trigger', 'purchase', 'signup'], box.env);
    expect((await fire(emu.url, ['signup', 'u'])).code).toBe(0);
    const refused = await fire(emu.url, ['other', 'u']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('404 Not Found: trigger "other" not found');
    expect(emu.stdout().split('\n').filter(Boolean)).toHaveLength(1);
  });
});

describe('trigger emulator: answers', () => {
  beforeEach(async () => {
    emu = await startEmulatorProcess([], box.env);
  });

  it.each([
    [
      'no Authorization',
      401,
      { path: '/v1/triggers/t/users/u/events', headers: { 'content-type': 'application/json' }, body: '{}' },
      'missing Authorization',
    ],
    [
      'a wrong key',
      401,
      { path: '/v1/triggers/t/users/u/events', headers: { ...good, authorization: 'Bearer nope' }, body: '{}' },
      'invalid API key',
    ],
    [
      'text/plain',
      415,
      { path: '/v1/triggers/t/users/u/events', headers: { ...good, 'content-type': 'text/plain' }, body: '{}' },
      'Content-Type must be application/json',
    ],
    ['bad JSON', 400, { path: '/v1/triggers/t/users/u/events', headers: good, body: '{"value":' }, 'not valid JSON'],
    ['an array', 400, { path: '/v1/triggers/t/users/u/events', headers: good, body: '[1]' }, 'must be a JSON object'],
    ['a string value', 400, { path: '/v1/triggers/t/users/u/events', headers: good, body: '{"value":"9.99"}' }, '"value" must be a number'],
    [
      'a value beyond a double',
      400,
      { path: '/v1/triggers/t/users/u/events', headers: good, body: '{"value":1e400}' },
      '"value" is beyond the range of a double',
    ],
    [
      'a value that underflows to 0',
      400,
      { path: '/v1/triggers/t/users/u/events', headers: good, body: '{"value":1e-999}' },
      'too small to be told from 0',
    ],
    ['a null value', 400, { path: '/v1/triggers/t/users/u/events', headers: good, body: '{"value":null}' }, '"value" must be a number'],
    ['another path', 404, { path: '/v1/triggers/t/events', headers: good, body: '{}' }, 'no such route'],
    ['an empty user id', 404, { path: '/v1/triggers/t/users//events', headers: good, body: '{}' }, 'no such route'],
    ['a GET', 405, { method: 'GET', path: '/v1/triggers/t/users/u/events', headers: good }, 'use POST'],
    ['a DELETE', 405, { method: 'DELETE', path: '/v1/triggers/t/users/u/events', headers: good }, 'use POST'],
    [
      'a body over 1 MiB',
      413,
      { path: '/v1/triggers/t/users/u/events', headers: good, body: `{"value":1,"pad":"${'x'.repeat(2 * 1024 * 1024)}"}` },
      'larger than 1 MiB',
    ],
    ['broken percent-encoding', 400, { path: '/v1/triggers/t/users/%E0%A4%A/events', headers: good, body: '{}' }, 'percent-encoding'],
  ])('answers %s with %i and a JSON error', async (_name, status, request, message) => {
    const answer = await send(emu!.url, request);
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json');
    const body = JSON.parse(answer.body) as { success: boolean; error: string };
    expect(body.success).toBe(false);
    expect(body.error).toContain(message);
    // Still alive and recording afterwards; the rejected request was not recorded.
    const ok = await send(emu!.url, { path: '/v1/triggers/t/users/after/events', headers: good, body: '{"value":1}' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ success: true });
    const lines = await emu!.waitForLines(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('after · value 1');
  });

  it('decodes the user id exactly as sent, and gives each answer a request id', async () => {
    const answer = await send(emu!.url, { path: '/v1/triggers/t/users/%2E%2E%2F%25%F0%9F%98%80/events', headers: good, body: '{}' });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-request-id']).toMatch(/^emu-/);
    const [line] = await emu!.waitForLines(1);
    expect(line).toContain(' · ../%😀 · no value');
  });
});

describe('trigger emulator: fault injection', () => {
  it('--fail-rate 1 with 429: fire --retries 1 makes exactly two attempts and exits 3, not recorded', async () => {
    emu = await startEmulatorProcess(['--fail-rate', '1', '--fail-status', '429'], box.env);
    const result = await fire(emu.url, ['t', 'u', '--retries', '1', '--json']);
    expect(result.code).toBe(3);
    const object = JSON.parse(result.stdout) as { ok: boolean; status: number; attempts: number };
    expect(object).toMatchObject({ ok: false, status: 429, attempts: 2, error: { recorded: 'no' } });
    expect(emu.stderr().match(/✖ 429 injected/g)).toHaveLength(2);
    expect(emu.stdout()).toBe('');
  });

  it('answers 503 with Retry-After: 1 by default, and other statuses without it', async () => {
    emu = await startEmulatorProcess(['--fail-rate', '1'], box.env);
    const answer = await send(emu.url, { path: '/v1/triggers/t/users/u/events', headers: good, body: '{}' });
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(JSON.parse(answer.body)).toMatchObject({ success: false });
    await emu.stop('SIGKILL');

    emu = await startEmulatorProcess(['--fail-rate', '1', '--fail-status', '500'], box.env);
    const five = await send(emu.url, { path: '/v1/triggers/t/users/u/events', headers: good, body: '{}' });
    expect(five.status).toBe(500);
    expect(five.headers['retry-after']).toBeUndefined();
    const fired = await fire(emu.url, ['t', 'u']);
    expect(fired.code).toBe(3); // a 500: the outcome is unknown
    expect(emu.stderr().match(/✖ 500 injected/g)).toHaveLength(2); // the raw request and one fire attempt: 500 is never retried
  });

  it('--fail-rate fails about that share of requests (seeded in-process)', async () => {
    const numbers = [0.1, 0.9, 0.3, 0.7];
    let i = 0;
    const server = await startEmulator({ port: 0, key: TEST_KEY, failRate: 0.5, random: () => numbers[i++ % numbers.length]! });
    try {
      const statuses = [];
      for (let n = 0; n < 4; n++)
        statuses.push((await send(server.url, { path: '/v1/triggers/t/users/u/events', headers: good, body: '{}' })).status);
      expect(statuses).toEqual([503, 200, 503, 200]);
      expect(server.stats).toMatchObject({ recorded: 2, injected: 2 });
    } finally {
      await server.close();
    }
  });

  it('--latency delays every answer', async () => {
    emu = await startEmulatorProcess(['--latency', '400'], box.env);
    const result = await fire(emu.url, ['t', 'u', '--json']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(400);
  });
});

describe('trigger emulator: lifecycle', () => {
  it('a key from TRIGGER_API_KEY is never printed', async () => {
    emu = await startEmulatorProcess([], box.env);
    expect(emu.stderr()).toContain('API key from TRIGGER_API_KEY (••••z789)');
    expectNoKey({ stdout: emu.stdout(), stderr: emu.stderr() });
  });

  it('bad options are usage errors (exit 2) and it never starts', async () => {
    for (const args of [
      ['--fail-rate', '1.5'],
      ['--fail-status', '200'],
      ['--latency', '-1'],
      ['--port', '70000'],
    ]) {
      const result = await run(['emulator', ...args], { env: box.env, timeoutMs: 5_000 });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/error: /);
    }
  });

  it.each([
    [['--trigger', ''], "error: --trigger '' is no trigger id: name each one (e.g. --trigger purchase signup)"],
    [['--trigger', 'purchase', ''], "error: --trigger '' is no trigger id: name each one (e.g. --trigger purchase signup)"],
  ])('%j is refused (exit 2): it printed triggers: "" and answered 404 to every trigger (audit25 #12)', async (args, line) => {
    const result = await run(['emulator', ...args], { env: box.env, timeoutMs: 5_000 });
    expect([result.code, result.stderr]).toEqual([2, `${line}\n`]);
  });

  it('--log naming a folder says to name a file in it, not to check that its folder exists (audit25 #12)', async () => {
    const result = await run(['emulator', '--log', box.home], { env: box.env, timeoutMs: 5_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`it is a folder — name a file in it (e.g. --log ${box.home}/events.ndjson)`);
  });

  it('is a library too: start on port 0, read the recorded events, stop', async () => {
    const server = await startEmulator({ port: 0, key: TEST_KEY, triggers: ['purchase'] });
    try {
      const result = await fire(server.url, ['purchase', 'alice', '--value', '2.5']);
      expect(result.code).toBe(0);
      expect(server.events).toMatchObject([{ triggerId: 'purchase', userId: 'alice', value: 2.5, valueText: '2.5' }]);
    } finally {
      await server.close();
    }
  });
});

describe('trigger emulator: --host', () => {
  it('on every address, prints a loopback URL that trigger accepts without --allow-http', async () => {
    emu = await startEmulatorProcess(['--host', '0.0.0.0'], box.env);
    expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await run(['fire', 't', 'u'], { env: { ...box.env, TRIGGER_BASE_URL: emu.url } })).code).toBe(0);
  });
});

const triggersLine = (stderr: string) => stderr.split('\n').find((line) => line.startsWith('  triggers: '));

// Catalog text and --trigger ids reach the terminal escaped, as every human line shows ids.
describe('trigger emulator: the triggers line of the banner', () => {
  it("escapes the catalog's ids and its path", async () => {
    const project = path.join(box.home, 'odd\u001b[2Jfolder');
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(
      path.join(project, 'triggers.json'),
      JSON.stringify({ triggers: { 'red\u001b[31m': {}, 'two\nlines': {}, plain: {} } }),
    );
    emu = await startEmulatorProcess([], box.env, project);
    const line = triggersLine(emu.stderr());
    expect(line).toBe(
      `  triggers: "red\\u001b[31m", "two\\nlines", plain from ${path.join(box.home, 'odd\\x1b[2Jfolder', 'triggers.json')} (any other answers 404)`,
    );
    expect(emu.stderr()).not.toContain('\u001b');
  });

  it('escapes --trigger ids', async () => {
    emu = await startEmulatorProcess(['--trigger', 'a\u0007b', 'ok'], box.env);
    expect(triggersLine(emu.stderr())).toBe('  triggers: "a\\u0007b", ok (any other answers 404)');
    expect(emu.stderr()).not.toContain('\u0007');
  });
});

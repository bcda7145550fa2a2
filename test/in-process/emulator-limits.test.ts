/**
 * The emulator as a service with limits (--capacity, --max-in-flight), its command in-process.
 * test/e2e/emulator-limits.test.ts keeps a FIFO for --log, with and without a reader process.
 */
import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tokenBucket, startEmulator, type Emulator } from '../../src/emulator/server.js';
import { TEST_KEY, sandbox, type Sandbox } from '../helpers/cli.js';
import {
  runInProcess as run,
  startEmulatorInProcess as startEmulatorProcess,
  type InProcessEmulator as EmulatorProcess,
} from '../helpers/in-process.js';

let box: Sandbox;
let emu: EmulatorProcess | undefined;
let server: Emulator | undefined;

beforeEach(() => {
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY });
});
afterEach(async () => {
  await emu?.stop('SIGKILL');
  await server?.close({ force: true });
  emu = undefined;
  server = undefined;
  box.cleanup();
});

const good = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' };

function post(url: string, user = 'u'): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/triggers/t/users/${user}/events`, { method: 'POST', headers: good, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

describe('the token bucket', () => {
  it('holds a tenth of a second, refills at the rate, and says how long until the next token', () => {
    let now = 0;
    const bucket = tokenBucket(400, () => now);
    const taken = Array.from({ length: 41 }, () => bucket.take());
    expect(taken.slice(0, 40).every((wait) => wait === 0)).toBe(true);
    expect(taken[40]).toBeCloseTo(2.5); // one token every 2.5 ms
    now += 5;
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([0, 0, 2.5]);
    now += 10_000; // a long idle time banks no more than the bucket holds
    expect(Array.from({ length: 41 }, () => bucket.take()).filter((wait) => wait === 0)).toHaveLength(40);
  });

  it('never holds less than one token', () => {
    let now = 0;
    const bucket = tokenBucket(2, () => now);
    expect(bucket.take()).toBe(0);
    expect(bucket.take()).toBe(500);
    now += 499;
    expect(bucket.take()).toBeCloseTo(1);
    now += 1;
    expect(bucket.take()).toBe(0);
  });
});

describe('trigger emulator --capacity', () => {
  it('answers 429 with Retry-After beyond n requests per second, and records nothing for them', async () => {
    let now = 0;
    server = await startEmulator({ port: 0, key: TEST_KEY, capacity: 10, now: () => now });
    expect((await post(server.url, 'a')).status).toBe(200);
    const limited = await post(server.url, 'b');
    expect(limited.status).toBe(429);
    expect(limited.retryAfter).toBe('1');
    expect(JSON.parse(limited.body)).toMatchObject({ success: false, error: expect.stringContaining('--capacity') });
    now += 100;
    expect((await post(server.url, 'c')).status).toBe(200);
    expect(server.events.map((e) => e.userId)).toEqual(['a', 'c']);
    expect(server.stats).toMatchObject({ recorded: 2, pushedBack: 1, rejected: 0 });
  });

  it('says Retry-After in whole seconds, rounded up, for a slow bucket', async () => {
    let now = 0;
    server = await startEmulator({ port: 0, key: TEST_KEY, capacity: 0.25, now: () => now });
    expect((await post(server.url)).status).toBe(200);
    now += 1000;
    expect((await post(server.url)).retryAfter).toBe('3');
  });
});

describe('trigger emulator --max-in-flight', () => {
  it('answers 503 with Retry-After: 1 beyond n at once, and takes requests again once they are done', async () => {
    server = await startEmulator({ port: 0, key: TEST_KEY, maxInFlight: 2, latencyMs: 300 });
    const answers = await Promise.all([post(server.url, 'a'), post(server.url, 'b'), post(server.url, 'c')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 503]);
    expect(answers.find((a) => a.status === 503)?.retryAfter).toBe('1');
    expect((await post(server.url, 'd')).status).toBe(200);
    expect(server.stats).toMatchObject({ recorded: 3, pushedBack: 1 });
  });

  it('counts refused requests out of the work in progress too', async () => {
    server = await startEmulator({ port: 0, key: TEST_KEY, maxInFlight: 1, triggers: ['other'] });
    for (let i = 0; i < 3; i++) expect((await post(server.url)).status).toBe(404);
    expect(server.stats).toMatchObject({ rejected: 3, pushedBack: 0 });
  });
});

describe('trigger emulator: limits from the command line', () => {
  it('says its limits, marks push-backs on stderr and counts them at the end', async () => {
    emu = await startEmulatorProcess(['--capacity', '1', '--max-in-flight', '4'], box.env);
    expect(emu.stderr()).toContain('capacity: 1 requests per second, 429 with Retry-After beyond');
    expect(emu.stderr()).toContain('at most 4 requests at once, 503 with Retry-After beyond');
    const statuses = [(await post(emu.url, 'a')).status, (await post(emu.url, 'b')).status];
    expect(statuses).toEqual([200, 429]);
    expect(await emu.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(emu.stderr()).toMatch(/✖ 429 pushed back POST/);
    expect(emu.stderr()).toContain('stopped: 1 recorded, 0 rejected, 0 injected failures, 1 pushed back');
  });

  it('bad limits are usage errors (exit 2) and it never starts', async () => {
    for (const args of [
      ['--capacity', '0'],
      ['--capacity', 'lots'],
      ['--max-in-flight', '0'],
      ['--max-in-flight', '2.5'],
    ]) {
      const result = await run(['emulator', '--port', '0', ...args], { env: box.env, timeoutMs: 5_000 });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^error: .*(capacity|max-in-flight)/m);
    }
  });
});

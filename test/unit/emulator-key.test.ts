/**
 * The emulator's key check in constant time, and the warning for a --host other machines can reach.
 */
import crypto from 'node:crypto';
import type * as Crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Watch timingSafeEqual as the emulator imports it (the real one still answers).
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof Crypto>();
  return { ...actual, default: actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const { startEmulator, sameKey } = await import('../../src/emulator/server.js');
const { exposureWarning } = await import('../../src/commands/emulator.js');
const { timingSafeEqual } = await import('node:crypto');

const KEY = 'emu_test_key_constant_time_0001';
const digest = crypto.createHash('sha256').update(KEY).digest();

afterEach(() => vi.mocked(timingSafeEqual).mockClear());

describe('sameKey', () => {
  it.each([
    [KEY, true],
    [`${KEY}x`, false],
    [KEY.slice(0, -1), false],
    ['', false],
    [KEY.toUpperCase(), false],
    [`${KEY.slice(0, -1)}2`, false],
  ])('%j is the key: %s', (token, expected) => {
    expect(sameKey(token, digest)).toBe(expected);
  });
});

describe('the emulator compares the bearer key with timingSafeEqual', () => {
  it.each([
    [`Bearer ${KEY}`, 200],
    [`bearer ${KEY.slice(0, 10)}`, 401],
    [`Bearer ${KEY}${'x'.repeat(100)}`, 401],
  ])('%j answers %i, through timingSafeEqual', async (authorization, status) => {
    const emulator = await startEmulator({ port: 0, key: KEY });
    try {
      const response = await fetch(`${emulator.url}/v1/triggers/t/users/u/events`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(response.status).toBe(status);
      expect(vi.mocked(timingSafeEqual)).toHaveBeenCalledTimes(1);
    } finally {
      await emulator.close({ force: true });
    }
  });
});

describe('exposureWarning', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])('%s: none (loopback)', (host) => {
    expect(exposureWarning(host)).toBeUndefined();
  });
  it.each([
    ['0.0.0.0', /--host 0\.0\.0\.0 makes the emulator reachable from the network \(every address of this machine\), over plain http/],
    ['::', /--host :: makes the emulator reachable from the network \(every address/],
    ['192.168.1.20', /--host 192\.168\.1\.20 makes the emulator reachable from the network, over plain http/],
    ['build-box.internal', /--host build-box\.internal makes the emulator reachable/],
    ['evil\u202ehost', /--host evil\\u202ehost makes/],
  ])('%s: one line', (host, expected) => {
    const line = exposureWarning(host);
    expect(line).toMatch(/^warning: /);
    expect(line).toMatch(expected);
    expect(line).not.toContain('\n');
  });
});

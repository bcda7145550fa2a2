/**
 * A credential store that never answers, on vitest's fake clock: every call gives up after exactly
 * STORE_TIMEOUT_MS (a second), and set-key then keeps the key in the file. The native module is
 * replaced by one whose calls never settle (what a hung D-Bus session does); the real Secret Service
 * is in test/e2e/keychain.test.ts, which checks the fallback from a process without timing it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const calls: string[] = [];
vi.mock('@napi-rs/keyring', () => ({
  AsyncEntry: class {
    constructor(
      readonly service: string,
      readonly user: string,
    ) {}
    setPassword(): Promise<void> {
      calls.push('set');
      return new Promise(() => undefined);
    }
    getPassword(): Promise<string | null> {
      calls.push('get');
      return new Promise(() => undefined);
    }
    deleteCredential(): Promise<boolean> {
      calls.push('delete');
      return new Promise(() => undefined);
    }
  },
}));

const { STORE_TIMEOUT_MS, deleteKey, loadKey, storeKey } = await import('../../src/settings/keychain.js');

beforeEach(() => {
  calls.length = 0;
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => vi.useRealTimers());

/** Whether `promise` has settled after the fake clock moved on by `ms`. */
async function settledAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await vi.advanceTimersByTimeAsync(ms);
  return settled;
}

describe('a credential store that does not answer', () => {
  it('is given up on after exactly one second, for each call', async () => {
    expect(STORE_TIMEOUT_MS).toBe(1000);
    for (const [call, start] of [
      ['set', () => storeKey('default', 'k')],
      ['get', () => loadKey('default')],
      ['delete', () => deleteKey('default')],
    ] as const) {
      const promise = start();
      promise.catch(() => undefined);
      expect(await settledAfter(promise, STORE_TIMEOUT_MS - 1), `${call} settled before a second`).toBe(false);
      expect(await settledAfter(promise, 1), `${call} settled at a second`).toBe(true);
      expect(calls.at(-1)).toBe(call);
    }
  });

  it('set-key and delete say why in words the user can act on; loadKey fails with a ConfigError naming the profile', async () => {
    const stored = storeKey('default', 'k');
    await vi.advanceTimersByTimeAsync(STORE_TIMEOUT_MS);
    expect(await stored).toBe('no answer within 1 s');
    const deleted = deleteKey('staging');
    await vi.advanceTimersByTimeAsync(STORE_TIMEOUT_MS);
    expect(await deleted).toBe('no answer within 1 s');
    const loaded = loadKey('staging').catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(STORE_TIMEOUT_MS);
    expect(String(await loaded)).toContain('the API key of profile "staging" is kept in');
    expect(String(await loaded)).toContain('the system keychain did not answer within a second');
  });
});

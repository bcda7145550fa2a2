/**
 * How long a settings write waits for a lock it cannot take, on vitest's fake clock (performance.now
 * and setTimeout, which src/lock.ts uses): exactly the wait asked for, 15 s by default from
 * the command, with pauses between looks rather than a loop that spins. The end-to-end tests
 * (test/e2e/settings-lock.test.ts) check the same runs from a process, without timing them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { LOCK_WAIT_MS, lockWaitMs, withLock } from '../../src/lock.js';
import { commandEnv, runCommand } from '../helpers/in-process.js';

let dir: string;
let file: string;
let lock: string;
let looks: number;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-lock-wait-'));
  file = path.join(dir, 'config.json');
  lock = `${file}.lock`;
  fs.mkdirSync(lock); // a lock that is a folder: never taken, only waited for
  looks = 0;
  const lstat = fs.lstatSync.bind(fs);
  vi.spyOn(fs, 'lstatSync').mockImplementation(((target: fs.PathLike, ...rest: unknown[]) => {
    if (target === lock) looks++;
    return (lstat as (...args: unknown[]) => fs.Stats)(target, ...rest);
  }) as typeof fs.lstatSync);
  vi.spyOn(Math, 'random').mockReturnValue(0); // the jitter of the pauses: none
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Settles `promise` on the fake clock; returns what it came to and the clock's time when it did. */
async function onTheClock<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown; at: number }> {
  const started = performance.now();
  let settled: { value?: T; error?: unknown; at: number } | undefined;
  promise.then(
    (value) => (settled = { value, at: performance.now() - started }),
    (error: unknown) => (settled = { error, at: performance.now() - started }),
  );
  for (let i = 0; i < 100_000 && !settled; i++) await vi.advanceTimersToNextTimerAsync();
  return settled!;
}

/** The pauses between looks without jitter: 5 ms doubling to 100, the last cut to end at the wait. */
function expectedLooks(waitMs: number): number {
  let n = 1;
  let waited = 0;
  for (let pause = 5; waited < waitMs; pause = Math.min(pause * 2, 100)) {
    waited += Math.min(pause, waitMs - waited);
    n++;
  }
  return n;
}

describe('the settings lock waits on the clock', () => {
  it.each([200, 1000, 2500])('a lock it cannot judge: gives up after exactly %i ms, looking again after each pause', async (waitMs) => {
    const fn = vi.fn(async () => 'ran');
    const result = await onTheClock(withLock(file, fn, { waitMs }));
    expect(result.at).toBe(waitMs);
    expect(result.error).toBeInstanceOf(ConfigError);
    expect((result.error as ConfigError).message).toBe(
      `cannot write ${file}: its lock ${lock} is a folder, not a lock file; gave up after ${waitMs / 1000} s`,
    );
    expect(fn).not.toHaveBeenCalled();
    expect(looks).toBe(expectedLooks(waitMs));
  });

  it('the default wait is 15 s, and TRIGGER_LOCK_WAIT is read in seconds', () => {
    expect(LOCK_WAIT_MS).toBe(15_000);
    expect(lockWaitMs({})).toBe(15_000);
    expect(lockWaitMs({ TRIGGER_LOCK_WAIT: '' })).toBe(15_000);
    expect(lockWaitMs({ TRIGGER_LOCK_WAIT: '0.5' })).toBe(500);
  });

  it('trigger config set-base-url waits the default 15 s, with under two hundred looks, then exit 2 naming the lock', async () => {
    const sandbox = commandEnv({ TRIGGER_CONFIG_DIR: dir });
    try {
      const result = await onTheClock(runCommand(['config', 'set-base-url', 'https://new.example.com'], sandbox.env));
      expect(result.at).toBe(15_000);
      expect(result.value?.code).toBe(2);
      expect(result.value?.stderr).toContain(`its lock ${lock} is a folder, not a lock file; gave up after 15 s`);
      // A loop that spun would look thousands of times: this one pauses up to 100 ms between looks.
      expect(looks).toBe(expectedLooks(15_000));
      expect(looks).toBeLessThan(200);
      expect(fs.existsSync(file)).toBe(false);
    } finally {
      sandbox.cleanup();
    }
  });
});

/**
 * The settings lock in-process, for what a test cannot make for real as root: a lock left by a
 * process that ended which cannot be removed (EPERM, as in a sticky folder owned by another user).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { withLock } from '../../src/lock.js';

let dir: string;
let file: string;
let lock: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-lock-'));
  file = path.join(dir, 'config.json');
  lock = `${file}.lock`;
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Settles `promise` with the lock's waits on vitest's fake clock (performance.now and setTimeout,
 * which src/lock.ts uses), as test/unit/lock-wait.test.ts does: the same looks and pauses, without
 * sleeping through them. Returns its error, or undefined when it resolved.
 */
async function waitedOut(promise: Promise<unknown>): Promise<unknown> {
  let settled: { error?: unknown } | undefined;
  promise.then(
    () => (settled = {}),
    (error: unknown) => (settled = { error }),
  );
  for (let i = 0; i < 100_000 && !settled; i++) await vi.advanceTimersToNextTimerAsync();
  return settled!.error;
}
const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });

// A pid that ran and ended (a shell, cheaper to start than Node).
const endedPid = () => Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout);

describe('withLock', () => {
  it('a lock of an ended process that cannot be removed: a few tries with pauses, then a ConfigError naming it', async () => {
    const pid = endedPid();
    fs.writeFileSync(lock, JSON.stringify({ pid, host: os.hostname() }));
    const unlink = fs.unlinkSync.bind(fs);
    let tries = 0;
    vi.spyOn(fs, 'unlinkSync').mockImplementation((target) => {
      if (target === lock) {
        tries++;
        throw Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' });
      }
      unlink(target);
    });
    const fn = vi.fn(async () => 'ran');
    fakeClock();
    const error = await waitedOut(withLock(file, fn, { waitMs: 300 }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      `cannot write ${file}: its lock ${lock} was left by process ${pid}, which has ended, and cannot be removed (permission denied); gave up after 0.3 s`,
    );
    expect((error as ConfigError).hint).toBe(`remove it: rm ${lock}`);
    expect(fn).not.toHaveBeenCalled();
    expect(tries).toBeGreaterThan(0);
    expect(tries).toBeLessThan(30); // pauses between looks, not a busy loop
    expect(fs.existsSync(`${lock}.break`)).toBe(false);
  });

  it('removes only its own lock when done, and runs one holder at a time', async () => {
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        withLock(file, async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((resolve) => setTimeout(resolve, 10));
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(fs.existsSync(lock)).toBe(false);

    // A lock that another process took meanwhile (its content is not ours) is left in place.
    await withLock(file, async () => {
      fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: 'elsewhere' }));
    });
    expect(fs.existsSync(lock)).toBe(true);
  });
});

describe('withLock meets what it cannot judge', () => {
  it.each([
    ['a link to nothing', () => fs.symlinkSync(path.join(dir, 'gone'), lock), 'its lock LOCK is a link, not a lock file'],
    ['a link to /dev/zero (never read)', () => fs.symlinkSync('/dev/zero', lock), 'its lock LOCK is a link, not a lock file'],
    ['a FIFO (reading would block)', () => spawnSync('mkfifo', [lock]), 'its lock LOCK is not a regular file, not a lock file'],
    ['a folder', () => fs.mkdirSync(lock), 'its lock LOCK is a folder, not a lock file'],
    ['an empty file', () => fs.writeFileSync(lock, ''), 'its lock LOCK does not say which process holds it'],
    [
      'a pid of 0',
      () => fs.writeFileSync(lock, JSON.stringify({ pid: 0, host: os.hostname() })),
      'its lock LOCK does not say which process holds it',
    ],
  ])('%s: waits with pauses, then names the lock', async (_what, make, why) => {
    make();
    fakeClock();
    const error = await waitedOut(withLock(file, async () => 'ran', { waitMs: 200 }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(`cannot write ${file}: ${why.replace('LOCK', lock)}; gave up after 0.2 s`);
    expect(fs.lstatSync(lock)).toBeDefined(); // left as it was
  });
});

describe.runIf(process.platform === 'linux')('a pid that runs again under another process', () => {
  const startOf = (pid: number) => {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
  };

  it('a zombie (ended, not yet reaped by its parent) is no holder', async () => {
    // The child's parent must never wait for it: the shell execs into `sleep`, which never does. The
    // child ends only once that exec is done (it waits for a line on fd 3, sent after), so the shell
    // cannot reap it first. (A shell's `sleep 0 &` could be reaped before the exec; python3 did the
    // same as this but took 0.6 s of CPU to start.)
    const parent = spawn('sh', ['-c', 'read -r go <&3 & echo $!; exec sleep 5 3<&-'], { stdio: ['ignore', 'pipe', 'ignore', 'pipe'] });
    const look = async (ready: () => boolean) => {
      for (let i = 0; i < 250 && !ready(); i++) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (d: Buffer) => resolve(String(d)))));
      const comm = () => fs.readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim();
      await look(() => comm() === 'sleep');
      expect(comm()).toBe('sleep');
      (parent.stdio[3] as Writable).write('go\n');
      const zombie = () => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
      await look(zombie);
      expect(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')).toContain(') Z ');
      fs.writeFileSync(lock, JSON.stringify({ pid, host: os.hostname() }));
      await expect(withLock(file, async () => 'ran', { waitMs: 0 })).resolves.toBe('ran');
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('a live pid whose start time differs from the one recorded is a lock left behind; the same start time is its holder', async () => {
    const pid = process.ppid; // runs, and is not this process
    fs.writeFileSync(lock, JSON.stringify({ pid, host: os.hostname(), start: String(Number(startOf(pid)) + 1) }));
    await expect(withLock(file, async () => 'ran', { waitMs: 0 })).resolves.toBe('ran');

    fs.writeFileSync(lock, JSON.stringify({ pid, host: os.hostname(), start: startOf(pid) }));
    fakeClock();
    const error = await waitedOut(withLock(file, async () => 'ran', { waitMs: 100 }));
    expect((error as ConfigError).message).toBe(`cannot write ${file}: process ${pid} holds its lock ${lock}; gave up after 0.1 s`);
  });
});

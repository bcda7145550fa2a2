/**
 * The one lock (src/lock.ts) under both rules: what the settings and a batch now share (the holder
 * recorded whole, our own pid judged by what this process holds) and where their rules differ.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileLock, withLock } from '../../src/lock.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-one-lock-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('one lock, two rules', () => {
  it('records its holder whole under either rule, 0600 beside the settings and 0644 beside a batch file', async () => {
    const file = path.join(dir, 'config.json');
    await withLock(file, async () => {
      const stat = fs.statSync(`${file}.lock`);
      expect(stat.mode & 0o777).toBe(0o600);
      expect(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({
        pid: process.pid,
        host: os.hostname(),
        since: expect.any(String),
      });
    });
    const lock = FileLock.acquire(path.join(dir, 'j.journal'), 'the journal j', 'wait');
    expect(fs.statSync(lock.paths[0]!).mode & 0o777).toBe(0o644);
    expect(JSON.parse(fs.readFileSync(lock.paths[0]!, 'utf8'))).toMatchObject({ pid: process.pid, host: os.hostname() });
    lock.release();
    expect(fs.existsSync(lock.paths[0]!)).toBe(false);
  });

  it('our own pid in a lock this process does not hold is a process that ended (pids repeat in containers)', async () => {
    const guarded = path.join(dir, 'j.journal');
    fs.writeFileSync(FileLock.pathFor(guarded), JSON.stringify({ pid: process.pid, host: os.hostname(), since: 'then' }));
    expect(FileLock.holder(guarded)).toBeUndefined();
    const lock = FileLock.acquire(guarded, 'the journal j', 'wait');
    // While held, it is ours: a second taker in this process is refused, naming us.
    expect(FileLock.holder(guarded)?.pid).toBe(process.pid);
    expect(() => FileLock.acquire(guarded, 'the journal j', 'wait')).toThrow(/in use by another batch \(pid \d+, since /);
    lock.release();

    const file = path.join(dir, 'config.json');
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, host: os.hostname() }));
    await expect(withLock(file, async () => 'ran', { waitMs: 0 })).resolves.toBe('ran');
  });

  it('a lock that cannot be written says what to do about the folder of the file it guards', async () => {
    const file = path.join(dir, 'missing', 'triggers.json');
    const settings = withLock(file, async () => 'ran');
    await expect(settings).rejects.toThrow(/cannot write .*triggers\.json: /);
    await expect(settings).rejects.toMatchObject({ hint: 'set TRIGGER_CONFIG_DIR to a folder you can write to' });
    await expect(withLock(file, async () => 'ran', { hint: 'name another with --catalog' })).rejects.toMatchObject({
      hint: 'name another with --catalog',
    });
  });

  it('a lock file that names no holder: the settings wait for it, a batch takes it over', async () => {
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(`${file}.lock`, '');
    await expect(withLock(file, async () => 'ran', { waitMs: 50 })).rejects.toThrow(/does not say which process holds it; gave up/);
    const guarded = path.join(dir, 'j.journal');
    fs.writeFileSync(FileLock.pathFor(guarded), '');
    FileLock.acquire(guarded, 'the journal j', 'wait').release();
  });

  it('a batch refuses a lock that is a folder, naming it, and leaves it', () => {
    const guarded = path.join(dir, 'j.journal');
    fs.mkdirSync(FileLock.pathFor(guarded));
    expect(() => FileLock.acquire(guarded, 'the journal j', 'wait')).toThrow(
      /^cannot lock the journal j: its lock .* is a folder, not a lock file$/,
    );
    expect(FileLock.tryAcquire(guarded, 'the journal j')).toBeUndefined();
    expect(fs.statSync(FileLock.pathFor(guarded)).isDirectory()).toBe(true);
  });
});

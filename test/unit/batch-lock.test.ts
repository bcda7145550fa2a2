/**
 * The lock that keeps one batch per journal and failed file: judged by whether its holder lives
 * (pid, host, start time), never by a clock. And the names around it: the failed file a replay
 * writes, the stop reasons' words, the input encodings named instead of read as broken CSV.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replayCommand, replayNames } from '../../src/batch/files.js';
import { wideEncoding } from '../../src/batch/lines.js';
import { FileLock } from '../../src/lock.js';
import { stopCause, unsentWords } from '../../src/batch/stop.js';
import { UsageError } from '../../src/errors.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-lock-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const guarded = () => path.join(dir, 'batch.journal');
const lockFile = () => path.join(dir, '.batch.journal.lock');
const plant = (holder: object) => fs.writeFileSync(lockFile(), JSON.stringify(holder));
/** The pid of a process that has exited. */
const deadPid = () => spawnSync('sh', ['-c', ':']).pid!; // a shell: a Node start costs 20 times more

describe('FileLock', () => {
  it('is taken, refused to a second taker while held, and gone once released', () => {
    const lock = FileLock.acquire(guarded(), 'the journal j', 'wait');
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid, host: os.hostname() });
    // This process holds it: a second acquire (a second run would be another pid) sees a live holder.
    plant({ pid: process.ppid, host: os.hostname(), since: 'then' });
    expect(() => FileLock.acquire(guarded(), 'the journal j', 'wait for it')).toThrow(UsageError);
    expect(() => FileLock.acquire(guarded(), 'the journal j', 'wait for it')).toThrow(
      new RegExp(`^the journal j is in use by another batch \\(pid ${process.ppid}, since then\\); nothing was sent$`),
    );
    lock.release(); // not ours any more: left alone
    expect(fs.existsSync(lockFile())).toBe(true);
    fs.rmSync(lockFile());
    const again = FileLock.acquire(guarded(), 'the journal j', 'wait');
    again.release();
    expect(fs.existsSync(lockFile())).toBe(false);
  });

  it('takes over a lock whose holder died (kill -9), whatever the clock says', () => {
    plant({ pid: deadPid(), host: os.hostname(), since: '2999-01-01T00:00:00Z' });
    const future = new Date(Date.now() + 3600_000);
    fs.utimesSync(lockFile(), future, future); // a lock "from the future" (a clock ahead): still judged by its pid
    const lock = FileLock.acquire(guarded(), 'the journal j', 'wait');
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it.runIf(fs.existsSync('/proc/self/stat'))('takes over a lock whose pid now belongs to another process (its start time differs)', () => {
    plant({ pid: process.ppid, host: os.hostname(), start: '1', since: 'then' });
    const lock = FileLock.acquire(guarded(), 'the journal j', 'wait');
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('counts a lock made on another host as held, and says how to clear it if that process is gone', () => {
    plant({ pid: deadPid(), host: 'elsewhere.example', since: 'then' });
    let error: UsageError | undefined;
    try {
      FileLock.acquire(guarded(), 'the journal j', 'wait for it');
    } catch (caught) {
      error = caught as UsageError;
    }
    expect(error?.message).toMatch(/in use by another batch \(pid \d+ on elsewhere\.example/);
    expect(error?.hint).toContain(`delete ${lockFile()}`);
  });

  it('treats a lock file that is not one of ours (garbage) as stale', () => {
    fs.writeFileSync(lockFile(), 'garbage');
    FileLock.acquire(guarded(), 'the journal j', 'wait').release();
  });

  /** Runs `body` with XDG_CACHE_HOME set to `cache`, where the locks by inode go (this user's own folder, not the machine's). */
  const withCache = (cache: string, body: () => void) => {
    const before = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cache;
    try {
      body();
    } finally {
      if (before === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = before;
    }
  };

  it('a relative XDG_CACHE_HOME puts the inode locks in the home folder, not under the folder the batch runs in (size27)', () => {
    const home = process.env.HOME;
    process.env.HOME = path.join(dir, 'home');
    try {
      withCache('relative-cache', () => {
        fs.writeFileSync(guarded(), '');
        const lock = FileLock.acquire(guarded(), 'the journal j', 'wait');
        const own = lock.paths.find((p) => p !== lockFile())!;
        expect(path.dirname(own)).toBe(path.join(dir, 'home', '.cache', 'trigger', 'locks'));
        lock.release();
      });
    } finally {
      process.env.HOME = home;
    }
  });

  it('a file that exists is locked by its device and inode too: a hard link to it is refused while it is held (trust24)', () => {
    withCache(path.join(dir, 'cache'), () => {
      fs.writeFileSync(guarded(), '');
      fs.linkSync(guarded(), path.join(dir, 'hard.journal'));
      const lock = FileLock.acquire(guarded(), 'the journal j', 'wait');
      const own = lock.paths.find((p) => p !== lockFile())!;
      // In this user's own folder, 0700: not the temporary folder, where another user could plant a link at its name (review24).
      expect(path.dirname(own)).toBe(path.join(dir, 'cache', 'trigger', 'locks'));
      expect(fs.statSync(path.dirname(own)).mode & 0o777).toBe(0o700);
      // Held by another live process (this one's parent), as a second run would find it.
      fs.writeFileSync(own, JSON.stringify({ pid: process.ppid, host: os.hostname(), since: 'then' }));
      expect(() => FileLock.acquire(path.join(dir, 'hard.journal'), 'the journal hard.journal', 'wait')).toThrow(
        /^the journal hard\.journal is in use by another batch \(pid \d+, since then\)/,
      );
      expect(fs.existsSync(path.join(dir, '.hard.journal.lock')), 'the name lock of the refused run is given up').toBe(false);
      fs.rmSync(own);
      lock.release();
    });
  });

  it("after kill -9, a resume through a hard link clears the killed run's lock by name too, not only its lock by inode (review24b F7)", () => {
    withCache(path.join(dir, 'cache'), () => {
      fs.writeFileSync(guarded(), '');
      const hard = path.join(dir, 'hard.journal');
      fs.linkSync(guarded(), hard);
      const killed = FileLock.acquire(guarded(), 'the journal j', 'wait');
      // As a run killed with -9 leaves them: both locks in place, naming a process that has ended.
      const left = `${JSON.stringify({ ...JSON.parse(fs.readFileSync(lockFile(), 'utf8')), pid: deadPid(), start: undefined })}\n`;
      for (const lock of killed.paths) fs.writeFileSync(lock, left);
      expect(killed.paths).toHaveLength(2);
      const resumed = FileLock.acquire(hard, 'the journal hard.journal', 'wait'); // its stale lock by inode taken over
      expect(fs.existsSync(lockFile())).toBe(false); // was: left behind, until a run by that name took it over
      resumed.release();
      expect(fs.readdirSync(path.join(dir, 'cache', 'trigger', 'locks'))).toEqual([]);
      expect(fs.readdirSync(dir).filter((f) => f.endsWith('.lock'))).toEqual([]);
    });
  });

  it("a link planted at the lock's temporary name (a shared folder) is not followed: the file it names is not written (review24)", () => {
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    fs.symlinkSync(victim, `${lockFile()}.${process.pid}.tmp`);
    FileLock.acquire(guarded(), 'the journal j', 'wait').release();
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n'); // was: the lock's JSON
  });

  it.each([
    ['cannot be made (a read-only home)', (cache: string) => fs.writeFileSync(cache, 'a file where the folder would be')],
    [
      "is not this user's alone (others may write in it)",
      (cache: string) => fs.mkdirSync(path.join(cache, 'trigger', 'locks'), { recursive: true, mode: 0o777 }),
    ],
  ])('a locks folder that %s leaves the name lock alone, as before', (_, make) => {
    const cache = path.join(dir, 'cache2');
    make(cache);
    if (fs.existsSync(path.join(cache, 'trigger'))) fs.chmodSync(path.join(cache, 'trigger', 'locks'), 0o777);
    withCache(cache, () => {
      fs.writeFileSync(guarded(), '');
      const lock = FileLock.acquire(guarded(), 'the journal j', 'wait');
      expect(lock.paths).toEqual([lockFile()]);
      lock.release();
    });
  });

  it('names the folder that cannot hold it (exit 2), not a stack', () => {
    expect(() => FileLock.acquire(path.join(dir, 'no', 'such', 'f.csv'), 'the failed file f.csv', 'x')).toThrow(
      /^cannot write the failed file f\.csv: its folder does not exist/,
    );
  });
});

describe('the replay names a new failed file', () => {
  it.each([
    ['failed.csv', 'failed-2.csv'],
    ['out/kept.ndjson', 'out/kept-2.ndjson'],
    ['trigger-failed-2026-11-22-190437.csv', 'trigger-failed-2026-11-22-190437-2.csv'],
    // A counter of the user's own (README's matrix writes failed-1.csv .. failed-4.csv): kept, never the next shard's name.
    ['failed-1.csv', 'failed-1-2.csv'],
  ])('%s → %s', (from, to) => {
    expect(replayNames(from).failed).toBe(to);
  });

  it.each([
    ['failed-2.csv', 'failed-3.csv'],
    ['trigger-failed-2026-11-22-190437-9.csv', 'trigger-failed-2026-11-22-190437-10.csv'],
  ])("a replay's own failed file (its journal beside it), %s → %s", (from, to) => {
    fs.writeFileSync(path.join(dir, from), '');
    fs.writeFileSync(path.join(dir, `${from}.journal`), '');
    expect(replayNames(path.join(dir, from)).failed).toBe(path.join(dir, to));
  });

  it('skips a name that is taken', () => {
    const taken = path.join(dir, 'f-2.csv');
    fs.writeFileSync(taken, '');
    expect(replayNames(path.join(dir, 'f.csv')).failed).toBe(path.join(dir, 'f-3.csv'));
    expect(replayCommand(path.join(dir, 'f.csv'), 'csv', undefined)).toBe(`trigger batch ${dir}/f.csv --failed ${dir}/f-3.csv`);
  });
});

describe('stop reasons are values; the words come from them', () => {
  it.each([
    [{ kind: 'signal', signal: 'SIGTERM' } as const, 'not sent: the batch was interrupted (SIGTERM)'],
    [
      { kind: 'breaker', failures: 16, answer: '401 Unauthorized' } as const,
      'not sent: the batch stopped after 16 failures in a row: 401 Unauthorized',
    ],
    [
      { kind: 'stdout', error: { code: 'ENOSPC' } } as const,
      'not sent: the batch stopped because standard output could not be written: no space left on the disk',
    ],
    [{ kind: 'stdout', error: { code: 'EPIPE' } } as const, 'not sent: the batch stopped because standard output was closed'],
    [
      { kind: 'journal', path: 'j', error: { code: 'ENOSPC' } } as const,
      'not sent: the batch stopped because the journal j could not be written (no space left on the disk)',
    ],
    [
      { kind: 'failed-file', path: 'f.csv', error: { code: 'EIO' } } as const,
      'not sent: the batch stopped because the failed file could not be written',
    ],
  ])('%o', (reason, words) => {
    expect(unsentWords(reason)).toBe(words);
  });

  it('says what stopped the batch, for the summary', () => {
    expect(stopCause({ kind: 'failed-file', path: 'f.csv', error: { code: 'ENOSPC' } })).toBe(
      'f.csv could not be written (no space left on the disk)',
    );
  });
});

describe('wide encodings are named', () => {
  it.each([
    [[0xff, 0xfe, 0x74, 0x00], 'UTF-16'],
    [[0xfe, 0xff, 0x00, 0x74], 'UTF-16'],
    [[0x74, 0x00, 0x72, 0x00], 'UTF-16'],
    [[0x00, 0x74, 0x00, 0x72], 'UTF-16'],
    [[0xff, 0xfe, 0x00, 0x00], 'UTF-32'],
    [[0x00, 0x00, 0xfe, 0xff], 'UTF-32'],
    [[0xef, 0xbb, 0xbf, 0x74], undefined],
    [[0x74, 0x2c, 0x75, 0x0a], undefined],
  ])('%j: %s', (bytes, name) => {
    expect(wideEncoding(Uint8Array.from(bytes))).toBe(name);
  });
});

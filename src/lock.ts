/**
 * One lock, for the settings file (withLock) and for a batch's journal and failed file (FileLock): a small file beside the one it guards
 * that names its holder by pid, host and the process's start time, judged by whether that process lives, never by a clock
 * (docs/settings-lock.md says why). It is written whole and hard-linked into place, so exactly one taker wins and nobody reads half of it.
 * The rules differ by caller, as options: the settings wait for a live holder (up to TRIGGER_LOCK_WAIT) and for a lock file that names
 * none; a batch refuses at once and takes such a file over as stale.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errnoWords } from './errno.js';
import { ConfigError, UsageError, type TriggerError } from './errors.js';
import { xdgDir } from './settings/paths.js';
import { tryOr } from './try-or.js';

/** A process as a lock records it. */
interface Holder {
  pid: number;
  host: string;
  start?: string | undefined; // Linux: the process's start time in clock ticks since boot, so a reused pid is not taken for it.
  pidns?: string | undefined; // Linux: the pid namespace, so a pid from another container is not judged here.
  since?: string;
  name?: string | undefined; // A batch's: the lock by its file's name, which its lock by inode names too (review24b F7).
}

/** Linux: a process's state and start time from /proc (undefined elsewhere, or when hidden). */
function procStat(pid: number): { state: string; start: string } | undefined {
  const stat = tryOr(() => fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  // Fields 3 (state) and 22 (starttime); the command name before them may hold spaces.
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields && { state: fields[0]!, start: fields[19]! };
}

let self: Holder | undefined;

function thisProcess(): Holder {
  if (self) return self;
  const pidns = tryOr(() => fs.readlinkSync('/proc/self/ns/pid')); // undefined: not Linux
  return (self = { pid: process.pid, host: os.hostname(), start: procStat(process.pid)?.start, pidns });
}

/** Where a holder runs, when not where this process does: "on <host>" or "in another container". */
function elsewhere(holder: Holder): string | undefined {
  const here = thisProcess();
  if (holder.host !== here.host) return `on ${holder.host}`;
  return holder.pidns !== undefined && here.pidns !== undefined && holder.pidns !== here.pidns ? 'in another container' : undefined;
}

/**
 * Whether a process on this machine is the one a lock names: it runs (a zombie has ended), and where the start time was recorded, it is the
 * same (else the pid was reused). What cannot be read proves nothing either way, so the holder is taken to live.
 */
function stillRuns(pid: number, recordedStart: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false; // EPERM: it runs, as another user
  }
  const now = procStat(pid);
  if (now === undefined) return true;
  return now.state !== 'Z' && (recordedStart === undefined || now.start === recordedStart);
}

/** What stands between a taker and the lock; `holder` when it is a process that runs (or may). */
type Blocked = { why: string; hint: string; holder?: Holder | undefined; lock?: string };

type Look = { state: 'free' } | { state: 'held'; blocked: Blocked } | { state: 'dead'; text: string; left: string; name?: unknown };

/** A caller's rules: whether a lock file that names no holder is waited for or taken over; its mode. */
type Rules = { unnamed: 'held' | 'stale'; mode: number };
/** The settings' lock sits beside config.json, 0600 as every file there; a batch's may be shared. */
const SETTINGS: Rules = { unnamed: 'held', mode: 0o600 };
const BATCH: Rules = { unnamed: 'stale', mode: 0o644 };

const MAX_LOCK_BYTES = 4096; // A lock file is small and regular: anything else (a folder, a link, a FIFO) is not read, only waited for.

const held = new Set<string>(); // The locks this process holds now: our own pid in any other is a process that ended (pids repeat).

const heldBy = (lock: string, why: string, hint = `remove it: rm ${lock}`): Look => ({ state: 'held', blocked: { why, hint } });

function look(lock: string, rules: Rules): Look {
  let text = '';
  try {
    const stat = fs.lstatSync(lock);
    if (stat.isDirectory()) return heldBy(lock, `its lock ${lock} is a folder, not a lock file`, `remove it: rm -r ${lock}`);
    if (!stat.isFile())
      return heldBy(lock, `its lock ${lock} is ${stat.isSymbolicLink() ? 'a link' : 'not a regular file'}, not a lock file`);
    if (stat.size <= MAX_LOCK_BYTES) text = fs.readFileSync(lock, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'free' };
    return heldBy(lock, `its lock ${lock} cannot be read (${errnoWords(error, 'reading')})`);
  }
  const holder = tryOr(() => JSON.parse(text) as Partial<Holder> | null); // not JSON: not a lock of ours, it names no holder
  if (!(typeof holder?.host === 'string' && Number.isSafeInteger(holder.pid) && holder.pid! > 0)) {
    const left = 'does not say which process holds it';
    if (rules.unnamed === 'stale') return { state: 'dead', text, left };
    return heldBy(lock, `its lock ${lock} ${left}`, `if no trigger command is running, remove it: rm ${lock}`);
  }
  const pid = holder.pid!;
  const where = elsewhere(holder as Holder);
  if (where !== undefined) {
    const hint = `if no trigger command is running there, remove it: rm ${lock}`;
    return { state: 'held', blocked: { why: `its lock ${lock} is held by process ${pid} ${where}`, hint, holder: holder as Holder } };
  }
  const alive = pid === process.pid ? held.has(lock) : stillRuns(pid, holder.start);
  if (!alive) return { state: 'dead', text, left: `was left by process ${pid}, which has ended`, name: holder.name };
  const hint = `wait for it to finish; if it is not a trigger command, remove the lock: rm ${lock}`;
  return { state: 'held', blocked: { why: `process ${pid} holds its lock ${lock}`, hint, holder: holder as Holder } };
}

/** Puts the lock in place whole; false when one is there already. Throws what the file system says. */
function create(lock: string, text: string, mode: number): boolean {
  // Made new, never through what is at its name: a link planted there in a shared folder was followed, its file overwritten (review24);
  // and at a name nobody can foresee: another user's file at `${lock}.${pid}.tmp` could not be removed and blocked the batch (review24b F6).
  const temp = `${lock}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    fs.writeFileSync(temp, text, { mode, flag: 'wx' });
    fs.linkSync(temp, lock);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  // A file system without hard links: an exclusive create, then the text.
  try {
    fs.writeFileSync(lock, text, { flag: 'wx', mode });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Removes a lock left by a process that ended, under a second lock, so that two takers that both found it stale cannot remove each other's
 * fresh lock: the one that gets in re-reads it and removes it only if it is still the stale one. Returns what is in the way, if anything.
 */
function removeStale(lock: string, dead: Extract<Look, { state: 'dead' }>, text: string, rules: Rules): Blocked | undefined {
  const breaker = `${lock}.break`;
  const cannot = (error: unknown) => ({
    why: `its lock ${lock} ${dead.left}, and cannot be removed (${errnoWords(error, 'writing')})`,
    hint: `remove it: rm ${lock}`,
  });
  try {
    if (!create(breaker, text, rules.mode)) {
      // A breaker whose process ended between two system calls: clear it so that a later look goes on.
      const other = look(breaker, rules);
      if (other.state === 'dead' && fs.readFileSync(breaker, 'utf8') === other.text) fs.unlinkSync(breaker);
      return { why: `its lock ${lock} ${dead.left}, and ${breaker} is in the way`, hint: `remove both: rm -r ${lock} ${breaker}` };
    }
  } catch (error) {
    return cannot(error);
  }
  try {
    if (fs.readFileSync(lock, 'utf8') === dead.text) fs.unlinkSync(lock); // else taken by someone else meanwhile
    // A lock by inode (in this user's own folder, so what it names is theirs) names its batch's lock by name, as stale: a resume through a
    // hard link after kill -9 left that one behind (review24b F7).
    if (typeof dead.name === 'string' && /^\d+-\d+\.lock$/.test(path.basename(lock))) removeStale(dead.name, dead, text, rules);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : cannot(error);
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

/**
 * Takes the lock, or says what stands in the way. A lock found free or stale (removed meanwhile) is tried again at once, a few times, so
 * that only a holder (or what cannot be judged) is waited for. What the file system refuses is thrown as `cannot` words it.
 */
function take(lock: string, text: string, rules: Rules, cannot: (error: unknown) => TriggerError): Blocked | undefined {
  for (let tries = 0; tries < 10; tries++) {
    try {
      if (create(lock, text, rules.mode)) {
        held.add(lock);
        return undefined;
      }
    } catch (error) {
      throw cannot(error);
    }
    const found = look(lock, rules); // says what it cannot read, never throws
    const blocked = found.state === 'held' ? found.blocked : found.state === 'dead' ? removeStale(lock, found, text, rules) : undefined;
    if (blocked) return blocked;
  }
  return { why: `its lock ${lock} was taken by others each time it was free`, hint: 'try again' };
}

/** Gives up a lock, only if it is still ours: never one that another process holds now. */
function release(lock: string, text: string): void {
  held.delete(lock);
  // Already gone, or cannot be removed: the next taker finds its holder gone.
  if (tryOr(() => fs.readFileSync(lock, 'utf8') === text)) tryOr(() => fs.unlinkSync(lock));
}

const lockText = (name?: string) => `${JSON.stringify({ ...thisProcess(), since: new Date().toISOString(), name })}\n`;

export const LOCK_WAIT_MS = 15_000; // How long a settings write waits for the lock by default.

export interface LockOptions {
  waitMs?: number | undefined; // How long to wait for a held lock before giving up (default LOCK_WAIT_MS).
  hint?: string; // What to do when the lock cannot be written beside the file (default: the settings folder's hint).
}

/** The wait a command's environment asks for: TRIGGER_LOCK_WAIT in seconds, else the default. */
export function lockWaitMs(env: NodeJS.ProcessEnv): number {
  const raw = env.TRIGGER_LOCK_WAIT;
  if (raw === undefined || raw === '') return LOCK_WAIT_MS;
  const seconds = Number(raw);
  const message = `TRIGGER_LOCK_WAIT=${JSON.stringify(raw)} is not a number of seconds`;
  if (!/^\s*\d+(\.\d+)?\s*$/.test(raw) || !Number.isFinite(seconds))
    throw new ConfigError(message, { hint: 'set it to e.g. 15, or unset it' });
  return seconds * 1000;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `fn` holding `${file}.lock` (waiting up to options.waitMs): concurrent commands each re-read the file inside, losing no values. */
export async function withLock<T>(file: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lock = `${file}.lock`;
  const waitMs = options.waitMs ?? LOCK_WAIT_MS;
  const text = lockText();
  const hint = options.hint ?? 'set TRIGGER_CONFIG_DIR to a folder you can write to';
  const cannot = (error: unknown) => new ConfigError(`cannot write ${file}: ${errnoWords(error, 'writing')}`, { hint });
  const started = performance.now();
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    const blocked = take(lock, text, SETTINGS, cannot);
    if (!blocked) break;
    const waited = performance.now() - started;
    if (waited >= waitMs)
      throw new ConfigError(`cannot write ${file}: ${blocked.why}; gave up after ${waitMs / 1000} s`, { hint: blocked.hint });
    // Every way round the loop pauses, longer each time, so that nothing it meets can make it spin.
    await sleep(Math.min(pause + Math.random() * pause, Math.max(1, waitMs - waited)));
  }
  try {
    return await fn();
  } finally {
    release(lock, text);
  }
}

/** The file a path names, through symbolic links (a dangling one too: where the file will be made), its folder's real path. */
export function throughLinks(file: string): string {
  let at = path.resolve(file);
  for (let hops = 0; hops < 40; hops++) {
    const link = fs.lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink() ? fs.readlinkSync(at) : undefined;
    if (link === undefined) break;
    at = path.resolve(fs.realpathSync(path.dirname(at)), link); // from the folder the link is really in, as the kernel reads it (review23)
  }
  return path.join(fs.realpathSync(path.dirname(at)), path.basename(at));
}

/** The lock of the file itself, by device and inode, which every name of it (a hard link) finds: in the temporary folder. */
const inodeLock = (file: string) => {
  const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  if (!stat) return undefined;
  // This user's own folder (0700), not the temporary one, where another user could plant a link at the lock's name (a batch then wrote
  // over the file it named), hold every batch off, or leave a lock nobody else may remove; nor did two TMPDIRs see each other (review24).
  const folder = path.join(xdgDir(process.env, 'XDG_CACHE_HOME', '.cache'), 'trigger', 'locks');
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const own = fs.lstatSync(folder);
  if (!own.isDirectory() || own.uid !== process.getuid?.() || (own.mode & 0o077) !== 0)
    throw new Error(`${folder} is not this user's alone`);
  return path.join(folder, `${stat.dev}-${stat.ino}.lock`);
};

/**
 * One batch at a time per journal and per failed file: two would both send every row, or lose rows. Two locks: the name's (beside the file
 * named, through links), and the file's own once it exists (inodeLock), so that a hard link to a held journal is refused too (audit23).
 */
export class FileLock {
  readonly paths: string[] = []; // the locks held

  private constructor(
    readonly file: string,
    readonly what: string, // the file for the messages ("the journal big.journal")
    private readonly text = lockText(FileLock.pathFor(file)), // the same in both locks, naming the name's
  ) {}

  static pathFor(file: string): string {
    const real = tryOr(() => throughLinks(file)) ?? file; // a folder that is not there: taking the lock says so
    return path.join(path.dirname(real), `.${path.basename(real)}.lock`);
  }

  /** The live holder of `file`'s lock, if a live process holds it. */
  static holder(file: string): Holder | undefined {
    const found = look(FileLock.pathFor(file), BATCH);
    return found.state === 'held' ? found.blocked.holder : undefined;
  }

  /** Takes those of the file's locks not held yet, or gives up all and says what stands in the way. What the file system refuses of the name's is thrown. */
  #take(): Blocked | undefined {
    const cannot = (lock: string) => (error: unknown) => {
      const hint = 'name a file in a folder you can write to';
      return new UsageError(`cannot write ${this.what}: ${errnoWords(error, 'writing')} (${lock})`, { hint });
    };
    for (const own of [false, true]) {
      let [lock, blocked]: [string | undefined, Blocked | undefined] = [undefined, undefined];
      try {
        lock = own ? inodeLock(this.file) : FileLock.pathFor(this.file);
        if (!lock || this.paths.includes(lock)) continue;
        blocked = take(lock, this.text, BATCH, cannot(lock));
      } catch (error) {
        if (own) continue; // no folder of this user's own (a read-only home): the name's lock alone, as before
        throw error;
      }
      if (blocked) this.release();
      if (blocked) return { ...blocked, lock };
      this.paths.push(lock);
    }
    return undefined;
  }

  /** Takes the locks on `file` if nothing stands in the way; undefined if something does. */
  static tryAcquire(file: string, what: string): FileLock | undefined {
    const lock = new FileLock(file, what);
    return lock.#take() ? undefined : lock;
  }

  /** Takes the locks on `file`, or throws a UsageError (exit 2) naming the live process that holds one. */
  static acquire(file: string, what: string, hint: string): FileLock {
    const lock = new FileLock(file, what);
    lock.cover(hint);
    return lock;
  }

  /** Takes the locks not held yet (the file's own, once this run made it), or throws as `acquire` does. */
  cover(hint: string): void {
    const taken = this.#take();
    if (taken === undefined) return;
    const other = taken.holder;
    if (other === undefined) throw new UsageError(`cannot lock ${this.what}: ${taken.why}`, { hint: taken.hint });
    const away = elsewhere(other);
    const gone = `if that process is gone, delete ${taken.lock} (a lock made on another host or container cannot be checked from here)`;
    const [where, fix] = away === undefined ? [`pid ${other.pid}`, hint] : [`pid ${other.pid} ${away}`, `${hint}; ${gone}`];
    throw new UsageError(`${this.what} is in use by another batch (${where}, since ${other.since}); nothing was sent`, { hint: fix });
  }

  /** Gives the locks up (only those still ours). */
  release(): void {
    for (const lock of this.paths) release(lock, this.text);
  }
}

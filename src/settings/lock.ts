/**
 * The lock that settings writes take: a file beside the config file that names the process holding
 * it. Whether a lock is stale is decided by asking whether that process still runs (its pid, on this
 * host, with the start time the kernel gives it), never by comparing a clock with the file's mtime:
 * a clock ahead of the file system (an NFS home, an NTP step) made every fresh lock look stale, and
 * concurrent writers then broke each other's locks and lost profiles.
 *
 * A lock whose holder cannot be judged (another host, a folder, an empty or foreign file, one that
 * cannot be removed) is waited for, with a sleep between looks, and after the wait the write fails
 * with a ConfigError naming the lock.
 */
import fs from 'node:fs';
import { errnoWords } from '../errno.js';
import { ConfigError } from '../errors.js';
import { elsewhere, stillRuns, thisProcess, type ProcessIdentity } from '../process-identity.js';

/** How long a writer waits for the lock by default. */
export const LOCK_WAIT_MS = 15_000;

export interface LockOptions {
  /** How long to wait for a held lock before giving up (default LOCK_WAIT_MS). */
  waitMs?: number | undefined;
}

type Owner = ProcessIdentity;

/** The wait a command's environment asks for: TRIGGER_LOCK_WAIT in seconds, else the default. */
export function lockWaitMs(env: NodeJS.ProcessEnv): number {
  const raw = env.TRIGGER_LOCK_WAIT;
  if (raw === undefined || raw === '') return LOCK_WAIT_MS;
  const seconds = Number(raw);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(raw) || !Number.isFinite(seconds)) {
    throw new ConfigError(`TRIGGER_LOCK_WAIT=${JSON.stringify(raw)} is not a number of seconds`, {
      hint: 'set it to e.g. 15, or unset it',
    });
  }
  return seconds * 1000;
}

/** What a look at the lock found. */
type Holder =
  | { state: 'free' }
  /** Held by a process that runs (or that cannot be checked from here): wait. */
  | { state: 'held'; text: string; why: string; hint: string }
  /** Left by a process that no longer runs: it may be removed. */
  | { state: 'dead'; text: string; pid: number };

/** A lock file is small and regular: anything else (a folder, a link, a FIFO) is not read, only waited for. */
const MAX_LOCK_BYTES = 4096;

/** A lock that cannot be read is waited for, as one whose holder cannot be judged. */
function unreadable(lock: string, error: unknown): Holder {
  return {
    state: 'held',
    text: '',
    why: `its lock ${lock} cannot be read (${errnoWords(error, 'reading')})`,
    hint: `remove it: rm ${lock}`,
  };
}

function look(lock: string): Holder {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(lock);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { state: 'free' } : unreadable(lock, error);
  }
  if (stat.isDirectory())
    return { state: 'held', text: '', why: `its lock ${lock} is a folder, not a lock file`, hint: `remove it: rm -r ${lock}` };
  if (!stat.isFile())
    return {
      state: 'held',
      text: '',
      why: `its lock ${lock} is ${stat.isSymbolicLink() ? 'a link' : 'not a regular file'}, not a lock file`,
      hint: `remove it: rm ${lock}`,
    };
  let text = '';
  try {
    if (stat.size <= MAX_LOCK_BYTES) text = fs.readFileSync(lock, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { state: 'free' } : unreadable(lock, error);
  }
  let owner: Partial<Owner> | undefined;
  try {
    owner = JSON.parse(text) as Partial<Owner>;
  } catch {
    owner = undefined;
  }
  if (
    typeof owner !== 'object' ||
    owner === null ||
    !(Number.isSafeInteger(owner.pid) && owner.pid! > 0) ||
    typeof owner.host !== 'string'
  ) {
    // Empty while its taker writes it, or not one of ours: only time can tell.
    return {
      state: 'held',
      text,
      why: `its lock ${lock} does not say which process holds it`,
      hint: `if no trigger command is running, remove it: rm ${lock}`,
    };
  }
  const pid = owner.pid!;
  const where = elsewhere({ host: owner.host, pidns: owner.pidns });
  if (where !== undefined) {
    return {
      state: 'held',
      text,
      why: `its lock ${lock} is held by process ${pid} ${where}`,
      hint: `if no trigger command is running there, remove it: rm ${lock}`,
    };
  }
  // Our own pid in a lock that no call of ours holds: a process that ended (pids repeat in containers).
  const alive = pid === process.pid ? held.has(lock) : stillRuns(pid, owner.start);
  if (!alive) return { state: 'dead', text, pid };
  return {
    state: 'held',
    text,
    why: `process ${pid} holds its lock ${lock}`,
    hint: `wait for it to finish; if it is not a trigger command, remove the lock: rm ${lock}`,
  };
}

/** Tries to create the lock with our name in it; false when it exists. */
function create(lock: string, owner: Owner): boolean {
  let fd: number;
  try {
    fd = fs.openSync(lock, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeSync(fd, JSON.stringify(owner));
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(lock, { force: true }); // an empty lock would stop every later write for the whole wait
    throw error;
  }
  fs.closeSync(fd);
  return true;
}

/** Why the lock is not ours yet, for the message when the wait is over. */
interface Blocked {
  why: string;
  hint: string;
}

/**
 * Removes a lock left by a process that ended, under a second lock, so that two writers that both
 * found it stale cannot remove each other's fresh lock: the one that gets in re-reads it and removes
 * it only if it is still the stale one. Returns what stands in the way, if something does.
 */
function removeStale(lock: string, stale: string, pid: number, owner: Owner): Blocked | undefined {
  const breaker = `${lock}.break`;
  let mine: boolean;
  try {
    mine = create(breaker, owner);
  } catch (error) {
    return {
      why: `its lock ${lock} was left by process ${pid}, which has ended, and cannot be removed (${errnoWords(error, 'writing')})`,
      hint: `remove it: rm ${lock}`,
    };
  }
  if (!mine) {
    const holder = look(breaker);
    // A breaker whose process ended between two system calls: clear it so that a later look goes on.
    if (holder.state === 'dead') {
      try {
        if (fs.readFileSync(breaker, 'utf8') === holder.text) fs.unlinkSync(breaker);
      } catch {
        // gone meanwhile, or cannot be removed: the wait decides
      }
    }
    return {
      why: `its lock ${lock} was left by process ${pid}, which has ended, and ${breaker} is in the way`,
      hint: `remove both: rm -r ${lock} ${breaker}`,
    };
  }
  try {
    let current: string;
    try {
      current = fs.readFileSync(lock, 'utf8');
    } catch {
      return undefined; // released meanwhile
    }
    if (current !== stale) return undefined; // taken by someone else meanwhile
    try {
      fs.unlinkSync(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        return {
          why: `its lock ${lock} was left by process ${pid}, which has ended, and cannot be removed (${errnoWords(error, 'writing')})`,
          hint: `remove it: rm ${lock}`,
        };
    }
    return undefined;
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

/** The locks this process holds now (another call in the same process waits for them). */
const held = new Set<string>();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn` holding the lock `${file}.lock`, so that concurrent commands never lose each other's
 * values (each re-reads the file inside the lock). Waits at most options.waitMs for a held lock.
 */
export async function withLock<T>(file: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lock = `${file}.lock`;
  const waitMs = options.waitMs ?? LOCK_WAIT_MS;
  const owner = thisProcess();
  const mine = JSON.stringify(owner);
  const started = performance.now();
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    try {
      if (create(lock, owner)) break;
    } catch (error) {
      throw new ConfigError(`cannot write ${file}: ${errnoWords(error, 'writing')}`, {
        hint: 'set TRIGGER_CONFIG_DIR to a folder you can write to',
      });
    }
    // Every way round the loop pauses, so that nothing it meets can make it spin.
    const holder = look(lock);
    let blocked: Blocked | undefined;
    if (holder.state === 'held') blocked = holder;
    else if (holder.state === 'dead') blocked = removeStale(lock, holder.text, holder.pid, owner);
    const waited = performance.now() - started;
    // A lock found free or stale is tried again even when the wait is over (a second more at most).
    if (waited >= waitMs && (blocked !== undefined || waited >= waitMs + 1000)) {
      const { why, hint } = blocked ?? { why: `its lock ${lock} was taken by others each time it was free`, hint: 'try again' };
      throw new ConfigError(`cannot write ${file}: ${why}; gave up after ${waitMs / 1000} s`, { hint });
    }
    // Released or removed meanwhile: try again after a moment; else wait longer each time.
    await sleep(blocked ? Math.min(pause + Math.random() * pause, Math.max(1, waitMs - waited)) : 1);
  }
  held.add(lock);
  try {
    return await fn();
  } finally {
    held.delete(lock);
    // Only our own lock: never one that another process holds now.
    try {
      if (fs.readFileSync(lock, 'utf8') === mine) fs.unlinkSync(lock);
    } catch {
      // already gone
    }
  }
}

/**
 * One batch at a time per journal and per failed file. Two runs on one journal both send every row
 * (a CI retry, a second terminal, a restarted pod while the first still runs); two on one failed file
 * rename over each other and one run's kept rows vanish.
 *
 * The lock is a small file beside the one it guards, naming its holder: pid, host and the process's
 * start time. It is judged by whether that process lives, never by a clock (a clock ahead of the file
 * system, an NFS home or an NTP step, made mtime-based locks steal live ones). A lock left by a
 * process that died (kill -9) is taken over; one held by a live process is refused, naming it. A lock
 * made on another host cannot be judged from here and counts as held.
 *
 * The lock is written whole to a temporary file and hard-linked into place: link() fails if the name
 * exists, so exactly one run wins, and nobody ever reads a half-written lock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { errnoWords } from '../errno.js';
import { UsageError } from '../errors.js';
import { elsewhere, stillRuns, thisProcess, type ProcessIdentity } from '../process-identity.js';

interface Holder extends ProcessIdentity {
  since: string;
}

/** Whether the holder may still use the file: one elsewhere cannot be judged from here, so it is held. */
function alive(holder: Holder): boolean {
  if (elsewhere(holder) !== undefined) return true;
  if (holder.pid === process.pid) return true;
  return stillRuns(holder.pid, holder.start);
}

function parse(text: string): Holder | undefined {
  try {
    const holder = JSON.parse(text) as Holder;
    return Number.isSafeInteger(holder.pid) && typeof holder.host === 'string' ? holder : undefined;
  } catch {
    return undefined;
  }
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The lock is held by a live process (exit 2, naming it). */
class HeldError extends UsageError {}

export class FileLock {
  readonly path: string;
  readonly #text: string;

  private constructor(lockPath: string, text: string) {
    this.path = lockPath;
    this.#text = text;
  }

  /** The lock file that guards `file`. */
  static pathFor(file: string): string {
    return path.join(path.dirname(file), `.${path.basename(file)}.lock`);
  }

  /** The live holder of `file`'s lock, if a live process holds it. */
  static holder(file: string): Holder | undefined {
    const text = readText(FileLock.pathFor(file));
    const holder = text === undefined ? undefined : parse(text);
    return holder && alive(holder) ? holder : undefined;
  }

  /** Takes the lock on `file` if no live process holds it; undefined if one does. */
  static tryAcquire(file: string, what: string): FileLock | undefined {
    try {
      return FileLock.acquire(file, what, '');
    } catch (error) {
      if (error instanceof HeldError) return undefined;
      throw error;
    }
  }

  /**
   * Takes the lock on `file` for this process, or throws a UsageError naming the live process that
   * holds it. `what` names the file for the message ("the journal big.journal").
   */
  static acquire(file: string, what: string, hint: string): FileLock {
    const lockPath = FileLock.pathFor(file);
    const holder: Holder = { ...thisProcess(), since: new Date().toISOString() };
    const text = `${JSON.stringify(holder)}\n`;
    const temp = `${lockPath}.${process.pid}.tmp`;
    try {
      for (let tries = 0; tries < 10; tries++) {
        if (FileLock.#create(lockPath, temp, text)) return new FileLock(lockPath, text);
        const found = readText(lockPath);
        if (found === undefined) continue; // released meanwhile: try again
        const other = parse(found);
        if (other && alive(other)) {
          const away = elsewhere(other);
          const where = away === undefined ? `pid ${other.pid}` : `pid ${other.pid} ${away}`;
          throw new HeldError(`${what} is in use by another batch (${where}, since ${other.since}); nothing was sent`, {
            hint:
              away === undefined
                ? hint
                : `${hint}; if that process is gone, delete ${lockPath} (a lock made on another host or container cannot be checked from here)`,
          });
        }
        FileLock.#takeOver(lockPath, found);
      }
    } catch (error) {
      if (error instanceof UsageError) throw error; // a HeldError
      throw new UsageError(`cannot write ${what}: ${errnoWords(error, 'writing')} (${lockPath})`, {
        hint: 'name a file in a folder you can write to',
      });
    } finally {
      fs.rmSync(temp, { force: true });
    }
    throw new UsageError(`cannot lock ${what}: other runs keep taking it (${lockPath})`, { hint });
  }

  /** Puts the lock in place whole; false when one is there already. */
  static #create(lockPath: string, temp: string, text: string): boolean {
    fs.writeFileSync(temp, text, { mode: 0o644 });
    try {
      fs.linkSync(temp, lockPath);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
    }
    // A file system without hard links: an exclusive create, then the text.
    let fd: number;
    try {
      fd = fs.openSync(lockPath, 'wx', 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    try {
      fs.writeSync(fd, text);
    } finally {
      fs.closeSync(fd);
    }
    return true;
  }

  /**
   * Removes a dead holder's lock. It is first renamed to a name of ours, so that two runs taking
   * over at once cannot each remove the other's fresh lock; if what was renamed is not the dead
   * lock (another run took over first), it is put back.
   */
  static #takeOver(lockPath: string, dead: string): void {
    const aside = `${lockPath}.${process.pid}.stale`;
    try {
      fs.renameSync(lockPath, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    if (readText(aside) !== dead) {
      try {
        fs.linkSync(aside, lockPath);
      } catch {
        // a third run holds it now; the one put aside is that run's to lose, which the pid check names
      }
    }
    fs.rmSync(aside, { force: true });
  }

  /** Gives the lock up (only if it is still ours). */
  release(): void {
    try {
      if (readText(this.path) === this.#text) fs.rmSync(this.path, { force: true });
    } catch {
      // a lock that cannot be removed is judged stale by the next run: its holder is gone
    }
  }
}

/**
 * Reading a catalog file as data from someone who may not be the user: with limits (a regular file of at most 16 MiB, never a FIFO that
 * hangs or /dev/zero that fills memory) and, for a catalog the parent-folder search found, only when no other user could have written it
 * (git's safe.directory is the model): it, and each link on the way to it, belongs to the user or to root, and no other user can write it
 * or replace it. A catalog named by --catalog or TRIGGER_CATALOG is trusted by name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { errnoWords } from '../errno.js';
import { ConfigError } from '../errors.js';
import { printable, shellQuote } from '../output/render.js';
import { writableByOwnerOnly } from '../startup.js';
import { tryOr } from '../try-or.js';
import type { CatalogSource } from './find.js';

const MAX_CATALOG_BYTES = 16 * 1024 * 1024; // The largest catalog read: far above any team's triggers, far below what a string can hold.

const MAX_LINKS = 40; // Links followed from the file found, as the kernel's own limit for a path (ELOOP).

export interface ReadCatalogOptions {
  source?: CatalogSource | undefined; // How the file was found; only a file the search found is checked for its owner. Default: found.
  env?: NodeJS.ProcessEnv | undefined; // GITHUB_ACTIONS and GITHUB_WORKSPACE, for the trust of a catalog in the workspace.
  write?: boolean | undefined; // Read to be changed: even one trusted by name is not written through another user's link (notOthersLink).
}

// Owners and modes (whose a file is, whether others can write it) judged as the code cache's records are (startup.ts: writableByOwnerOnly).

/** A user's login name from /etc/passwd, or undefined (no entry, or users from a directory service). */
function loginName(uid: number): string | undefined {
  // No passwd file: the number says it.
  for (const line of tryOr(() => fs.readFileSync('/etc/passwd', 'utf8').split('\n'), [])) {
    const fields = line.split(':');
    if (fields[2] === String(uid) && fields[0]) return printable(fields[0]);
  }
  return undefined;
}

/** A user by name and uid, for messages: "nobody (uid 65534)". */
function userName(uid: number): string {
  const name = loginName(uid);
  return name === undefined ? `uid ${uid}` : `${name} (uid ${uid})`;
}

const mode = (stat: fs.Stats) => (stat.mode & 0o7777).toString(8).padStart(4, '0');

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

const unusable = (file: string, problem: string, hint = 'name another with --catalog <file>, or pass --no-catalog') =>
  new ConfigError(`catalog ${printable(file)} cannot be used: ${problem}`, { hint });

function cannotRead(file: string, error: unknown): ConfigError {
  const message = `cannot read catalog ${printable(file)}: ${errnoWords(error, 'reading')}`;
  return new ConfigError(message, { hint: 'name another with --catalog <file> or TRIGGER_CATALOG, or pass --no-catalog' });
}

/** For a message about `hop`, on the way from the file `named`: which link it is, if it is one. */
const through = (named: string, hop: string) => (hop === path.resolve(named) ? '' : ` (through the link to ${printable(hop)})`);

/** A found catalog is trusted only if no user but you (and root) can write or replace a hop on its way (`hop`, in real folder `dir`). */
function checkHop(found: string, hop: string, stat: fs.Stats, dir: string, uid: number): void {
  const folder = fs.statSync(dir);
  const untrusted = (problem: string, fix: string) => {
    const message = `catalog ${printable(found)} is not trusted${through(found, hop)}: ${problem}, so whoever can change it decides which trigger id is sent`;
    return new ConfigError(message, { hint: `if you trust it, name it: --catalog ${printable(shellQuote(found))}; or ${fix}` });
  };
  // Not a catalog whoever owns it (a link to /dev/null): said so, never with a fix that would change a device (cli20).
  if (!stat.isSymbolicLink() && !stat.isFile()) throw unusable(found, `it is ${kindOf(stat)}, not a regular file`);
  if (stat.uid !== uid && stat.uid !== 0)
    throw untrusted(
      `${printable(hop)} belongs to ${userName(stat.uid)}, not to you (${userName(uid)})`,
      `make it yours: chown ${loginName(uid) ?? uid} ${printable(shellQuote(hop))}`,
    );
  if (!stat.isSymbolicLink() && !writableByOwnerOnly(stat))
    throw untrusted(`other users can write ${printable(hop)} (mode ${mode(stat)})`, `chmod go-w ${printable(shellQuote(hop))}`);
  if (folder.uid !== uid && folder.uid !== 0)
    throw untrusted(`its folder ${printable(dir)} belongs to ${userName(folder.uid)}, who can replace it`, 'move it to a folder of yours');
  const sticky = (folder.mode & 0o1000) !== 0;
  if (!writableByOwnerOnly(folder) && !(sticky && stat.uid === uid))
    throw untrusted(
      `other users can replace it: its folder ${printable(dir)} can be written by others (mode ${mode(folder)})`,
      `chmod go-w ${printable(shellQuote(dir))}`,
    );
}

function inside(file: string, dir: string): boolean {
  const relative = path.relative(dir, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * In GitHub Actions a catalog in the workspace is trusted, as actions/checkout trusts it for git: a `container:` job runs as root over a
 * checkout owned by the runner's user. Only when the file and everything it links to are in the workspace.
 */
function inWorkspace(file: string, env: NodeJS.ProcessEnv): boolean {
  const workspace = env.GITHUB_WORKSPACE;
  if (env.GITHUB_ACTIONS !== 'true' || !workspace) return false;
  return tryOr(
    () => inside(path.resolve(file), path.resolve(workspace)) && inside(fs.realpathSync(file), fs.realpathSync(workspace)),
    false,
  );
}

type Target = { real: string; stat?: fs.Stats | undefined };

/**
 * Follows `file` link by link (at most MAX_LINKS), calling `check` on each hop (the file and each link on the way) with its own stat and
 * its folder's real path; returns the file it leads to (its real path, what a write changes) and its identity, or no identity where nothing
 * is there and `missing` allows it. File-system errors (a hop's or its folder's) name `file`.
 */
function follow(file: string, check: (hop: string, stat: fs.Stats, dir: string) => void, missing = false): Target {
  let hop = path.resolve(file);
  try {
    for (let links = 0; links <= MAX_LINKS; links++) {
      const stat = fs.lstatSync(hop, { throwIfNoEntry: !missing });
      const dir = fs.realpathSync(path.dirname(hop));
      const real = path.join(dir, path.basename(hop));
      if (stat === undefined) return { real };
      check(hop, stat, dir);
      if (!stat.isSymbolicLink()) return { real, stat };
      hop = path.resolve(dir, fs.readlinkSync(hop));
    }
  } catch (error) {
    throw error instanceof ConfigError ? error : cannotRead(file, error); // What `check` found stands; a file-system error names the file.
  }
  throw cannotRead(file, Object.assign(new Error('too many links'), { code: 'ELOOP' }));
}

/** A catalog's file, links followed: for one the search found, each hop checked as above (in Actions, inside the workspace, trusted). */
export function catalogTarget(file: string, options: ReadCatalogOptions = {}): Target {
  const uid = process.getuid?.(); // Undefined where files have no owners to compare (Windows).
  if (uid !== undefined && (options.source ?? 'found') === 'found' && !inWorkspace(file, options.env ?? process.env))
    return follow(file, (hop, stat, dir) => checkHop(file, hop, stat, dir, uid));
  return follow(file, (hop, stat) => options.write && uid !== undefined && notOthersLink(file, hop, stat, uid), true);
}

/** Never written through a link another user owns, even trusted by name (in a shared folder, or planted since), wherever it leads. */
function notOthersLink(named: string, hop: string, stat: fs.Stats, uid: number): void {
  if (!stat.isSymbolicLink() || stat.uid === uid || stat.uid === 0) return;
  const message = `not changed: catalog ${printable(named)}${through(named, hop)}: ${printable(hop)} is a link that belongs to ${userName(stat.uid)}, and a change is never written through another user's link`;
  throw new ConfigError(message, { hint: 'name the file it leads to with --catalog, if that is the one to change' });
}

/** Whether two looks saw the same file unchanged: a reused inode (within milliseconds) has another change time, as has a chmod or chown. */
export const sameFile = (a: fs.Stats, b: fs.Stats): boolean =>
  a.dev === b.dev && a.ino === b.ino && a.ctimeMs === b.ctimeMs && a.uid === b.uid && a.mode === b.mode;

/**
 * Reads a catalog file within the limits, after the checks above. The file is opened without following a link (the links were followed and
 * checked), and without blocking (a FIFO), and what is read is the file that was checked: its identity from the open file must be the one
 * checked. Returns the text, the file read (`real`: every link followed, what a write changes) and its identity.
 */
export function readCatalogFile(file: string, options: ReadCatalogOptions = {}): { real: string; text: string; stat: fs.Stats } {
  const target = catalogTarget(file, options);
  let fd: number | undefined;
  try {
    fd = fs.openSync(target.real, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw unusable(file, `it is ${kindOf(stat)}, not a regular file`);
    // Replaced between the check and the open: not what was checked.
    if (target.stat && !sameFile(stat, target.stat)) throw unusable(file, 'it was replaced while it was checked; run the command again');
    if (stat.size > MAX_CATALOG_BYTES) throw unusable(file, `it is larger than 16 MiB (${stat.size} bytes)`);
    return { real: target.real, text: readAtMost(fd, file, stat.size), stat };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw unusable(file, 'it was replaced by a link while it was checked');
    throw cannotRead(file, error);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The file's bytes as text; refused when there are more than its size said (a file growing while read). */
function readAtMost(fd: number, file: string, size: number): string {
  const buffer = Buffer.allocUnsafe(size + 1);
  let length = 0;
  for (let read = 1; read > 0 && length < buffer.length; length += read)
    read = fs.readSync(fd, buffer, length, buffer.length - length, null);
  if (length > size) throw unusable(file, 'it grew while it was read; run the command again');
  return buffer.toString('utf8', 0, length);
}

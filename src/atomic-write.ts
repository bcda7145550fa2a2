/** Writing a file whole: a synced temporary file renamed over it, so a reader (or a crash) sees the old or the new file, never half. */
import fs from 'node:fs';
import path from 'node:path';
import { tryOr } from './try-or.js';

interface AtomicWriteOptions {
  mode?: number; // The mode of a new file; a file that exists keeps its own unless `forceMode`.
  forceMode?: boolean; // Set the mode even when the file exists (the config file holds a key: always 0600).
  follow?: boolean; // false: replace the path itself (a link there too), never the file a link names, so what was checked is replaced.
  beforeReplace?: () => void; // Called just before the rename; what it throws leaves the file as it was (the temporary file is removed).
}

/** Replaces `file` with `text`; a file-system error is thrown as it came, the temporary file removed (callers word it: errno.ts). */
export function writeFileAtomic(target: string, text: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  // Through a symbolic link to the file it names: renaming over the link would replace it with a copy (a new file: none to follow).
  const file = options.follow === false ? target : (tryOr(() => fs.realpathSync(target)) ?? target);
  const stat = options.forceMode ? undefined : fs.lstatSync(file, { throwIfNoEntry: false });
  const mode = stat && !stat.isSymbolicLink() ? stat.mode & 0o777 : (options.mode ?? 0o644);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(temp, 'wx', mode);
    fs.writeFileSync(fd, text);
    fs.fchmodSync(fd, mode); // the umask may have taken bits off
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    options.beforeReplace?.();
    fs.renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/** Makes a folder and those missing above it, 0700 (one there keeps its mode); not mkdirSync's `recursive`: it never returns in /proc. */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  for (let folder = path.resolve(dir); !fs.existsSync(folder) && path.dirname(folder) !== folder; folder = path.dirname(folder))
    missing.unshift(folder);
  for (const folder of missing) {
    try {
      fs.mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * The names a printed replay command uses: a new failed file and its own journal, run with --resume.
 * The journal makes the command safe to run again as it stands (a second paste, a CI retry of the
 * step, a run killed and started again): the first run creates it (--resume on a journal that does
 * not exist starts one), and every later run carries it on, so no row is sent twice.
 *
 * The pair is chosen by what is on disk, so that every run that prints a replay of the same failed
 * file, with the same content, prints the same pair: `failed.csv` gives `failed-2.csv` and
 * `failed-2.csv.journal`, the first pair that is either unused (neither file nor its lock there) or
 * whose journal was made for exactly this failed file (a replay of it that already ran, was killed,
 * or is running now). A pair in use for anything else is passed over.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { journalInput } from './journal.js';
import { FileLock } from '../lock.js';

export interface ReplayNames {
  failed: string;
  journal: string;
}

/** The journal a replay writing `failed` uses: beside it, named after it (never the same name). */
export const journalNameFor = (failed: string): string => `${failed}.journal`;

/** The failed file and journal for a replay of `file` (see above). */
export function replayNames(file: string): ReplayNames {
  const ext = path.extname(file);
  const stem = file.slice(0, file.length - ext.length);
  // A short counter is the one a replay added; six digits are the time of a default name.
  const counted = /^(.*)-(\d{1,3})$/.exec(stem);
  const base = counted ? counted[1]! : stem;
  let mine: { size: number; sha256: string } | undefined;
  const same = (journal: string): boolean => {
    const input = journalInput(journal);
    if (input?.path !== path.resolve(file)) return false;
    mine ??= contentOf(file);
    return mine !== undefined && input.size === mine.size && input.sha256 === mine.sha256;
  };
  for (let n = counted ? Number(counted[2]) + 1 : 2; ; n++) {
    const failed = `${base}-${n}${ext}`;
    const journal = journalNameFor(failed);
    if (fs.existsSync(journal)) {
      if (same(journal)) return { failed, journal };
      continue;
    }
    if (!fs.existsSync(failed) && !FileLock.holder(failed) && !FileLock.holder(journal)) return { failed, journal };
  }
}

/** The size and SHA-256 of a file, as the journal records its input; undefined if it cannot be read. */
function contentOf(file: string): { size: number; sha256: string } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    let size = 0;
    for (let n; (n = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0; size += n) hash.update(buffer.subarray(0, n));
    return { size, sha256: hash.digest('hex') };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

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
import fs from 'node:fs';
import path from 'node:path';
import { fingerprint, journalInput, type InputFingerprint } from './journal.js';
import { FileLock } from '../lock.js';

/** The failed file and journal for a replay of `file` (see above). */
export function replayNames(file: string): { failed: string; journal: string } {
  const ext = path.extname(file);
  const stem = file.slice(0, file.length - ext.length);
  // A short counter is the one a replay added; six digits are the time of a default name.
  const counted = /^(.*)-(\d{1,3})$/.exec(stem);
  const base = counted ? counted[1]! : stem;
  let mine: InputFingerprint | undefined;
  const same = (journal: string): boolean => {
    const input = journalInput(journal);
    if (input?.path !== path.resolve(file)) return false;
    try {
      mine ??= fingerprint(file);
    } catch {
      return false;
    }
    return input.size === mine.size && input.sha256 === mine.sha256;
  };
  for (let n = counted ? Number(counted[2]) + 1 : 2; ; n++) {
    const failed = `${base}-${n}${ext}`;
    const journal = `${failed}.journal`; // beside it, named after it (never the same name)
    if (fs.existsSync(journal)) {
      if (same(journal)) return { failed, journal };
      continue;
    }
    if (!fs.existsSync(failed) && !FileLock.holder(failed) && !FileLock.holder(journal)) return { failed, journal };
  }
}

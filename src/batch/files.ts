/**
 * The files around a batch: which paths may be used for what (the failed file and the journal are
 * never the input), the failed file opened for writing, and the commands that carry a batch on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { shellQuote } from '../output/render.js';
import { errnoWords } from '../errno.js';
import { FailedFile } from './failed.js';
import { compressionFromName, FORMAT_TABLE, formatFromName, type Format } from './formats.js';
import { isPart, type AfterLine, type Input } from './input.js';
import { fingerprint, Journal, journalInput, notRegular, type CatalogFingerprint, type InputFingerprint, type Service } from './journal.js';
import { FileLock } from '../lock.js';
import { tryOr } from '../try-or.js';
import type { Shard } from './shard.js';
import { columnsWords } from './rows.js';

/** The options that name files, and what the commands printed for the user must repeat. */
export interface BatchFiles {
  failed?: string | undefined;
  journal?: string | undefined;
  resume?: boolean | undefined;
  trigger?: string | undefined;
  shard?: Shard | undefined;
  format?: Format | undefined;
  columns?: string | undefined; // --columns triggerId=<name>,userId=<name>,value=<name>: the file's own column names.
  /** --after-line: the first file's rows up to this line are not read (what a stopped batch prints for the rows it left). */
  afterLine?: AfterLine | undefined;
  from?: string | undefined; // --from: the files before this one are not read (a stopped batch's rest of a folder)
  where?: string[] | undefined; // The flags saying where rows go (service, catalog), quoted: every printed command carries them (audit26b).
}

/**
 * A path the user gave, for a command run in `cwd`: as written when this process runs there (so that
 * messages and printed commands show it as typed), else resolved against `cwd`.
 */
export const inFolder = (cwd: string, file: string): string =>
  file === '-' || path.isAbsolute(file) || path.resolve(file) === path.resolve(cwd, file) ? file : path.resolve(cwd, file);

/** True when both name the same file (any path to it); `b` may be a descriptor, and "-" is stdin's. */
function sameFile(a: string, b: string | number): boolean {
  const other = b === '-' ? 0 : b;
  if (typeof other === 'string' && path.resolve(a) === path.resolve(other)) return true;
  return tryOr(() => {
    const sa = fs.statSync(a);
    const sb = typeof other === 'number' ? fs.fstatSync(other) : fs.statSync(other);
    return sa.ino === sb.ino && sa.dev === sb.dev;
  }, false);
}

/** A --failed or --journal path's file (undefined: none yet), or what is wrong with the path, in words (audit24: ENOTDIR, ELOOP were exit 70). */
function pathStat(flag: string, file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file, { throwIfNoEntry: false });
  } catch (error) {
    throw new UsageError(`cannot write ${flag} ${file}: ${errnoWords(error)}`, { hint: 'name a file in a folder that exists' });
  }
}

export function checkPaths(sources: readonly string[], options: BatchFiles & { json?: boolean | undefined }): void {
  const input = sources.includes('-') ? 'the file behind standard input' : 'an input file';
  const skip = options.from ? '--from starts at a named file, not at' : '--after-line skips lines of a named file, not of';
  if ((options.from || options.afterLine) && sources.includes('-'))
    throw new UsageError(`${skip} standard input`, { hint: 'name the file' });
  const folders = sources.filter((s) => s !== '-' && fs.statSync(s, { throwIfNoEntry: false })?.isDirectory());
  for (const [flag, file] of Object.entries({ '--failed': options.failed, '--journal': options.journal })) {
    // "-" would make a file named "-", and the replay command printed for it would read stdin.
    const example = flag === '--failed' ? 'failed.csv' : 'batch.journal';
    const hint = `name a file, e.g. ${flag} ${example}`;
    if (file === '-' || file === '') throw new UsageError(`${flag} needs a file name, not ${JSON.stringify(file)}`, { hint });
    if (file === undefined) continue;
    const stat = pathStat(flag, file);
    const inIt = `name a file in it, e.g. ${flag} ${path.join(file, example)}`;
    if (stat?.isDirectory()) throw new UsageError(`cannot write ${flag} ${file}: it is a folder`, { hint: inIt });
    if (flag === '--journal' && stat && !stat.isFile()) throw notRegular(file); // before its lock: none left in /dev (audit27)
    const folder = isPart(path.basename(file)) && folders.find((f) => path.resolve(f) === path.resolve(path.dirname(file)));
    const read = `${flag} ${file} is in the input folder ${folder}: a later run would read it as input`;
    if (folder) throw new UsageError(read, { hint: 'write it outside the folder' });
    if (sources.some((source) => sameFile(file, source)))
      throw new UsageError(`${flag} ${file} is ${input}; it would be overwritten`, { hint: `name another file for ${flag}` });
  }
  if (options.failed && options.json && sameFile(options.failed, 1)) {
    const hint = 'write the failed rows to a file: every row not accepted is also in the --json output, with "ok": false';
    throw new UsageError(`--failed ${options.failed} is standard output, where --json writes one result per row`, { hint });
  }
  // Renamed over, the regular file behind stdout or stderr (`--failed /dev/stdout >> job.log`) lost what it held, and the summary (audit26).
  const log = options.failed && [1, 2].find((fd) => sameFile(options.failed!, fd) && fs.fstatSync(fd).isFile());
  if (log) {
    const message = `--failed ${options.failed} is the file behind standard ${log === 1 ? 'output' : 'error'}: it would be replaced, and what it holds lost`;
    throw new UsageError(message, { hint: 'name a file of its own for the failed rows, e.g. --failed failed.csv' });
  }
  if (options.resume && !options.journal) throw new UsageError('--resume goes with --journal <file>: the journal says where to carry on');
  if (!options.journal) return;
  // A pipe named as a file is refused as input (input.ts); standard input cannot be read twice either.
  const hint = 'a resumed run reads the same rows again, and stdin or a pipe cannot be read twice: save it to a file first';
  if (sources.includes('-')) throw new UsageError('--journal needs the input as a regular file, or files and folders', { hint });
  if (options.failed && sameFile(options.journal, options.failed))
    throw new UsageError('--journal and --failed name the same file', { hint: 'give each its own file' });
}

/** Counts newlines in a file without holding it, for the progress total. */
export async function countLines(file: string): Promise<number> {
  let n = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) n++;
  }
  return n;
}

/**
 * The command that sends a failed file again (in the format it was written in). It names a new
 * failed file, so that the replay keeps its own rows apart from the ones it sends: a replay that
 * wrote nowhere, interrupted, would leave the rows it sent in the old file, to be sent again.
 */
export function replayCommand(
  file: string,
  format: Format,
  trigger: string | undefined,
  next: { failed: string; journal: string } = { failed: replayNames(file).failed, journal: '' },
  where: string[] = [],
): string {
  const written = FORMAT_TABLE[format].failedAs;
  const args = ['trigger', 'batch', shellQuote(file)];
  if (formatFromName(file) !== written) args.push('--format', written);
  // A failed file of a format whose rows name no trigger has the trigger written in each row.
  if (trigger && FORMAT_TABLE[format].namesTriggers) args.push('--trigger', shellQuote(trigger));
  args.push('--failed', shellQuote(next.failed));
  // Its own journal (see replayNames): the command can then be run again as it stands.
  if (next.journal) args.push('--journal', shellQuote(next.journal), '--resume');
  return [...args, ...where].join(' ');
}

/**
 * The names a printed replay command uses: a new failed file and its own journal, run with --resume. The journal makes the command safe to
 * run again as it stands (a second paste, a CI retry of the step, a run killed and started again): the first run creates it (--resume on a
 * journal that does not exist starts one), and every later run carries it on, so no row is sent twice.
 *
 * The pair is chosen by what is on disk, so that every run that prints a replay of the same failed file, with the same content, prints the
 * same pair: `failed.csv` gives `failed-2.csv` and `failed-2.csv.journal`, the first pair that is either unused (neither file nor its lock
 * there) or whose journal was made for exactly this failed file (a replay of it that already ran, was killed, or is running now). A pair in
 * use for anything else is passed over.
 */
export function replayNames(file: string): { failed: string; journal: string } {
  const ext = path.extname(file);
  const stem = file.slice(0, file.length - ext.length);
  // A short counter is a replay's if its journal is beside it; a user's own (failed-1.csv, shard 1's) stays: failed-1-2.csv, not 2's.
  const counted = fs.existsSync(`${file}.journal`) ? /^(.*)-(\d{1,3})$/.exec(stem) : null;
  const base = counted ? counted[1]! : stem;
  let mine: InputFingerprint | undefined;
  const same = (journal: string): boolean => {
    const input = journalInput(journal);
    if (input?.path !== path.resolve(file)) return false;
    mine ??= tryOr(() => fingerprint(file));
    return input.size === mine?.size && input.sha256 === mine.sha256;
  };
  for (let n = counted ? Number(counted[2]) + 1 : 2; ; n++) {
    const failed = `${base}-${n}${ext}`;
    const journal = `${failed}.journal`; // beside it, named after it (never the same name)
    const usable = fs.existsSync(journal) ? same(journal) : !fs.existsSync(failed) && !FileLock.holder(failed) && !FileLock.holder(journal);
    if (usable) return { failed, journal };
  }
}

export function resumeCommand(input: Input, options: BatchFiles): string {
  const args = ['trigger', 'batch', ...input.sources.map((s) => shellQuote(s)), '--journal', shellQuote(options.journal!), '--resume'];
  if (options.shard) args.push('--shard', `${options.shard.index}/${options.shard.count}`);
  if (options.failed) args.push('--failed', shellQuote(options.failed)); // the resumed run rewrites it whole
  const format = input.files.length === 1 && !input.normalized ? input.format : options.format;
  if (format && formatFromName(input.files[0]?.name ?? '') !== format) args.push('--format', format);
  if (options.columns) args.push('--columns', shellQuote(options.columns));
  if (options.trigger) args.push('--trigger', shellQuote(options.trigger));
  if (options.from) args.push('--from', shellQuote(options.from));
  if (options.afterLine) args.push('--after-line', afterWords(options.afterLine));
  return [...args, ...(options.where ?? [])].join(' ');
}

/**
 * The rows not read (a file's after `line`, then `later` files): the file read from that line on (--after-line; no copy, no sed,
 * nothing a shell without them cannot run), with its own journal (safe to run twice). A compressed file is tested whole first: one
 * damaged past the cut would bind that journal to the damaged bytes (sigaudit21), and the copy made whole again would be refused.
 */
const afterWords = ({ line, check }: AfterLine) => (check ? `${line}:${check}` : String(line));
export type RestOf = { file: string; line: number; later?: string[] | undefined; check?: string | undefined };
export function restCommand(input: Input, options: BatchFiles, { file, line, later = [], check }: RestOf, cwd: string): string | undefined {
  const found = input.files.find((f) => f.name === file);
  if (!found) return undefined;
  const { name: base, ext } = path.parse(compressionFromName(path.basename(file)).inner);
  // By folder (a/data.csv: a-data-rest; outside here by its whole path) and shard, so no two rests share a journal; ./-x-rest.
  const dir = path.relative(cwd, path.resolve(cwd, path.dirname(file)));
  const folder = dir.split(path.sep)[0] === '..' || path.isAbsolute(dir) ? path.resolve(cwd, dir) : dir;
  const shard = options.shard && `${options.shard.index}of${options.shard.count}`;
  const first = [...folder.split(/[\\/:]+/), base, shard, 'rest'].filter(Boolean).join('-').replace(/^-/, './-');
  // A journal there already is an earlier rest's (this run's own, a file damaged again): the next name, or its refusal would print
  // this same command again, a loop whose last rows were never sent (review24b).
  let name = first;
  for (let n = 2; fs.existsSync(path.resolve(cwd, `${name}.journal`)); n++) name = `${first}-${n}`;
  // Rows of several files, or read with --columns, are kept in CSV (input.ts: normalized); a plain list too.
  const own = !later.length && !options.columns && FORMAT_TABLE[found.format].failedAs === found.format;
  const failedExt = own && ext ? ext : FORMAT_TABLE[own ? found.format : 'csv'].extensions[0]!;
  // Later files: the sources from its own on, --from it (was: each part by name, from23); by name if one is here, where its journal goes.
  const onward = input.sources.slice(input.sources.findIndex((s) => s === file || path.join(s, path.basename(file)) === file));
  const sources = !later.length ? [file] : onward.some((s) => path.resolve(cwd, s) === path.resolve(cwd)) ? [file, ...later] : onward;
  const args = ['trigger', 'batch', ...sources.map((f) => shellQuote(f)), ...(sources[0] === file ? [] : ['--from', shellQuote(file)])];
  if (options.format) args.push('--format', options.format);
  if (line > (FORMAT_TABLE[found.format].kind === 'csv' ? 1 : 0)) args.push('--after-line', afterWords({ line, check }));
  args.push('--journal', shellQuote(`${name}.journal`), '--resume', '--failed', shellQuote(`${name}-failed${failedExt}`));
  if (options.shard) args.push('--shard', `${options.shard.index}/${options.shard.count}`);
  if (options.columns) args.push('--columns', shellQuote(options.columns));
  if (options.trigger) args.push('--trigger', shellQuote(options.trigger));
  return `${found.compression ? `${found.compression} -t ${shellQuote(file)} && ` : ''}${[...args, ...(options.where ?? [])].join(' ')}`;
}

/** The files a batch writes besides stdout, and the locks that keep other runs off them. */
export interface Written {
  failed: FailedFile | undefined;
  journal: Journal | undefined;
  locks: FileLock[];
}

/**
 * Locks and opens what the batch writes: the journal's lock first (a second run of the same batch is refused for what it shares with the
 * first), the failed file (without --failed, a file named by the time in `folder`, made only if there is something to keep; a dry run keeps
 * nothing: none, --failed's left as it was), then the journal, for this input, shard, catalog and service. A refusal on the way leaves nothing behind.
 */
export async function openWritten(
  input: Input,
  header: () => readonly string[] | undefined, // The input's header, for the failed file (known once the first row is read).
  options: BatchFiles & { dryRun?: boolean | undefined },
  by: { catalog: CatalogFingerprint | null; service: Service | undefined; stop: AbortSignal }, // checked by, sent to, a signal ends the read
  folder: string,
  fingerprints: (files: string[]) => Promise<InputFingerprint[]>, // each input file's, read without blocking (a stop signal is heard)
): Promise<Written> {
  const dryRun = options.dryRun === true;
  const written: Written = { failed: undefined, journal: undefined, locks: [] };
  let made = false; // whether this run made the journal
  const open = (file: string, lazy: boolean) => new FailedFile(file, input.format, header, { lazy, normalized: input.normalized });
  const hint =
    'wait for that batch to finish (or stop it), then run the command again: two runs on one journal would send the same rows twice';
  try {
    // A dry run reads a journal that is there, so it is refused as its run would be while a batch holds it (review25: rows in flight read as unknown).
    if (options.journal && (!dryRun || fs.existsSync(options.journal)))
      written.locks.push(FileLock.acquire(options.journal, `the journal ${options.journal}`, hint));
    const file = options.failed;
    if (file && !dryRun) {
      // A device or FIFO is written in place and not locked.
      if (fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? true) {
        const hint = 'name another --failed file, or wait for that batch to finish';
        written.locks.push(FileLock.acquire(file, `the failed file ${file}`, hint));
      }
      try {
        written.failed = open(file, false);
      } catch (error) {
        const message = `cannot write --failed ${file}: ${errnoWords(error)}`;
        throw new UsageError(message, { hint: 'name a file in a folder that exists and that you can write to' });
      }
    } else if (!dryRun) {
      written.failed = open(defaultFailedName(input.format, folder, written.locks), true);
    }
    if (options.journal && (!dryRun || fs.existsSync(options.journal))) {
      made = !fs.existsSync(options.journal);
      const from = options.from && path.resolve(options.from); // as a path from anywhere
      written.journal = await Journal.open(options.journal, {
        ...by,
        resume: options.resume === true,
        inputs: await fingerprints(input.files.map((f) => f.path)),
        format: input.format,
        shard: options.shard ? `${options.shard.index}/${options.shard.count}` : undefined,
        read: { columns: options.columns && columnsWords(options.columns), trigger: options.trigger, after: options.afterLine?.line, from },
        resumeCommand: resumeCommand(input, { ...options, failed: written.failed?.path ?? options.failed }),
        dryRun,
      });
      if (!dryRun) written.locks[0]!.cover(hint); // a journal made now has a lock of its own too, which a hard link to it finds
    }
  } catch (error) {
    written.failed?.close(false);
    written.journal?.close(false);
    if (made && written.journal) fs.rmSync(written.journal.path, { force: true }); // refused after it was made: none left behind (review24)
    for (const taken of written.locks) taken.release();
    throw error;
  }
  return written;
}

/** Puts the failed file in place (an earlier one kept when no row settled) and closes the journal, `complete`: every row accounted for. */
export function settleWritten({ failed, journal, locks }: Written, complete: boolean, noneSettled = false, rest?: string): void {
  try {
    // A journal that had accounted for every row, and a run that sent nothing: the failed file that
    // run left holds the same rows, so it stays as it was (rewritten, its rows could come out in
    // another order, and a replay of it already run would no longer match it: see replayNames).
    const unchanged = failed && journal?.completedWith === path.resolve(failed.path) && !journal.sentHere && fs.existsSync(failed.path);
    failed?.close(!unchanged && !noneSettled);
    journal?.close(complete, failed && !failed.inPlace ? failed.path : undefined, rest);
    // Made by a run refused before a row settled (a rest whose file changed): none left to refuse the next paste as another input.
    if (noneSettled && journal && !journal.resumed) fs.rmSync(journal.path, { force: true });
  } finally {
    for (const lock of locks) lock.release();
  }
}

/**
 * The name of the failed file a batch writes without --failed (made only when there is a row to keep): in `folder`, named by the time. Runs
 * started in the same second take the next free name (the lock is taken on the way, so two runs never pick the same one).
 */
function defaultFailedName(format: Format, folder: string, locks: FileLock[]): string {
  const ext = FORMAT_TABLE[FORMAT_TABLE[format].failedAs].extensions[0]!;
  const now = new Date();
  const two = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}-${two(now.getHours())}${two(now.getMinutes())}${two(now.getSeconds())}`;
  try {
    fs.accessSync(folder, fs.constants.W_OK);
  } catch (error) {
    // Refused before anything was sent (commands/batch.ts); made unwritable since, refused still: no lock could be taken for any name.
    throw new UsageError(`the current folder cannot be written (${errnoWords(error)}); nothing was sent`, { hint: 'pass --failed <file>' });
  }
  for (let n = 1; ; n++) {
    const name = path.join(folder, n === 1 ? `trigger-failed-${stamp}${ext}` : `trigger-failed-${stamp}-${n}${ext}`);
    if (fs.existsSync(name)) continue;
    const lock = FileLock.tryAcquire(name, `the failed file ${name}`);
    // Taken, and not made meanwhile by a run that finished: it is this run's.
    if (lock && !fs.existsSync(name)) {
      locks.push(lock);
      return name;
    }
    lock?.release();
  }
}

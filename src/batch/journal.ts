/**
 * The batch journal (--journal): what happened to each input line, so that a run that died (kill -9,
 * out of memory, a lost SSH session) can be carried on with --resume without sending anything twice.
 *
 * A text file: one JSON header line naming the input (path, size, SHA-256), then one record a line:
 *   s 12          line 12 is about to be sent (written to the kernel before the request goes out)
 *   a 12          line 12 was accepted
 *   f 12 "why"    line 12 failed and was kept in the failed file with this reason
 *   n 12          line 12 was not sent after all (a stop came while it waited to be retried)
 *   u 12 "why"    line 12 was sent and its outcome is unknown, for this reason (a 500, a time-out, cancelled in flight)
 *   done {...}    every row of the input was accounted for
 * A line with "s" and nothing after it was in flight when the process died: outcome unknown.
 *
 * Each "s" is written with writeSync before its request is handed to the connection, so it is in the
 * kernel before a byte goes out: a killed process loses no record. The file is fsync'ed at least once
 * a second: after a power cut, records of the last second may be lost (see the README).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type StopSignal, TriggerError, UsageError } from '../errors.js';
import { errnoWords } from '../errno.js';
import type { Format } from './formats.js';
import { formatCount, plural } from './report.js';
import { UNKNOWN_MARK } from './rows.js';
import { copyOpen } from './failed.js';
import { tryOr } from '../try-or.js';
import { shellQuote } from '../output/render.js';
import type { Outcome, OutcomeKind } from './runner.js';

const MAGIC = 'trigger batch journal';
const VERSION = 1;

export interface InputFingerprint {
  path: string;
  size: number;
  sha256: string;
}

/** Reads the whole input once, for the fingerprint a resumed run must match (and a replay recognises). */
export function fingerprint(file: string): InputFingerprint {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  const fd = fs.openSync(file, 'r');
  let size = 0;
  try {
    for (let n; (n = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0; size += n) hash.update(buffer.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return { path: path.resolve(file), size, sha256: hash.digest('hex') };
}

/** The same, a piece a turn: a stop signal is heard while a big export is read (`signal` ends it), and `onRead` is told each piece. */
export async function fingerprintOf(file: string, signal: AbortSignal, onRead: (bytes: number) => void): Promise<InputFingerprint> {
  // A small file at once (a stream each made a folder of 5,000 small parts 6x slower: review25), a signal heard between files.
  if ((fs.statSync(file, { throwIfNoEntry: false })?.size ?? Infinity) <= 1024 * 1024) {
    await new Promise((resolve) => setImmediate(resolve));
    signal.throwIfAborted();
    const small = fingerprint(file);
    return (onRead(small.size), small);
  }
  const [hash, stream] = [createHash('sha256'), fs.createReadStream(file, { highWaterMark: 1024 * 1024, signal })];
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    onRead(chunk.length);
  }
  return { path: path.resolve(file), size: stream.bytesRead, sha256: hash.digest('hex') };
}

const UNKNOWN_EARLIER = 'in flight when an earlier run of this batch ended: it may or may not have been recorded';

const NONE = 0;
const ACCEPTED = 1;
const FAILED = 2;
const UNKNOWN = 3;
/** The record letter of each way a sent row can end. */
const SETTLED: Partial<Record<OutcomeKind, string>> = { accepted: 'a', failed: 'f', unknown: 'u', unsent: 'n' };
/** The state each record letter sets (see above): a row about to be sent is of unknown outcome until its next record. */
const RECORDS: Record<string, number> = { s: UNKNOWN, a: ACCEPTED, f: FAILED, n: NONE, u: UNKNOWN };

interface Header {
  journal: string;
  version: number;
  input: InputFingerprint; // The first input file (every journal has it; one of a single file has nothing else).
  inputs?: InputFingerprint[] | undefined; // Every input file in order, when there are several.
  format: Format;
  shard?: string | undefined; // "i/n" with --shard.
  /** How rows were read: --columns (as names, JSON) and --trigger; absent in journals from before it (inputs20). */
  read?: { columns?: string | undefined; trigger?: string | undefined; after?: number | undefined; from?: string | undefined };
  /** The trigger catalog the rows were checked against (null: none); absent in journals from before catalogs. */
  catalog?: CatalogFingerprint | null;
  /** Where the rows go (absent before fix27a): the base URL, its and the key's source in words, the key's print (a hint's sed drops it). */
  service?: Omit<Service, 'key'> & { salt: string; key?: string };
  started: string;
}

/** This run's service (the key itself in memory only), for the journal's record; a dry run may have no base URL or key. */
export type Service = { url: string; urlFrom: string; key: string | undefined; keyFrom: string };
// 8 bytes of an HMAC-SHA256 under the journal's own random salt tell two keys apart and show none (docs/choices.md).
const keyPrint = (key: string, salt: string) => createHmac('sha256', String(salt)).update(key).digest('hex').slice(0, 16);

/** The catalog a batch ran with: its path and the SHA-256 of its content. */
export type CatalogFingerprint = Omit<InputFingerprint, 'size'>;

export const catalogFingerprint = (catalog: { path: string; text: string } | undefined): CatalogFingerprint | null =>
  catalog ? { path: catalog.path, sha256: createHash('sha256').update(catalog.text).digest('hex') } : null;

const parsed = <T>(text: string, otherwise: T): T => tryOr(() => JSON.parse(text) as T, otherwise);

/** The header line, if it is a journal's. */
function headerOf(line: string): Header | undefined {
  const header = parsed<Partial<Header> | null>(line, null);
  return header?.journal === MAGIC && typeof header.input?.sha256 === 'string' ? (header as Header) : undefined;
}

type Loaded = ReturnType<typeof begun>;

// --journal /dev/full read gigabytes into memory with SIGTERM unheard, a FIFO waited for a writer (audit27 #6).
export const notRegular = (file: string) =>
  new UsageError(`--journal ${file} is a device or a FIFO, not a regular file; nothing was sent`, {
    hint: 'name a file, e.g. --journal b.journal',
  });
// A stop signal before any row was sent, as the journal or the input for it was read: batch.ts says it in one line, no error: nor object.
export const readStopped = (signal: StopSignal, what: string) =>
  new TriggerError('interrupted', `interrupted (${signal}) while reading ${what}: nothing was sent; run the command again`, { signal });

/** What a journal whose first line is `first` records, once its records are read into it; refused unless it is a journal of this version. */
function begun(file: string, first: string) {
  const header = headerOf(first);
  const hint = 'name a new file for --journal, or the journal an earlier run of this batch wrote';
  if (!header) throw new UsageError(`${file} is not a trigger batch journal`, { hint });
  const message = `the journal ${file} was written by another version of trigger (journal version ${header.version})`;
  if (header.version !== VERSION) throw new UsageError(message, { hint: 'finish that batch with the trigger that started it' });
  return {
    header,
    states: new Uint8Array(1024), // one byte a line: a million lines cost a megabyte
    reasons: new Map<number, string>(),
    done: false,
    failed: undefined as string | undefined, // the failed file the last run that accounted for every row left (absolute), if it said
    rest: undefined as string | undefined, // the command it printed for the rows after a damaged file (then no --resume carries it on)
    whole: 0, // bytes up to the end of the last whole record (a record torn by a kill is cut off)
  };
}

/** One record (bytes `from` to `to`, see the top of this file) read into `loaded`: its line number from its digits, no string a record. */
function record(loaded: Loaded, bytes: Buffer, from: number, to: number): void {
  if (bytes[from] === 0x64 && bytes.toString('latin1', from, from + 4) === 'done') {
    loaded.done = true;
    const said = parsed<{ failed?: unknown; rest?: unknown } | null>(bytes.toString('utf8', from + 5, to), null);
    [loaded.failed, loaded.rest] = [said?.failed, said?.rest].map((s) => (typeof s === 'string' ? s : undefined));
    return;
  }
  let [line, at] = [0, from + 2];
  for (let digit; at < to && bytes[at] !== 0x20; at++) line = (digit = bytes[at]! - 0x30) >= 0 && digit <= 9 ? line * 10 + digit : NaN;
  const state = RECORDS[String.fromCharCode(bytes[from]!)];
  if (!Number.isSafeInteger(line) || line < 1 || state === undefined) return;
  if (line >= loaded.states.length) {
    const grown = new Uint8Array(Math.max(line + 1, loaded.states.length * 2));
    grown.set(loaded.states);
    loaded.states = grown;
  }
  loaded.states[line] = state;
  const why = at < to ? parsed<unknown>(bytes.toString('utf8', at + 1, to), undefined) : undefined;
  if (typeof why === 'string') loaded.reasons.set(line, why);
  else loaded.reasons.delete(line); // sent again (--retry-unknown) and then in flight: not the last run's reason
}

/** The whole lines in `bytes` (none before `held`) read into `into`, its header first; returns where the rest, a line not whole, begins. */
function lines(file: string, into: { loaded?: Loaded; skip?: boolean }, bytes: Buffer, held: number): number {
  let from = 0;
  for (let nl = bytes.indexOf(0x0a, held); nl >= 0; from = nl + 1, nl = bytes.indexOf(0x0a, from)) {
    if (into.loaded && !into.skip) record(into.loaded, bytes, from, nl);
    else into.loaded ??= begun(file, into.skip ? '' : bytes.toString('utf8', from, nl));
    into.skip = false;
  }
  return from;
}

// A MiB a turn, its records read as bytes: read whole into one string, a journal of 28 million rows passed what a string holds (exit 70),
// 10 million rows held 2.1 GB for 8 s, deaf to signals (audit27). A stop signal ends the read: nothing was sent, nothing made is left.
async function load(file: string, stop: AbortSignal | undefined): Promise<Loaded> {
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK); // a FIFO swapped in: refused, not waited on
  try {
    if (!(await handle.stat()).isFile()) throw notRegular(file);
    const into: { loaded?: Loaded; skip?: boolean } = {};
    let [buffer, base, held] = [Buffer.allocUnsafe(1024 * 1024), 0, 0];
    for (let n; (n = (await handle.read(buffer, held, buffer.length - held, base + held)).bytesRead) > 0;) {
      if (stop?.aborted) throw readStopped(stop.reason as StopSignal, `the journal ${file}`);
      const from = lines(file, into, buffer.subarray(0, held + n), held);
      [base, held] = [base + from, buffer.copy(buffer, 0, from, held + n)];
      if (into.loaded && from > 0) into.loaded.whole = base; // up to the end of the last whole record: a record torn by a kill is cut off
      if (held < buffer.length) continue;
      // A line as long as the buffer: the header of many files (64 MiB: 300,000 parts), held whole; longer, none of a journal's lines
      // (NUL bytes a crash left, say): passed over to its end.
      if (buffer.length < 64 * 1024 * 1024) buffer = Buffer.concat([buffer], buffer.length * 2);
      else [base, held, into.skip] = [base + held, 0, true];
    }
    return into.loaded ?? begun(file, '');
  } finally {
    await handle.close();
  }
}

/**
 * The input a journal was made for, read from its first line; undefined when `file` is not a journal
 * (or cannot be read). For the replay command, which reuses a journal only for its own input.
 */
export function journalInput(file: string): InputFingerprint | undefined {
  // The first line only, read until its newline (a replay's journal of millions of rows is tens of MB, a header of many files passes any
  // fixed size), of a regular file only: a FIFO's open waited for a writer, hanging the replay's naming (fix27d); /dev/zero has no newline.
  let fd: number | undefined;
  try {
    if (!fs.fstatSync((fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK))).isFile()) return undefined;
    const chunks: Buffer[] = [];
    for (let at = 0, read = -1, newline = -1; newline < 0 && read !== 0; at += read) {
      const chunk = Buffer.alloc(64 * 1024);
      read = fs.readSync(fd, chunk, 0, chunk.length, at);
      newline = chunk.subarray(0, read).indexOf(0x0a);
      chunks.push(chunk.subarray(0, newline < 0 ? read : newline));
    }
    return headerOf(Buffer.concat(chunks).toString('utf8'))?.input;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

const counted = (j: Loaded, state: number) => j.states.reduce((n, s) => (s === state ? n + 1 : n), 0); // a filter: 80 MB for 10 M rows

const describeLoaded = (j: Loaded) =>
  `${plural(counted(j, ACCEPTED), 'row')} accepted, ${formatCount(counted(j, FAILED))} failed, ${counted(j, UNKNOWN)} of unknown outcome`;

/** This run's input, format, shard and catalog, to match an earlier run's or to start a journal with. */
interface JournalOptions extends Pick<Header, 'format' | 'shard' | 'catalog' | 'read'> {
  service?: Service | undefined;
  resume: boolean;
  inputs: InputFingerprint[];
  resumeCommand: string; // The command that carries the batch on, for the messages.
  dryRun?: boolean; // Only read: nothing is written.
  stop?: AbortSignal | undefined; // Aborted by a stop signal, which ends the read of an earlier run's journal.
}

/** Throws unless this run may carry on the batch `loaded` records: with --resume, and the same input, shard, catalog and format. */
function refuseToCarryOn(file: string, loaded: Loaded, options: JournalOptions): void {
  const { header } = loaded;
  const was = header.inputs ?? [header.input];
  const what = was.length === 1 ? header.input.path : `${was.length} files from ${header.input.path} on`;
  if (!options.resume) {
    const batch = loaded.done ? `a completed batch of ${what}` : `a batch of ${what} that did not finish`;
    const next = loaded.rest
      ? `it stopped at a damaged file: once that file is whole again, send the rows after the damage with: ${loaded.rest}`
      : loaded.done
        ? `sending it again would double those events; to do so on purpose, delete ${file} first`
        : `carry it on with: ${options.resumeCommand}`;
    throw new UsageError(`the journal ${file} already records ${batch} (${describeLoaded(loaded)}); nothing was sent`, { hint: next });
  }
  // One way on after a damage stop: its rest command. The file found the same again (touched, synced), a resume sent the rows the rest
  // command then sent again (review27b F1).
  const rest = loaded.rest && `the journal ${file} stopped at a damaged file, and its rest command carries it on; nothing was sent`;
  if (rest) throw new UsageError(rest, { hint: `send the rows after the damage with: ${loaded.rest}` });
  const now = options.inputs;
  // Not "name a new --journal": followed for a failed file fixed by hand after its replay ran, it sent the rows accepted again (audit24).
  const again = `a new --journal would send again the ${plural(counted(loaded, ACCEPTED), 'row')} it records as accepted`;
  const kept =
    loaded.done && loaded.failed ? `fix the rows it did not accept in ${loaded.failed}, and send that file` : 'resume with that input';
  const hint = { hint: `${kept}; ${again}` }; // a journal with a rest command was refused above, whatever its input
  const counts = `${plural(was.length, 'file')} (${what}), and this run reads ${plural(now.length, 'file')}`;
  if (was.length !== now.length) throw new UsageError(`the journal ${file} was made for ${counts}; nothing was sent`, hint);
  const changed = was.findIndex((w, i) => w.sha256 !== now[i]!.sha256 || w.size !== now[i]!.size);
  if (changed >= 0) {
    const w = was[changed]!;
    const whose = was.length === 1 ? '' : ` (file ${changed + 1} of ${was.length})`;
    const message = `the journal ${file} was made for another input${whose} (${w.path}, ${plural(w.size, 'byte')}); ${now[changed]!.path} is not the same file content`;
    throw new UsageError(message, hint);
  }
  if ((header.shard ?? '') !== (options.shard ?? '')) {
    const shard = (s: string | undefined) => (s ? `shard ${s}` : 'the whole input');
    const message = `the journal ${file} is for ${shard(header.shard)}, not ${shard(options.shard)}`;
    throw new UsageError(message, { hint: header.shard ? `pass --shard ${header.shard}` : 'resume without --shard' });
  }
  // Read another way, the rest would go to other users or triggers (inputs20: --columns with userId and triggerId swapped).
  const how = (read: Header['read']) =>
    `${read?.columns ? `--columns ${read.columns}` : 'no --columns'}, ${read?.trigger ? `--trigger ${read.trigger}` : 'no --trigger'}` +
    (read?.from ? `, --from ${read.from}` : '') +
    (read?.after ? `, --after-line ${read.after}` : '');
  if (header.read && how(header.read) !== how(options.read)) {
    const message = `the journal ${file} was read with ${how(header.read)}, not ${how(options.read)}; nothing was sent`;
    throw new UsageError(message, { hint: 'resume with the same --columns, --trigger, --from and --after-line, or name a new --journal' });
  }
  const before = header.catalog;
  const catalog = options.catalog ?? null;
  if (before !== undefined && (before?.sha256 ?? null) !== (catalog?.sha256 ?? null)) {
    // Rows kept as invalid (or sent) under one catalog would be judged by another.
    const then = before ? `the catalog ${before.path}` : 'no catalog';
    const changed =
      before && catalog && before.path === catalog.path
        ? `${then}, which has changed since`
        : `${then}, not ${catalog ? `the catalog ${catalog.path}` : 'without one'}`;
    const next = before ? `restore that catalog to resume, or name a new --journal` : 'resume with --no-catalog, or name a new --journal';
    throw new UsageError(`the journal ${file} was made with ${changed}; nothing was sent`, { hint: next });
  }
  if (header.format !== options.format) {
    const message = `the journal ${file} read its input as ${header.format}, not ${options.format}`;
    throw new UsageError(message, { hint: `pass --format ${header.format}` });
  }
  refuseElsewhere(file, header.service, options.service);
}

/** Throws when this run sends elsewhere or under another key than the journal's: the rest would go to another service or account (review26b F2). */
function refuseElsewhere(file: string, made: Header['service'], here: Service | undefined): void {
  const moved = made && here && made.url !== here.url;
  const url = moved && `for the service at ${made.url} (from ${made.urlFrom}), not ${here.url} (from ${here.urlFrom})`;
  const key = made?.key && here?.key !== undefined && keyPrint(here.key, made.salt) !== made.key && `under another API key than this run's`;
  if (here && (url || key)) {
    // Not "name a new --journal" for a key: a rotated key is the same account, and a new journal sends every accepted row again.
    // Its real path: `sed -i` through a link replaces the link with a copy, the journal left as it was (review28: rows twice); never an option.
    const real = tryOr(() => fs.realpathSync(file), path.resolve(file));
    const hint = url
      ? `resume with the base URL it began with (${made?.urlFrom}); to send the whole batch to ${here.url} instead, name a new --journal`
      : `resume with the key it began with (from ${made?.keyFrom}); if that key was rotated, drop the old key's print (the base URL stays ` +
        `checked, ${real}.bak keeps the journal as it was) with: sed -i.bak '1s/,"key":"[0-9a-f]*"//' ${shellQuote(real)}`;
    const from = here.keyFrom === made?.keyFrom ? `${here.keyFrom}, which holds another key now` : here.keyFrom; // review27 F1
    throw new UsageError(`the journal ${file} was made ${url || `${key} (from ${from})`}; nothing was sent`, { hint });
  }
}

export class Journal {
  readonly path: string;
  readonly resumed: boolean; // True when this run carries on an earlier one.
  /**
   * When the journal already accounted for every row as this run opened it: the failed file that
   * run left (absolute). A run that then sends nothing leaves that file as it is (see batch.ts).
   */
  readonly completedWith: string | undefined;
  sentHere = false; // Whether this run has sent a row.
  error: Error | undefined; // Set when the journal cannot be written: nothing more may be sent.
  onError: ((error: Error) => void) | undefined; // Told once a record cannot be written: the batch must stop and say the journal is behind.
  readonly #earlier: Loaded | undefined; // What the earlier run recorded, when this one carries it on.
  #fd: number | undefined;
  #pending = ''; // Outcome records not yet written; they go out with the next "s" or within a second.
  #dirty = false;
  readonly #timer = setInterval(() => this.sync(), 1000).unref();

  private constructor(file: string, fd: number | undefined, earlier: Loaded | undefined) {
    this.path = file;
    this.#fd = fd;
    this.#earlier = earlier;
    this.resumed = earlier !== undefined;
    this.completedWith = earlier?.done ? earlier.failed : undefined;
  }

  /** Opens the journal, refusing one that exists without --resume and one made for another input. */
  static async open(file: string, options: JournalOptions): Promise<Journal> {
    const loaded = fs.existsSync(file) ? await load(file, options.stop) : undefined;
    if (loaded) refuseToCarryOn(file, loaded, options);
    try {
      if (options.dryRun) return new Journal(file, undefined, loaded); // writes nothing: a dry run counts what its resume would send (audit24)
      if (loaded) {
        fs.truncateSync(file, loaded.whole); // a record torn by the kill is cut off
        return new Journal(file, fs.openSync(file, 'a+'), loaded); // a+ and ax+: read back if its folder goes (close)
      }
      const [fd, salt] = [fs.openSync(file, 'ax+', 0o600), randomBytes(8).toString('hex')];
      const header: Header = {
        journal: MAGIC,
        version: VERSION,
        input: options.inputs[0]!,
        inputs: options.inputs.length > 1 ? options.inputs : undefined,
        format: options.format,
        shard: options.shard,
        read: options.read,
        catalog: options.catalog ?? null,
        service: options.service && { ...options.service, salt, key: keyPrint(options.service.key ?? '', salt) }, // the key's print only
        started: new Date().toISOString(),
      };
      fs.writeSync(fd, `${JSON.stringify(header)}\n`);
      fs.fsyncSync(fd);
      return new Journal(file, fd, undefined);
    } catch (error) {
      throw new UsageError(`cannot write the journal ${file}: ${errnoWords(error)}`, { hint: 'name a file in a folder you can write to' });
    }
  }

  /** The outcome an earlier run gave this line, if it gave one. */
  prior(line: number): Outcome | undefined {
    const state = this.#earlier?.states[line];
    if (state === ACCEPTED) return { kind: 'earlier' };
    if (state === FAILED) return { kind: 'failed', reason: this.#earlier?.reasons.get(line) ?? 'failed in an earlier run' };
    if (state === UNKNOWN) return { kind: 'unknown', reason: this.#earlier?.reasons.get(line) ?? UNKNOWN_EARLIER };
    return undefined;
  }

  /** Records a line about to be sent, with outcomes waiting; false when the journal cannot be written (onError told): not sent then. */
  starting(line: number): boolean {
    this.sentHere = true;
    this.#pending += `s ${line}\n`;
    this.#write();
    return this.error === undefined;
  }

  /** Records how a row sent in this run ended ("a", "f" or "u" with the reason, or "n"; see above). */
  settled(line: number, kind: OutcomeKind, reason?: string): void {
    const letter = SETTLED[kind];
    if (letter === undefined) return; // a kind no sent row ends with
    // An unknown row's cause (a 500 and its request id) outlives the run, without the mark the outcome adds back (audit26b #3).
    const why = kind === 'failed' ? reason : kind === 'unknown' ? reason?.replace(`${UNKNOWN_MARK}: `, '') : undefined;
    this.#later(`${letter} ${line}${why === undefined ? '' : ` ${JSON.stringify(why)}`}\n`);
  }

  /**
   * Outcomes go out with the next "s", or at the end of this turn of the event loop: one write for all that settled together, and never
   * more than a turn behind (a kill then leaves at most the requests in flight of unknown outcome).
   */
  #later(record: string): void {
    if (this.#pending === '') setImmediate(() => this.#write());
    this.#pending += record;
  }

  #write(): void {
    if (this.#fd === undefined || this.error || this.#pending === '') return;
    const bytes = Buffer.from(this.#pending);
    this.#pending = '';
    try {
      let done = 0;
      while (done < bytes.length) done += fs.writeSync(this.#fd, bytes, done);
      this.#dirty = true;
    } catch (error) {
      this.#failed(error as Error);
    }
  }

  #failed(error: Error): void {
    if (this.error) return;
    this.error = error;
    this.onError?.(error);
  }

  /** Writes waiting records and syncs them to disk (every second, and at the end). */
  sync(): void {
    this.#write();
    if (this.#fd === undefined || !this.#dirty) return;
    try {
      fs.fdatasyncSync(this.#fd);
      this.#dirty = false;
    } catch (error) {
      this.#failed(error as Error);
    }
  }

  /** Closes the journal; `complete` when every input row was accounted for, with the failed file it left and a damaged file's rest. */
  close(complete: boolean, failed?: string, rest?: string): void {
    clearInterval(this.#timer);
    this.onError = undefined;
    const said = { ...(failed === undefined ? {} : { failed: path.resolve(failed) }), ...(rest && { rest }) };
    if (complete) this.#pending += `done ${JSON.stringify({ at: new Date().toISOString(), ...said })}\n`;
    this.sync();
    // Its folder removed while the batch ran (a workspace cleaned up): made again from the open file, or a --resume sent every row again.
    const gone = this.#fd !== undefined && fs.fstatSync(this.#fd).nlink === 0; // review27b R2
    if (gone) tryOr(() => copyOpen(this.#fd!, this.path, 0o600));
    if (this.#fd !== undefined) fs.closeSync(this.#fd);
    this.#fd = undefined;
  }
}

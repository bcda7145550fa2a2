/**
 * The files around a batch: which paths may be used for what (the failed file and the journal are
 * never the input), the failed file opened for writing, and the commands that carry a batch on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { shellQuote } from '../output/render.js';
import { describeWriteError, FailedFile } from './failed.js';
import { formatFromName, type Format, type Input } from './input.js';
import { fingerprint, Journal, type CatalogFingerprint } from './journal.js';
import type { RowSource } from './rows.js';
import type { Shard } from './shard.js';

/** The options that name files, and what the commands printed for the user must repeat. */
export interface BatchFiles {
  failed?: string | undefined;
  journal?: string | undefined;
  resume?: boolean | undefined;
  trigger?: string | undefined;
  shard?: Shard | undefined;
}

/** True when both name the same file (any path to it), or `b` is the file behind stdin ("-"). */
export function sameFile(a: string, b: string): boolean {
  if (b !== '-' && path.resolve(a) === path.resolve(b)) return true;
  try {
    const sa = fs.statSync(a);
    const sb = b === '-' ? fs.fstatSync(0) : fs.statSync(b);
    return sa.ino === sb.ino && sa.dev === sb.dev;
  } catch {
    return false;
  }
}

export function checkPaths(source: string, options: BatchFiles): void {
  const input = source === '-' ? 'the file behind standard input' : 'the input file';
  if (options.failed && sameFile(options.failed, source)) {
    throw new UsageError(`--failed ${options.failed} is ${input}; it would be overwritten`, {
      hint: 'write the failed rows to another file',
    });
  }
  if (options.resume && !options.journal) throw new UsageError('--resume goes with --journal <file>: the journal says where to carry on');
  if (!options.journal) return;
  if (source === '-' || !fs.statSync(source, { throwIfNoEntry: false })?.isFile()) {
    throw new UsageError('--journal needs the input as a regular file', {
      hint: 'a resumed run reads the same rows again, and stdin or a pipe cannot be read twice: save it to a file first',
    });
  }
  if (sameFile(options.journal, source))
    throw new UsageError(`--journal ${options.journal} is the input file`, { hint: 'name a new file for the journal' });
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

/** The command that sends a failed file again (a lines input's failed file is CSV). */
export function replayCommand(file: string, format: Format, trigger: string | undefined): string {
  const written = format === 'lines' ? 'csv' : format;
  const args = ['trigger', 'batch', shellQuote(file)];
  if (formatFromName(file) !== written) args.push('--format', written);
  if (trigger && format !== 'lines') args.push('--trigger', shellQuote(trigger));
  return args.join(' ');
}

/** The command that carries a journaled batch on. */
export function resumeCommand(input: Input, options: BatchFiles): string {
  const args = ['trigger', 'batch', shellQuote(input.name), '--journal', shellQuote(options.journal!), '--resume'];
  if (options.shard) args.push('--shard', `${options.shard.index}/${options.shard.count}`);
  if (options.failed) args.push('--failed', shellQuote(options.failed));
  if (formatFromName(input.name) !== input.format) args.push('--format', input.format);
  if (options.trigger) args.push('--trigger', shellQuote(options.trigger));
  return args.join(' ');
}

export function openFailed(file: string, reader: RowSource): FailedFile {
  try {
    return new FailedFile(file, reader.format, reader.header);
  } catch (error) {
    throw new UsageError(`cannot write --failed ${file}: ${describeWriteError(error)}`, {
      hint: 'name a file in a folder that exists and that you can write to',
    });
  }
}

/** Opens the journal --journal names, for this input (read once for its fingerprint) and shard. */
export async function openJournal(input: Input, options: BatchFiles, catalog: CatalogFingerprint | null = null): Promise<Journal> {
  return Journal.open(options.journal!, {
    catalog,
    resume: options.resume === true,
    input: await fingerprint(input.file!),
    format: input.format,
    shard: options.shard ? `${options.shard.index}/${options.shard.count}` : undefined,
    resumeCommand: resumeCommand(input, options),
  });
}

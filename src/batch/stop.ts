/**
 * Why a batch stopped sending: a typed value, decided once where the stop happens (a signal, the
 * breaker, an unwritable stdout, failed file or journal) and carried by `stop.abort(reason)` to every
 * row it leaves unsent. The words are made from it here, at the edge, and nothing parses them back.
 */
import type { StopSignal } from '../errors.js';
import { errnoWords } from '../errno.js';
import { waitWords } from '../client/messages.js';

export type StopReason =
  | { kind: 'signal'; signal: StopSignal }
  /** A run of failures that every row would share (the service is down, the key is refused). */
  | { kind: 'breaker'; failures: number; answer: string }
  /** Standard output could not be written (a full disk, an I/O error, a reader that went away). */
  | { kind: 'stdout'; error: unknown }
  /** The failed file could not be written: rows can no longer be kept. */
  | { kind: 'failed-file'; path: string; error: unknown }
  /** The journal could not be written: outcomes can no longer be recorded for --resume. */
  | { kind: 'journal'; path: string; error: unknown }
  /** --concurrency auto: the service asked to wait longer than a batch waits (Retry-After over 60 s). */
  | { kind: 'retry-after'; seconds: number }
  /** --concurrency auto: the service pushed back every request for a while and accepted none. */
  | { kind: 'pushed-back'; seconds: number }
  /** A file's compressed data could not be read on (a .gz cut short): its rows after `line` are in no place. */
  | { kind: 'damaged'; file: string; line: number; why: string };

export const isStopReason = (value: unknown): value is StopReason =>
  typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';

/** What stopped the batch, by kind, as it follows "stopped because" (or "stopped after", for the breaker). */
const CAUSES: { [K in StopReason['kind']]: (reason: Extract<StopReason, { kind: K }>) => string } = {
  signal: (r) => `it was interrupted (${r.signal})`,
  breaker: (r) => `${r.failures} failures in a row: ${r.answer}`,
  stdout: (r) =>
    (r.error as NodeJS.ErrnoException)?.code === 'EPIPE'
      ? 'standard output was closed'
      : `standard output could not be written: ${errnoWords(r.error)}`,
  'failed-file': (r) => `${r.path} could not be written (${errnoWords(r.error)})`,
  journal: (r) => `the journal ${r.path} could not be written (${errnoWords(r.error)})`,
  'retry-after': (r) => `the service asked to wait ${waitWords(r.seconds * 1000)} (Retry-After), more than a batch waits`,
  'pushed-back': (r) => `the service pushed back every request for ${r.seconds} s and accepted none`,
  damaged: (r) => `${r.file} could not be read ${r.line ? `past line ${r.line}` : 'from its first line'} (${r.why})`,
};

export const stopCause = (reason: StopReason): string => (CAUSES[reason.kind] as (reason: StopReason) => string)(reason);

/** The reason an unsent row is given in the failed file and in its NDJSON line. */
export function unsentWords(reason: StopReason | undefined): string {
  if (!reason) return 'not sent: the batch stopped first';
  if (reason.kind === 'signal') return `not sent: the batch was interrupted (${reason.signal})`;
  if (reason.kind === 'failed-file') return 'not sent: the batch stopped because the failed file could not be written';
  return `not sent: the batch stopped ${reason.kind === 'breaker' ? 'after' : 'because'} ${stopCause(reason)}`;
}

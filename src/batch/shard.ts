/**
 * --shard <i>/<n>: n jobs given the same file each send the rows of their own shard, split by a stable hash of the user id (a user's events
 * stay together, in one job, in input order), so that between them every row is sent exactly once.
 */
import { UsageError } from '../errors.js';
import type { Row } from './rows.js';

export interface Shard {
  index: number; // 1-based.
  count: number;
}

export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const [index, count] = [Number(match?.[1]), Number(match?.[2])];
  const message = `--shard takes i/n with 1 <= i <= n <= 10000, e.g. 2/4; got "${text}"`;
  const hint = 'in a Kubernetes Indexed Job: --shard $((JOB_COMPLETION_INDEX + 1))/<completions>';
  if (!match || count < 1 || count > 10_000 || index < 1 || index > count) throw new UsageError(message, { hint });
  return { index, count };
}

/** FNV-1a (32 bits) over the UTF-8 bytes: the same shard on every machine and every Node version. */
export function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/**
 * Whether a row belongs to the shard; a row with no user id (unreadable) goes by its text, not its line number, which a
 * rest command's copy renumbers: by the line, such a row after a signal's cut was kept by both shards or by none (sigaudit21).
 */
export function inShard(row: Row, shard: Shard): boolean {
  const { record } = row;
  const key = row.userId ?? `\u0000${record.format === 'csv' ? (record.raw ?? record.fields.join(',')) : record.raw}`;
  return hash32(key) % shard.count === shard.index - 1;
}

export async function* shardRows(rows: AsyncIterable<Row[]>, shard: Shard): AsyncGenerator<Row[]> {
  for await (const chunk of rows) {
    const mine = chunk.filter((row) => inShard(row, shard));
    if (mine.length) yield mine;
  }
}

/** The pace's rota for a shard: its place among the others, on the wall clock (shards run on different machines). */
export const shardRota = (shard: Shard | undefined): { index: number; count: number; clock: () => number } | undefined =>
  shard && { index: shard.index - 1, count: shard.count, clock: Date.now };

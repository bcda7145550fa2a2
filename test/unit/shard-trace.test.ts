/**
 * --shard's split, its place on the pace's rota, and TRACEPARENT's check: pure functions, as tables.
 */
import { describe, expect, it } from 'vitest';
import { hash32, inShard, parseShard, shardRota } from '../../src/batch/shard.js';
import type { Row } from '../../src/batch/rows.js';
import { parseTraceparent } from '../../src/client/request.js';

const row = (line: number, userId: string | undefined): Row => ({
  line,
  record: { format: 'csv', fields: ['t', userId ?? ''] },
  triggerId: 't',
  userId,
  value: undefined,
});

describe('--shard', () => {
  it.each([
    ['1/1', { index: 1, count: 1 }],
    ['2/4', { index: 2, count: 4 }],
    [' 3 / 3 ', { index: 3, count: 3 }],
  ])('parses %j', (text, shard) => expect(parseShard(text)).toEqual(shard));

  it.each(['0/4', '5/4', '1/0', 'a/b', '2', '-1/4', '1/10001'])('refuses %j', (text) => {
    expect(() => parseShard(text)).toThrow(/--shard takes i\/n with 1 <= i <= n <= 10000/);
  });

  it('hashes the same on every machine (FNV-1a over UTF-8)', () => {
    expect([hash32(''), hash32('a'), hash32('foobar')]).toEqual([0x811c9dc5, 0xe40c292c, 0xbf9cf968]);
  });

  it('puts every row in exactly one of n shards, a user in one shard, spread about evenly', () => {
    const rows = Array.from({ length: 4000 }, (_, i) => row(i + 2, `user${i % 1000}`));
    rows.push(row(9999, undefined));
    const owners = rows.map((r) => [1, 2, 3, 4].filter((index) => inShard(r, { index, count: 4 })));
    expect(owners.every((o) => o.length === 1)).toBe(true);
    const byUser = new Map<string, Set<number>>();
    rows.forEach((r, i) => byUser.set(r.userId ?? '', (byUser.get(r.userId ?? '') ?? new Set()).add(owners[i]![0]!)));
    expect([...byUser.values()].every((s) => s.size === 1)).toBe(true);
    const sizes = [1, 2, 3, 4].map((s) => owners.filter((o) => o[0] === s).length);
    for (const size of sizes) expect(size).toBeGreaterThan(700);
  });

  it("gives the pace its place on the rota: 0-based, every one of n a turn of its own, on the wall clock (shards' machines differ)", () => {
    const places = [1, 2, 3, 4].map((index) => shardRota({ index, count: 4 })!);
    expect(places.map(({ index, count }) => `${index}/${count}`)).toEqual(['0/4', '1/4', '2/4', '3/4']);
    expect(places.every((place) => place.clock === Date.now)).toBe(true);
    expect(shardRota(undefined)).toBeUndefined();
  });
});

describe('TRACEPARENT', () => {
  const valid = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  it.each([
    [valid, valid],
    [` ${valid.toUpperCase()} `, valid],
    ['01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra', '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra'],
    ['ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', undefined],
    ['00-00000000000000000000000000000000-00f067aa0ba902b7-01', undefined],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', undefined],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra', undefined],
    ['00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01', undefined],
    ['not a trace', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('parseTraceparent(%j) is %j', (text, expected) => expect(parseTraceparent(text)).toBe(expected));
});

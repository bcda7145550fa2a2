/**
 * Cases of the spawned batch files that need no process, run in-process (main() with an explicit
 * environment) against a real node:http server on 127.0.0.1, with their assertions unchanged:
 * - --shard, from test/e2e/batch.test.ts: four jobs given one file, run one after another (each is a
 *   job of its own; what they send between them is the point, not that they run at once);
 * - a batch row whose id is not valid UTF-8, from test/e2e/batch-once.test.ts (fire's refusal of the
 *   bytes in argv stays there: only a process gets them from a shell).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { homeFile, type Sandbox } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { type TestServer, useServer } from '../helpers/server.js';
import { keptRows, userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const file = (name: string, text: string) => homeFile(box, name, text);
const batch = (args: string[]) => runInProcess(['batch', ...args], { env: box.env });

describe('trigger batch --shard', () => {
  it('four jobs given the same file send every row exactly once between them, a user in one job', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => `t,user${i % 97},${i}`).join('\n');
    const input = file('shared.csv', `triggerId,userId,value\n${rows}\nt,,1\n`);
    // One after another: runInProcess captures this process's stdout, which two runs at once would share.
    const runs = [];
    for (const i of [1, 2, 3, 4]) runs.push(await batch([input, '--shard', `${i}/4`, '--json']));
    const perShard = runs.map((r) =>
      r.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { line: number; userId: string | null }),
    );
    const lines = perShard
      .flat()
      .map((r) => r.line)
      .sort((a, b) => a - b);
    expect(lines).toEqual(Array.from({ length: 401 }, (_, i) => i + 2)); // every row, once (the invalid one too)
    expect(server.requests).toHaveLength(400);
    expect(new Set(server.requests.map((r) => r.body)).size).toBe(400);
    const shardOf = new Map<string, number>();
    perShard.forEach((results, shard) =>
      results.forEach((r) => r.userId && shardOf.set(r.userId, (shardOf.get(r.userId) ?? shard) === shard ? shard : -1)),
    );
    expect([...shardOf.values()].includes(-1)).toBe(false);
    expect(perShard.every((results) => results.length > 40)).toBe(true);
  });
});

describe('input that is not what it should be', () => {
  it('ids that are not valid UTF-8 are refused in batch (an invalid row), never sent as U+FFFD', async () => {
    const failed = path.join(box.home, 'failed.csv');
    const rows = await batch([file('in.csv', 'triggerId,userId\nt,ok\nt,a\uFFFDb\n'), '--failed', failed, '--concurrency', '4']);
    expect(rows.code).toBe(1);
    expect(server.requests.map((r) => userOf(r.url))).toEqual(['ok']);
    expect(keptRows(fs.readFileSync(failed, 'utf8'))[0]!.error).toContain('userId is not valid UTF-8 text');
  });
});

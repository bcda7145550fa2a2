/**
 * `trigger batch` as a user runs it: the built binary against a real node:http server on 127.0.0.1,
 * checking what the server received, the failed file, stdout, stderr and the exit code. What needs no
 * process (no pipe, signal, closed reader or several runs at once) runs in-process: test/in-process/batch.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { homeFile, paste, run, type Sandbox } from '../helpers/cli.js';
import { json, killAfter, type Received, type TestServer, useServer } from '../helpers/server.js';
import { holdAnswers } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const file = (name: string, text: string) => homeFile(box, name, text);
const read = (name: string) => fs.readFileSync(path.join(box.home, name), 'utf8');
const batch = (args: string[], input?: string, env: NodeJS.ProcessEnv = box.env) =>
  run(['batch', ...args], { env, input, timeoutMs: 60_000 });
const sent = (requests: Received[]) => requests.map((r) => `${r.url} ${r.body}`).sort();

describe('trigger batch: input', () => {
  it('stdin with --format lines', async () => {
    const result = await batch(['-', '--format', 'lines', '--trigger', 'welcome'], 'alice\nbob smith\n\n../x\n');
    expect(result.code).toBe(0);
    expect(sent(server.requests)).toEqual(
      [
        '/v1/triggers/welcome/users/alice/events {}',
        '/v1/triggers/welcome/users/bob%20smith/events {}',
        '/v1/triggers/welcome/users/..%2Fx/events {}',
      ].sort(),
    );
  });

  it('stdin without --format: NDJSON is recognised', async () => {
    const result = await batch(['-'], '{"triggerId":"t","userId":"a"}\n');
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  // Refusals that check only a message and an exit code run in-process: test/commands/batch-usage.test.ts.
  // The other input cases (CSV, NDJSON, replay, pacing, output) run in-process: test/in-process/batch.test.ts.
});

describe('trigger batch: interrupted', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s in the middle of 3,000 rows: exit %i, nothing sent twice, received + kept = all', async (signal, code) => {
    // 40 answers, then the rest held until the batch says it stopped sending: the signal surely lands
    // mid-batch, with no row answered slowly for it.
    const held = holdAnswers(server, 40);
    const rows = Array.from({ length: 3000 }, (_, i) => `t,u${i}`).join('\n');
    const input = file('slow.csv', `triggerId,userId\n${rows}\n`);
    const result = await run(['batch', input, '--failed', path.join(box.home, 'kept.csv')], {
      env: box.env,
      timeoutMs: 60_000,
      onSpawn: (child) => {
        killAfter(server, 40, signal)(child);
        child.stderr!.on('data', (d: Buffer) => String(d).includes('sending stopped') && held.release());
      },
    });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(code);
    const received = server.requests.map((r) => r.url);
    expect(new Set(received).size).toBe(received.length);
    const kept = read('kept.csv').trim().split('\n').slice(1);
    const keptUrls = kept.map((line) => `/v1/triggers/t/users/${line.split(',')[1]}/events`);
    expect(new Set(keptUrls).size).toBe(keptUrls.length);
    expect(keptUrls.filter((u) => received.includes(u))).toEqual([]);
    expect(kept.every((line) => line.includes(`not sent: the batch was interrupted (${signal})`))).toBe(true);
    expect(result.stderr).toContain(`interrupted (${signal}): sending stopped`);
    expect(result.stderr).toMatch(new RegExp(`⚠ interrupted \\(${signal}\\): [\\d,]+ accepted`));
    expect(result.stderr).toContain('send them later with: trigger batch');
    // After the signal the file is read for 250 ms at most: on a machine stalled past that (CI at a load of 10), the rows after
    // the line it stopped at are in no file, and the summary prints their own command. Followed, it sends each of them once.
    const rest = /were not read \(they are in no failed file\); send them with: (trigger batch .*)/.exec(result.stderr)?.[1];
    if (rest) expect((await paste(rest, box.env)).code).toBe(0);
    const all = server.requests.map((r) => r.url);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length + kept.length).toBe(3000);
  });

  it('a second SIGINT cancels the requests in flight and keeps them as outcome unknown', async () => {
    server.handle(() => undefined); // never answers
    const rows = Array.from({ length: 50 }, (_, i) => `t,u${i}`).join('\n');
    const input = file('hang.csv', `triggerId,userId\n${rows}\n`);
    const result = await run(['batch', input, '--failed', path.join(box.home, 'kept.csv'), '--concurrency', '4'], {
      env: box.env,
      timeoutMs: 30_000,
      onSpawn: killAfter(server, 4, 'SIGINT', 'SIGINT'),
    });
    expect(result.code).toBe(130);
    const kept = read('kept.csv').trim().split('\n').slice(1);
    expect(kept).toHaveLength(50);
    expect(kept.filter((l) => l.includes('outcome unknown: cancelled in flight'))).toHaveLength(4);
    expect(result.stderr).toContain('4 outcome unknown');
  });
});

describe('trigger batch: a reader that goes away', () => {
  it('--json into `head -1`: stops sending, keeps the rest, no crash', async () => {
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('../helpers/cli.js');
    server.handle(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 5));
      json(res, 200, { success: true });
    });
    const rows = Array.from({ length: 2000 }, (_, i) => `t,u${i}`).join('\n');
    const input = file('many.csv', `triggerId,userId\n${rows}\n`);
    const child = spawn(process.execPath, [BIN, 'batch', input, '--json', '--failed', path.join(box.home, 'kept.csv')], {
      env: box.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.once('data', () => child.stdout.destroy()); // like head -1
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).not.toContain('a bug in trigger');
    expect(stderr).toContain('standard output was closed');
    const kept = read('kept.csv').trim().split('\n').slice(1);
    expect(server.requests.length + kept.length).toBe(2000);
    expect(kept.length).toBeGreaterThan(1000);
  });
});

// --shard (four jobs given one file) runs in-process: test/in-process/spawns-batch.test.ts.

describe('trigger batch --shard', () => {
  it('four jobs given the same file send every row exactly once between them, a user in one job', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => `t,user${i % 97},${i}`).join('\n');
    const input = file('shared.csv', `triggerId,userId,value\n${rows}\nt,,1\n`);
    // Four processes at once in one folder, as the jobs of a CI matrix start.
    const runs = await Promise.all([1, 2, 3, 4].map((i) => batch([input, '--shard', `${i}/4`, '--json'])));
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

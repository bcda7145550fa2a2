/**
 * Backfills with the built binary, for what only a process shows: a multi-file journal killed with
 * SIGKILL and resumed, and compressed standard input told by its first bytes.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BIN, run, type Sandbox } from '../helpers/cli.js';
import { json, killAfter, type TestServer, useServer } from '../helpers/server.js';
import { answerSlowly } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const at = (name: string) => path.join(box.home, name);
const userOf = (url: string) => decodeURIComponent(url.split('/')[5] ?? '');

describe('a folder of part files, journaled, killed with SIGKILL, resumed', () => {
  it('every row reaches the server at most once, and all but those in flight at the kill exactly once', async () => {
    answerSlowly(server, 2);
    const folder = at('export');
    fs.mkdirSync(folder);
    const parts = 3;
    const perPart = 1500;
    for (let p = 0; p < parts; p++) {
      const rows = Array.from({ length: perPart }, (_, i) => `p${p}u${i},purchase,${i}.5`).join('\n');
      fs.writeFileSync(path.join(folder, `part-${p}.csv.gz`), zlib.gzipSync(`user_id,event_name,amount\n${rows}\n`));
    }
    fs.writeFileSync(path.join(folder, '_SUCCESS'), '');
    const args = ['batch', folder, '--columns', 'userId=user_id,triggerId=event_name,value=amount', '--concurrency', '8'];
    const journal = at('b.journal');
    const failed = at('failed.csv');
    // Killed inside the second part file.
    const killed = await run([...args, '--journal', journal, '--failed', failed], {
      env: box.env,
      timeoutMs: 60_000,
      onSpawn: killAfter(server, perPart + 300, 'SIGKILL'),
    });
    expect(killed.signal).toBe('SIGKILL');
    const first = server.requests.length;
    expect(first).toBeLessThan(parts * perPart);

    const resumed = await run([...args, '--journal', journal, '--resume', '--failed', failed], { env: box.env, timeoutMs: 60_000 });
    expect(resumed.code).toBe(1); // the rows in flight at the kill are of unknown outcome: kept, not sent again
    const users = server.requests.map((r) => userOf(r.url));
    expect(new Set(users).size).toBe(users.length); // nothing twice
    const kept = fs.readFileSync(failed, 'utf8').trim().split('\n').slice(1);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(16);
    expect(kept.every((line) => line.includes('outcome unknown'))).toBe(true);
    expect(kept.every((line) => line.includes(`${path.join(folder, 'part-')}`))).toBe(true); // the file column
    // Every row was received once or kept as unknown (and then received once, before the kill).
    const all = new Set(users);
    for (let p = 0; p < parts; p++) for (let i = 0; i < perPart; i += 97) expect(all.has(`p${p}u${i}`)).toBe(true);
    expect(all.size).toBe(parts * perPart - kept.filter((line) => !all.has(line.split(',')[1]!)).length);
    // The values kept their digits through gzip and --columns.
    expect(server.requests.find((r) => userOf(r.url) === 'p2u7')!.body).toBe('{"value":7.5}');
  }, 120_000);
});

describe('compressed standard input', () => {
  const pipe = (bytes: Buffer, args: string[]) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'batch', '-', ...args], { env: box.env, cwd: box.home });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('close', (code) => resolve({ code, stderr }));
      child.stdin.end(bytes);
    });

  it('gzip on stdin is told by its first bytes and read as rows', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const result = await pipe(zlib.gzipSync('triggerId,userId,value\nt,a,9007199254740993\nt,b,\n'), []);
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => `${userOf(r.url)} ${r.body}`).sort()).toEqual(['a {"value":9007199254740993}', 'b {}']);
  });

  it('Parquet on stdin: exit 2 saying to name the file, nothing sent', async () => {
    const result = await pipe(fs.readFileSync(path.join(BIN, '..', '..', 'test', 'fixtures', 'backfill', 'numbers.parquet')), []);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('standard input is a Parquet file');
    expect(server.requests).toHaveLength(0);
  });
});

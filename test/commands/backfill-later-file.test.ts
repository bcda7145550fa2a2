/**
 * A folder of part files where a later part is not what the first ones are: its header lacks a
 * column --columns names, or its gzip data is cut short. docs/batch.md: "Every file is looked at
 * before a row is sent"; the contract: exit 2 means nothing was sent, and every input row ends in
 * exactly one place whatever ends the run.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const userOf = (url: string) => decodeURIComponent(url.split('/')[5] ?? '');
const WAREHOUSE = 'userId=user_id,triggerId=event_name,value=amount';
const part = (header: string, rows: string[]) => zlib.gzipSync(`${header}\n${rows.join('\n')}\n`);

describe('a later part file', () => {
  it('whose header lacks a --columns column: exit 2 naming that file, nothing sent', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const folder = fs.mkdtempSync(path.join(sandbox.home, 'exp-'));
    fs.writeFileSync(path.join(folder, 'part-00000.csv.gz'), part('user_id,event_name,amount', ['a,purchase,1', 'b,purchase,2']));
    fs.writeFileSync(path.join(folder, 'part-00001.csv.gz'), part('user_id,event_name', ['c,purchase']));
    const result = await runCommand(['batch', folder, '--columns', WAREHOUSE, '--failed', path.join(sandbox.home, 'f.csv')], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('part-00001.csv.gz');
    // Was: a and b sent, then exit 2 with "the CSV header (line 1) has no amount column", no file named, no summary.
    expect(server.requests.map((r) => userOf(r.url))).toEqual([]);
  });

  it('cut short in file 2 of 3: the rows of file 3 are sent or kept, none in no place', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const folder = fs.mkdtempSync(path.join(sandbox.home, 'exp-'));
    const rows = (p: number) => Array.from({ length: 400 }, (_, i) => `p${p}u${i},purchase,${i}`);
    fs.writeFileSync(path.join(folder, 'part-00000.csv.gz'), part('user_id,event_name,amount', rows(0)));
    const whole = part('user_id,event_name,amount', rows(1));
    fs.writeFileSync(path.join(folder, 'part-00001.csv.gz'), whole.subarray(0, Math.floor(whole.length / 2)));
    fs.writeFileSync(path.join(folder, 'part-00002.csv.gz'), part('user_id,event_name,amount', rows(2)));
    const failed = path.join(sandbox.home, 'f.csv');
    const result = await runCommand(['batch', folder, '--columns', WAREHOUSE, '--failed', failed, '--concurrency', '2'], sandbox.env);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('part-00001.csv.gz');
    const sent = server.requests.map((r) => userOf(r.url)).filter((u) => u.startsWith('p2'));
    const kept = fs.existsSync(failed) ? (fs.readFileSync(failed, 'utf8').match(/p2u\d+/g) ?? []) : [];
    // Was: exit 2, no summary, the failed file a header only: the 400 rows of part-00002 in no place.
    expect(new Set([...sent, ...kept]).size).toBe(400);
  });
});

describe('damage found midway, with a journal', () => {
  it('prints the replay of the failed file, not --resume; a resume sends nothing again, and refuses the file copied whole', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const folder = fs.mkdtempSync(path.join(sandbox.home, 'exp-'));
    const rows = (p: number) => Array.from({ length: 400 }, (_, i) => `p${p}u${i},purchase,${i}`);
    const whole = part('user_id,event_name,amount', rows(1));
    fs.writeFileSync(path.join(folder, 'part-00000.csv.gz'), whole.subarray(0, Math.floor(whole.length / 2)));
    fs.writeFileSync(path.join(folder, 'part-00001.csv.gz'), part('user_id,event_name,amount', rows(2)));
    const [failed, journal] = [path.join(sandbox.home, 'f.csv'), path.join(sandbox.home, 'j')];
    const args = ['batch', folder, '--columns', WAREHOUSE, '--failed', failed, '--journal', journal];
    const first = await runCommand([...args, '--concurrency', '2'], sandbox.env);
    expect(first.code).toBe(2);
    expect(first.stdout).toContain(`kept in ${failed}; send them later with: trigger batch ${failed} --failed`);
    expect(first.stdout).not.toContain(`--journal ${journal} --resume`);
    const sent = server.requests.length;
    // The journal holds the kept rows as kept: a resume of the same input sends nothing they hold.
    const again = await runCommand([...args, '--resume'], sandbox.env);
    expect(again.code).toBe(2);
    expect(server.requests.length).toBe(sent);
    fs.writeFileSync(path.join(folder, 'part-00000.csv.gz'), whole);
    const changed = await runCommand([...args, '--resume'], sandbox.env);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('stopped at a damaged file, and its rest command carries it on; nothing was sent'); // review27b F1
    expect(changed.stderr).toContain('send the rows after the damage with: gzip -t');
    expect(server.requests.length).toBe(sent);
  });
});

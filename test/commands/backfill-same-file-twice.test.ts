/**
 * One file named twice on the command line: a folder and a glob that overlaps it, or one path given
 * two ways. The batch fingerprints every file for its journal, yet read this one twice and sent each
 * of its rows twice with no word. The contract's backfill: "Every input row ends in exactly one place".
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

describe('the same file named twice', () => {
  it.each([
    ['a folder and one of its parts', (folder: string) => [folder, path.join(folder, 'part-00000.csv.gz')]],
    ['one part by two paths', (folder: string) => [path.join(folder, 'part-00000.csv.gz'), path.join(folder, '.', 'part-00000.csv.gz')]],
  ])('%s: no row is sent twice', async (_what, sources) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const folder = fs.mkdtempSync(path.join(sandbox.home, 'exp-'));
    const rows = Array.from({ length: 20 }, (_, i) => `t,u${i}`).join('\n');
    fs.writeFileSync(path.join(folder, 'part-00000.csv.gz'), zlib.gzipSync(`triggerId,userId\n${rows}\n`));
    await runCommand(['batch', ...sources(folder), '--failed', path.join(sandbox.home, 'f.csv')], sandbox.env);
    const users = server.requests.map((r) => userOf(r.url));
    // Was: 40 requests, each of the 20 users twice, exit 0.
    expect(users.length).toBe(new Set(users).size);
  });
});

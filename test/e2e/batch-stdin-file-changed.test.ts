/**
 * A file behind standard input (`trigger batch - < export.csv`) written while it is read (review27b F3): cut short, its torn last line
 * was sent as a user and the run said ✔, exit 0. It is read as a named file is: up to its size when the batch began, from the offset
 * the shell handed it over at, each piece checked to be of that file still; a change stops the batch as damage (exit 2, the rows read
 * and not sent kept).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchOnFd0, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';
import { keptRows, printedCommand, userOf } from '../helpers/batch.js';
import { runBuilt } from '../helpers/built-in-process.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const ids = Array.from({ length: 3000 }, (_, i) => `u${i}-${'x'.repeat(1000)}`); // 3 MB: the reader is mid-file at the first request

/** The batch with `file` as its fd 0, opened here; `skip` bytes of it read first (as `{ head -n1; trigger batch -; } < file` does). */
async function batchFromStdin(file: string, args: string[], skip = 0) {
  const fd = fs.openSync(file, 'r');
  if (skip) fs.readSync(fd, Buffer.alloc(skip), 0, skip, null); // moves the offset the child inherits
  return batchOnFd0(fd, args, box);
}

describe('a file behind standard input written while it is read', () => {
  it('cut short: its torn line is not sent, the batch stops as on damage, and the rows read are sent or kept once', async () => {
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, `triggerId,userId\n${ids.map((u) => `t,${u}\n`).join('')}`);
    const cut = Math.floor(fs.statSync(file).size / 2); // inside a row's x's
    server.handle((_req, res, index) => {
      if (index === 0) fs.truncateSync(file, cut);
      json(res, 200, { success: true });
    });
    const failed = path.join(box.home, 'failed.csv');
    const result = await batchFromStdin(file, ['--failed', failed]);
    const listed = new Set(ids);
    // Before the fix: "u1499-xxx…" torn to a part of its 1,006 characters was sent, and the run ended "✔ 1,500 accepted", exit 0.
    const torn = server.requests.map((r) => userOf(r.url)).filter((user) => !listed.has(user));
    expect(torn.map((user) => `${user.slice(0, 12)}… (${user.length} characters)`)).toEqual([]);
    expect(result.stdout).not.toMatch(/^✔/);
    expect(result.stdout).toMatch(/standard input could not be read past line (\d+) \(the file behind it changed while it was read/);
    expect(result.code).toBe(2);
    const line = Number(/standard input is damaged after line (\d+)/.exec(result.stdout)?.[1]);
    // Its name is not known, so no rest is printed (docs/choices.md); the rows read and not sent are kept, and their replay sends each once.
    const replay = printedCommand(result.stdout); // none when every row read had been sent
    if (replay) expect((await runBuilt(replay, { env: box.env, cwd: box.home })).code).toBe(0);
    const sent = server.requests.map((r) => userOf(r.url));
    expect(new Set(sent).size).toBe(sent.length); // none twice
    expect(sent.length).toBe(line - 1); // the rows up to the line it stopped after, each sent: none lost
    expect(sent.every((user) => listed.has(user) && Number(/^u(\d+)-/.exec(user)![1]) < line - 1)).toBe(true);
    expect(keptRows(fs.readFileSync(failed, 'utf8')).every((row) => sent.includes(row.user))).toBe(true);
  });

  it('handed over partway and written on after: read from its offset up to its size when the batch began', async () => {
    const file = path.join(box.home, 'events.csv');
    const skipped = 'this line was read by another command first\n';
    fs.writeFileSync(file, `${skipped}triggerId,userId\n${ids.map((u) => `t,${u}\n`).join('')}`);
    server.handle((_req, res, index) => {
      if (index === 0) fs.appendFileSync(file, 't,late\n'); // a row the listing did not hold, as for a named file
      json(res, 200, { success: true });
    });
    const result = await batchFromStdin(file, ['--failed', path.join(box.home, 'failed.csv')], Buffer.byteLength(skipped));
    expect(result.code).toBe(0);
    // Before the fix: "late" was sent too (Node's stream read on to the end it found).
    const sent = server.requests.map((r) => userOf(r.url));
    expect(sent.filter((user) => !ids.includes(user))).toEqual([]);
    expect(new Set(sent).size).toBe(ids.length);
    expect(sent).toHaveLength(ids.length);
  });
});

/**
 * A damaged file's "stopping" line (review24b F2). It said "rows not yet sent are kept in <failed file>" as the damage was found, and
 * that file was then never made: a rest run on a copy damaged before its --after-line is refused ("has changed") and keeps nothing, and
 * a Parquet file damaged in its first page has no row to keep. The summary says which rows were kept and where; the line names no file.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { damagedAt, uidParquet } from '../helpers/parquet.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

/** Every file the output says rows are kept in, and whether it exists once the run is over. */
const keptIn = (text: string) => [...text.matchAll(/kept in (\S+?)(?:[;,)]|\s|$)/g)].map((m) => [m[1], fs.existsSync(m[1]!)]);

it('a rest run on a copy cut short before its --after-line names no failed file it never makes', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'g.csv.gz');
  const whole = zlib.gzipSync(`triggerId,userId\n${Array.from({ length: 20_000 }, (_, i) => `t,u${i}`).join('\n')}\n`);
  fs.writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 4))); // damaged again, well before line 15000
  const failed = path.join(sandbox.home, 'g-rest-failed.csv');
  const args = ['batch', file, '--after-line', '15000:0badc0de', '--journal', path.join(sandbox.home, 'g-rest.journal')];
  const result = await runCommand([...args, '--resume', '--failed', failed], sandbox.env);
  expect({ code: result.code, sent: server.requests.length, failed: fs.existsSync(failed) }).toEqual({ code: 2, sent: 0, failed: false });
  expect(result.stderr).toContain('could not be read past line');
  expect(keptIn(result.stdout + result.stderr)).toEqual([]); // was: [[g-rest-failed.csv, false]]
  // Said as what it is (was: "has changed since the batch stopped", which sends the user looking for another export).
  expect(result.stderr).toMatch(/could not be read past line \d+ \(.+\), before line 15000 where the batch stopped; nothing was sent/);
  expect(result.stderr).not.toContain('has changed');
});

it('a Parquet file damaged in its first page names no failed file it never makes', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'p.parquet');
  fs.writeFileSync(file, damagedAt(uidParquet(file, 2000, 500), 0.01));
  const result = await runCommand(['batch', file, '--trigger', 'p', '--columns', 'userId=uid'], sandbox.env, sandbox.home);
  expect(server.requests).toHaveLength(0);
  expect(result.stderr).toContain('could not be read from its first line (');
  expect(result.stdout).toContain(`${file} is damaged at its start: its rows could not be read`); // was: "after line 0: its later rows"
  // Was: "rows not yet sent are kept in <home>/trigger-failed-<date>-<time>.csv", a file that was never made.
  expect(keptIn(result.stdout + result.stderr).filter(([, exists]) => !exists)).toEqual([]);
});

/**
 * The rest command a stopped folder batch prints (`--from <part> --after-line N`) was bound to nothing (audit24): a part re-exported
 * between the stop and the paste (the same rows in another order, as a warehouse re-run writes it) was read from line N of its new
 * content, and the paste exited 0 having sent rows already sent and never others. The rest now carries a check of the rows up to line N
 * (`--after-line N:<check>`), and a changed part is refused before any row is sent, as the journal path refuses a changed file.
 * The stopped run lets the 250 ms of reading after the signal pass at once (signalClock) and is answered slowly till then, so the
 * stop falls in part 1's second chunk on any machine: a part of 6,000 rows, not one of 120,000 (sent again: 6-9 s a Node version).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { paste as pasteIn, run, type Sandbox } from '../helpers/cli.js';
import { json, killAfter, type TestServer, useServer } from '../helpers/server.js';
import { answerSlowly, csvRows, keptRows, signalClock, userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));
const at = (name: string) => path.join(box.home, name);

it('a part changed between the stop and the paste of its rest: refused, or every row once (not rows twice and rows lost)', async () => {
  const sizes = [10, 6_000, 10];
  fs.mkdirSync(at('export'));
  for (const [p, n] of sizes.entries()) fs.writeFileSync(at(`export/part-${p}.csv`), csvRows(n, `p${p}-`));
  const args = ['batch', 'export', '--concurrency', '4', '--failed', 'kept.csv'];
  answerSlowly(server, 20);
  const onSpawn = killAfter(server, sizes[0]! + 1, 'SIGTERM'); // in part 1's first chunk
  const stopped = await run(args, { env: signalClock(box, 'over'), timeoutMs: 120_000, onSpawn });
  server.handle((_req, res) => json(res, 200, { success: true }));
  expect(stopped.code).toBe(143);
  const rest = /send them with: (.*)$/m.exec(stopped.stderr)![1]!;
  expect(rest).toMatch(/--from export\/part-1\.csv --after-line \d+:[0-9a-f]{8} /);
  const kept = keptRows(fs.readFileSync(at('kept.csv'), 'utf8')).map((k) => k.user);

  // The export is run again: part-1 holds the same rows in another order.
  const [header, ...rows] = csvRows(sizes[1]!, 'p1-').trim().split('\n');
  fs.writeFileSync(at('export/part-1.csv'), `${[header, ...rows.reverse()].join('\n')}\n`);

  const before = server.requests.length;
  const pasted = await pasteIn(rest, box.env);
  expect(pasted.code).toBe(2);
  expect(pasted.stderr).toMatch(
    /export\/part-1\.csv has changed since the batch stopped: its rows up to line \d+ are not the ones it read/,
  );
  expect(server.requests.length).toBe(before); // was: exit 0, thousands of rows twice and as many never sent

  // The file it read put back: the rest is sent, every row once with what was sent and kept before, pasted twice.
  fs.writeFileSync(at('export/part-1.csv'), csvRows(sizes[1]!, 'p1-'));
  for (const _ of [1, 2]) expect((await pasteIn(rest, box.env)).code).toBe(0);
  const all = [...server.requests.map((r) => userOf(r.url)), ...kept];
  expect(all.length - new Set(all).size).toBe(0);
  expect(new Set(all).size).toBe(sizes.reduce((a, b) => a + b));
}, 240_000);

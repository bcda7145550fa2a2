/**
 * A failed file fixed by hand after its printed replay already ran once (audit24). The replay's journal refuses the edited file
 * (right), and its hint says "name a new --journal for this one"; doing so sends again every row the first replay accepted. The
 * rows that replay did not accept are in its own failed file (f-2.csv), which is where the fix belongs; the hint does not say so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));
const userOf = (url: string) => decodeURIComponent(url.split('/')[5] ?? '');

it("the refusal of an edited failed file points at the replay's own failed file, not at a new journal that sends rows twice", async () => {
  let refuse = true;
  server.handle((_req, res) => (refuse ? json(res, 404, { error: 'not yet' }) : json(res, 200, { success: true })));
  const at = (name: string) => path.join(sandbox.home, name);
  fs.writeFileSync(at('in.csv'), 'triggerId,userId,value\np,e1,1\np,e2,abc\np,e3,3\n');
  const first = await runCommand(['batch', at('in.csv'), '--failed', at('f.csv'), '--concurrency', '1'], sandbox.env);
  expect(first.code).toBe(1);
  refuse = false;
  const replay = ['batch', at('f.csv'), '--failed', at('f-2.csv'), '--journal', at('f-2.csv.journal'), '--resume'];
  expect((await runCommand(replay, sandbox.env)).code).toBe(1); // e1 and e3 accepted; e2 (abc) kept in f-2.csv
  fs.writeFileSync(at('f.csv'), fs.readFileSync(at('f.csv'), 'utf8').replace(',abc,', ',2,')); // fixed by hand, as the summary said
  const again = await runCommand(replay, sandbox.env);
  expect(again.code).toBe(2);
  // Was: "... or name a new --journal for this one": followed, it sends e1 and e3 a second time.
  expect(again.stderr).toContain(`fix the rows it did not accept in ${at('f-2.csv')}, and send that file`);
  expect(again.stderr).toContain('a new --journal would send again the 2 rows it records as accepted');
  expect(again.stderr).not.toContain('name a new --journal');
  expect(
    server.requests
      .map((r) => userOf(r.url))
      .filter((u) => u !== 'e2')
      .sort(),
  ).toEqual(['e1', 'e1', 'e3', 'e3']); // 404s, then 200s
});

/**
 * A batch run from inside its export folder writes its default failed file there (the current folder); the next run of the folder
 * read it as a part and sent its rows beside their originals: every failed row twice. Such a file is now told by its error column
 * (trigger's "line N: " words) and refused, exit 2, nothing sent; a part with an error column of its own is read as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

it("a folder run twice from inside it: the second refuses the first's failed file, and sends nothing", async () => {
  const folder = path.join(sandbox.home, 'export');
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'part-0.csv'), 'triggerId,userId\nt,a1\nt,a2\n');
  fs.writeFileSync(path.join(folder, 'part-1.csv'), 'triggerId,userId\nt,b1\n');
  server.handle((_req, res) => json(res, 404, { success: false, message: 'no such trigger' }));
  const first = await runCommand(['batch', '.', '--retries', '0'], sandbox.env, folder);
  expect(first.code).toBe(1);
  const kept = fs.readdirSync(folder).filter((name) => name.startsWith('trigger-failed-'));
  expect(kept).toHaveLength(1);
  const before = server.requests.length;

  server.handle((_req, res) => json(res, 200, { success: true }));
  const second = await runCommand(['batch', '.'], sandbox.env, folder);
  expect(second.code).toBe(2);
  expect(second.stderr).toContain(`${kept[0]}: a failed file trigger wrote: read with its folder, its rows would be sent twice`);
  expect(server.requests.length).toBe(before); // was: 6 sent, a1, a2 and b1 each twice

  // An export's own error column is data: read as before.
  fs.renameSync(path.join(folder, kept[0]!), path.join(sandbox.home, kept[0]!));
  fs.writeFileSync(path.join(folder, 'part-2.csv'), 'triggerId,userId,error\nt,c1,timeout\n');
  const third = await runCommand(['batch', '.'], sandbox.env, folder);
  expect(third.code).toBe(0);
  expect(server.requests.length).toBe(before + 4);
});

it('the same failed file among the parts a glob names (export/*) is refused too; failed files alone are a replay, read', async () => {
  const folder = path.join(sandbox.home, 'export');
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'part-0.csv'), 'triggerId,userId\nt,a1\n');
  const kept = path.join(folder, 'trigger-failed-x.csv');
  fs.writeFileSync(kept, 'triggerId,userId,value,file,error\nt,a1,,part-0.csv,line 2: the service answered 404 Not Found\n');
  server.handle((_req, res) => json(res, 200, { success: true }));
  const glob = await runCommand(['batch', path.join(folder, 'part-0.csv'), kept], sandbox.env, folder);
  expect(glob.code).toBe(2);
  expect(glob.stderr).toContain(`${kept}: a failed file trigger wrote: read with its folder, its rows would be sent twice`);
  expect(server.requests).toHaveLength(0); // was: a1 twice
  // Two shards' failed files replayed together: each row once.
  const other = path.join(folder, 'trigger-failed-y.csv');
  fs.writeFileSync(other, 'triggerId,userId,value,file,error\nt,b1,,part-1.csv,line 2: the service answered 404 Not Found\n');
  const replay = await runCommand(['batch', kept, other], sandbox.env, sandbox.home);
  expect(replay.code).toBe(0);
  expect(server.requests).toHaveLength(2);
});

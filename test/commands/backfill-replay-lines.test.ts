/**
 * A failed file of several files names each row's file and its line there. Replayed, a row refused again was kept as
 * "line 2" (its line in the failed file) beside the file column that names the part (inputs20): the two then pointed
 * at different rows. It keeps the part's line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

it('a row refused again in a replay keeps the line of the file its file column names', async () => {
  server.handle((req, res) => (req.url?.includes('/users/bob/') ? json(res, 422, { error: 'no' }) : json(res, 200, { success: true })));
  const at = (name: string) => path.join(sandbox.home, name);
  fs.mkdirSync(at('export'));
  fs.writeFileSync(at('export/part-0.csv'), 'triggerId,userId\nt,a\n');
  fs.writeFileSync(at('export/part-1.csv'), 'triggerId,userId\nt,c\nt,d\nt,bob\n');
  expect((await runCommand(['batch', at('export'), '--failed', at('failed.csv')], sandbox.env)).code).toBe(1);
  const part = path.join(at('export'), 'part-1.csv');
  expect(fs.readFileSync(at('failed.csv'), 'utf8')).toContain(`t,bob,,${part},line 4: the service refused the event: 422`);
  expect((await runCommand(['batch', at('failed.csv'), '--failed', at('again.csv')], sandbox.env)).code).toBe(1);
  expect(fs.readFileSync(at('again.csv'), 'utf8')).toContain(`t,bob,,${part},line 4: the service refused the event: 422`);
});

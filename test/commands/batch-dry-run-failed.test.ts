/**
 * A dry run with `--failed F` wrote F again with the rows it found invalid: the rows an earlier run kept there as refused were gone
 * (the printed replay, or the resume command, with --dry-run added to look first). A dry run sends nothing and keeps nothing: F is
 * left as it was, not made when it is not there, and the summary names no file and no replay (docs/choices.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const at = (name: string) => path.join(sandbox.home, name);

it('a dry run with --failed leaves that file as it was, and makes none', async () => {
  server.handle((req, res) => (req.url.includes('/users/b/') ? json(res, 400, { message: 'no such user' }) : json(res, 200, {})));
  fs.writeFileSync(at('in.csv'), 'triggerId,userId,value\nt,a,1\nt,b,2\nt,c,x\n');
  const first = await runCommand(['batch', at('in.csv'), '--failed', at('f.csv')], sandbox.env);
  expect(first.code).toBe(1);
  const kept = fs.readFileSync(at('f.csv'), 'utf8');
  expect(kept).toContain('t,b,2,line 3: the service refused the event: 400 Bad Request');

  const dry = await runCommand(['batch', at('in.csv'), '--failed', at('f.csv'), '--dry-run'], sandbox.env);
  expect(dry.code).toBe(1); // the invalid row, as before
  expect(dry.stdout).toContain('dry run: 2 of 3 rows can be sent, 1 invalid; nothing was sent');
  expect(fs.readFileSync(at('f.csv'), 'utf8')).toBe(kept); // was: only the invalid row, t,b refused by the service gone
  expect(dry.stdout).not.toContain('f.csv'); // was: "1 row kept in f.csv; once the cause is fixed, send it with: …"
  const fresh = await runCommand(['batch', at('in.csv'), '--failed', at('g.csv'), '--dry-run'], sandbox.env);
  expect(fresh.code).toBe(1);
  expect(fs.readdirSync(sandbox.home).filter((f) => f.includes('g.csv'))).toEqual([]);
  expect(server.requests).toHaveLength(2); // the first run's: a and b
});

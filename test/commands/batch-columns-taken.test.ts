/**
 * --columns giving a role the column another role reads by default (triggerId=userId, value=userId; review24b). The refusal said the
 * header "has no userId column (its columns: triggerId, userId, value)", naming the column it said was missing. Now one line names
 * --columns as what took the column, and the hint names the users' column too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

it.each(['triggerId=userId', 'value=userId'])('--columns %s: refused without saying the header lacks a column it has', async (columns) => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'a.csv');
  fs.writeFileSync(file, 'triggerId,userId,value\nt1,u1,1\n');
  const result = await runCommand(['batch', file, '--columns', columns], sandbox.env);
  expect({ code: result.code, sent: server.requests.length }).toEqual({ code: 2, sent: 0 });
  expect(result.stderr).not.toMatch(/has no userId column \(its columns: [^)]*\buserId\b/);
  expect(result.stderr).toContain('--columns');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toContain(`--columns reads the column userId as ${columns.split('=')[0]}; nothing was sent`);
});

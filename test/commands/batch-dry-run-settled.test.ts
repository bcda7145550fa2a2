/**
 * review26 F7: a dry run of a replay whose failed file holds a row of unknown outcome printed
 * `✔ dry run: 0 of 1 row can be sent, 0 invalid, 1 settled by an earlier run` and exited 1. A dry run checks the rows it would
 * send; one an earlier run settled (accepted, kept as refused, of unknown outcome) is not among them: exit 0 unless a row is invalid.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const dryRun = (rows: string[]) => {
  const file = path.join(sandbox.home, 'failed.csv');
  fs.writeFileSync(file, `triggerId,userId,error\n${rows.join('\n')}\n`);
  return runCommand(['batch', file, '--dry-run'], sandbox.env);
};
const refused = 't,u1,line 2: the service refused the event: 400 Bad Request: no';
const unknown = 't,u2,line 3: outcome unknown: no definitive answer: 500 Internal Server Error';

it('a replay whose failed file holds a row of unknown outcome: ✔ and exit 0, the row counted as settled', async () => {
  const dry = await dryRun([refused, unknown]);
  expect(dry.stdout).toContain('✔ dry run: 1 of 2 rows can be sent, 0 invalid, 1 settled by an earlier run; nothing was sent');
  expect(dry.code).toBe(0); // was 1
  expect(server.requests).toHaveLength(0);
});

it('a row the dry run finds invalid still makes it exit 1, beside a settled one', async () => {
  const dry = await dryRun([unknown, 't,,line 4: the service refused the event: 400 Bad Request: no']);
  expect(dry.stdout).toContain('✖ dry run: 0 of 2 rows can be sent, 1 invalid, 1 settled by an earlier run');
  expect(dry.code).toBe(1);
});

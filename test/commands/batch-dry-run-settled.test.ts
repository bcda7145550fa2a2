/**
 * review26 F7: a dry run of a replay whose failed file holds a row of unknown outcome printed
 * `✔ dry run: 0 of 1 row can be sent, 0 invalid, 1 settled by an earlier run` and exited 1. fix27b made it exit 0; review27 F3: the
 * real run of that file exits 1 (the row is not sent again), so a CI gate on the dry run passed where the run failed. The dry run
 * exits as the run would, and its mark says so: ⚠ for rows an earlier run left unaccepted, ✖ for an invalid row.
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

it('a replay whose failed file holds a row of unknown outcome: ⚠ and exit 1, as the run that leaves it', async () => {
  const dry = await dryRun([refused, unknown]);
  expect(dry.stdout).toContain('⚠ dry run: 1 of 2 rows can be sent, 0 invalid, 1 left by an earlier run, not sent again; nothing was sent');
  expect(dry.code).toBe(1);
  const run = await runCommand(['batch', path.join(sandbox.home, 'failed.csv')], sandbox.env);
  expect([run.code, server.requests.length]).toEqual([1, 1]); // the run: u1 sent (accepted), u2 left; exit 1 as its dry run said
});

it('a row the dry run finds invalid still makes it exit 1, beside a settled one', async () => {
  const dry = await dryRun([unknown, 't,,line 4: the service refused the event: 400 Bad Request: no']);
  expect(dry.stdout).toContain('✖ dry run: 0 of 2 rows can be sent, 1 invalid, 1 left by an earlier run, not sent again');
  expect(dry.code).toBe(1);
});

/**
 * A user's own CSV with an `error` column (review24 F6). Its rows were read as trigger's failed file's: a row whose error text looked like
 * a kept row's ("line 7: timeout (as read: x)") and that had a field starting with a quote was refused with the user's own text as the
 * reason, and one whose text began "line N: outcome unknown" was skipped. Such a column is data unless the file is trigger's failed file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { userOf } from '../helpers/batch.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const batch = async (csv: string) => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = path.join(sandbox.home, 'mine.csv');
  fs.writeFileSync(file, csv);
  const result = await runCommand(['batch', file, '--failed', path.join(sandbox.home, 'f.csv')], sandbox.env);
  return { code: result.code, sent: server.requests.map((r) => userOf(r.url)).sort(), stderr: result.stderr };
};

it('a row with its user, a quoted field and an error that reads "line N: ... (as read: ...)" is sent, as it is without the quote', async () => {
  const csv =
    'triggerId,userId,note,error\nt,u1,"""quoted"" start",line 7: timeout (as read: x)\nt,u2,plain,line 8: timeout (as read: y)\n';
  // Was: exit 1, u2 sent and "✖ line 2: invalid, not sent: timeout (as read: x)".
  expect(await batch(csv)).toMatchObject({ code: 0, sent: ['u1', 'u2'] });
});

it("a file whose first error is not trigger's words is read as data: a later 'line N: outcome unknown' row is sent, not skipped", async () => {
  const csv = 'triggerId,userId,error\nt,u1,\nt,u2,disk full\nt,u3,line 4: outcome unknown (the retry gave up)\n';
  expect(await batch(csv)).toMatchObject({ code: 0, sent: ['u1', 'u2', 'u3'] }); // was: u3 skipped as of unknown outcome
});

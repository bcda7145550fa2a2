/**
 * A user's own NDJSON with an `error` member, as backfill-error-column.test.ts does for a CSV's column (fix25b, review24 F6). A row whose
 * error read "line N: outcome unknown …" was skipped as of unknown outcome, and one reading like a cut line's reason was refused, though
 * the file was not trigger's failed file. Such a member is data unless the file's first error says "line N: ", as trigger writes it.
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

const batch = async (name: string, objects: object[], ...more: string[]) => {
  server.handle((req, res) => (userOf(req.url) === 'refused' ? json(res, 400, { message: 'no' }) : json(res, 200, { success: true })));
  const file = path.join(sandbox.home, name);
  fs.writeFileSync(file, objects.map((o) => `${JSON.stringify(o)}\n`).join(''));
  const result = await runCommand(['batch', file, ...more], sandbox.env);
  return { code: result.code, stderr: result.stderr };
};
const sent = () => server.requests.map((r) => userOf(r.url)).sort();

it("a file whose first error is not trigger's words is read as data: its 'line N: outcome unknown' and cut-line rows are sent", async () => {
  const rows = [
    { triggerId: 't', userId: 'u1', error: 'disk full' },
    { triggerId: 't', userId: 'u2', error: 'line 4: outcome unknown (the retry gave up)' },
    { triggerId: 't', userId: 'u3', error: 'line 9: the line is 2,000,000 bytes, over the 1 MiB limit' },
  ];
  // Was: exit 1, u2 skipped as of unknown outcome and u3 refused with the user's own words.
  expect(await batch('mine.ndjson', rows, '--failed', path.join(sandbox.home, 'f.ndjson'))).toMatchObject({ code: 0 });
  expect(sent()).toEqual(['u1', 'u2', 'u3']);
});

it("trigger's own failed file is still read as one: its row of unknown outcome is skipped on a replay", async () => {
  const rows = [
    { triggerId: 't', userId: 'refused', error: 'line 2: the service refused the event: 400 Bad Request: no' },
    { triggerId: 't', userId: 'maybe', error: 'line 3: outcome unknown: 500 Internal Server Error' },
  ];
  const replay = await batch('failed.ndjson', rows, '--failed', path.join(sandbox.home, 'failed-2.ndjson'));
  expect(replay.code).toBe(1);
  expect(sent()).toEqual(['refused']);
  expect(replay.stderr).toContain('--retry-unknown');
});

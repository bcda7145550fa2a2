/**
 * batch --json: an NDJSON row made invalid by one member of the wrong kind said `triggerId: null, userId: null` whenever its ids were
 * under --columns names or its user id was a number, though those members were fine (fix25a). It now says the ids that were read, as a
 * row invalid for its value text does; a member that is itself the problem stays null. A failed file in columns (--columns, several
 * files) kept such a row as `t,u,,<reason>`, which a replay sent without its value: it is kept as read now, and a replay keeps it again.
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
const ndjson = (name: string, lines: string[]) => (fs.writeFileSync(at(name), lines.map((l) => `${l}\n`).join('')), at(name));
const ids = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { line: number; ok: boolean; triggerId: string | null; userId: string | null })
    .map(({ line, ok, triggerId, userId }) => ({ line, ok, triggerId, userId }));

it('--json names the ids read beside a member of the wrong kind: a number user id, --columns names, --trigger', async () => {
  const file = ndjson('a.ndjson', [
    '{"triggerId":"t","userId":123,"value":true}',
    '{"triggerId":"t","userId":1.5,"value":1}',
    '{"userId":"u3","value":[1]}',
    '{"triggerId":"t","triggerId":"x","userId":"u4"}',
    '{"triggerId":7,"userId":"u5"}',
  ]);
  const result = await runCommand(['batch', file, '--trigger', 'dflt', '--dry-run', '--json'], sandbox.env);
  expect(result.code).toBe(1);
  expect(ids(result.stdout)).toEqual([
    { line: 1, ok: false, triggerId: 't', userId: '123' }, // was userId null
    { line: 2, ok: false, triggerId: 't', userId: null }, // 1.5 is what is wrong
    { line: 3, ok: false, triggerId: 'dflt', userId: 'u3' }, // was triggerId null: --trigger is its trigger, as for any row
    { line: 4, ok: false, triggerId: null, userId: 'u4' }, // which triggerId is meant is what is wrong
    { line: 5, ok: false, triggerId: null, userId: 'u5' },
  ]);

  const named = ndjson('b.ndjson', ['{"event":"t","uid":"u6","amount":{"x":1}}']);
  const columns = ['--columns', 'triggerId=event,userId=uid,value=amount'];
  const failed = at('b-failed.csv');
  server.handle((_req, res) => json(res, 200, { success: true }));
  const byName = await runCommand(['batch', named, ...columns, '--json', '--failed', failed], sandbox.env);
  expect(ids(byName.stdout)).toEqual([{ line: 1, ok: false, triggerId: 't', userId: 'u6' }]); // was both null
  expect(server.requests).toHaveLength(0);
  // Its failed file is in columns: the row is kept as read, the columns empty, so that a replay does not send it without its value.
  expect(fs.readFileSync(failed, 'utf8').split('\n')[1]).toBe(
    ',,,"line 1: invalid, not sent: ""amount"" must be a number, not object (as read: {""event"":""t"",""uid"":""u6"",""amount"":{""x"":1}})"',
  );
});

it('a failed file of several NDJSON files keeps a row with a value of the wrong kind as read: its replay sends nothing', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  fs.mkdirSync(at('two'));
  ndjson('two/a.ndjson', ['{"triggerId":"t","userId":"u","value":true}']);
  ndjson('two/b.ndjson', ['{"triggerId":"t","userId":"v","value":2}']);
  const first = await runCommand(['batch', at('two'), '--failed', at('f.csv')], sandbox.env);
  expect(first.code).toBe(1);
  expect(server.requests.map((r) => r.url)).toEqual(['/v1/triggers/t/users/v/events']);
  // Was `t,u,,two/a.ndjson,…`: the replay sent u without its value, exit 0.
  const replay = await runCommand(['batch', at('f.csv'), '--failed', at('f-2.csv')], sandbox.env);
  expect(replay.code).toBe(1);
  expect(server.requests).toHaveLength(1);
  expect(replay.stderr).toContain('"value" must be a number, not boolean');
});

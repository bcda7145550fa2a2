/**
 * NDJSON that is not one object a line. With --columns naming a member no object has (inputs20): every row was read as invalid (exit 1), where a CSV
 * header without the column is exit 2 with nothing sent, as docs/batch.md promises for a name the file lacks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const at = (name: string) => path.join(sandbox.home, name);
const ndjson = (name: string, objects: object[]) => {
  fs.writeFileSync(at(name), objects.map((o) => `${JSON.stringify(o)}\n`).join(''));
  return at(name);
};
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ user_id: `u${i}`, event_name: 't', amount: i }));

describe('NDJSON and --columns', () => {
  it('a member no object of the first lines has: exit 2 naming it and the members there, nothing sent', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const file = ndjson('a.ndjson', rows(5));
    const result = await runCommand(['batch', file, '--columns', 'userId=uid,triggerId=event_name'], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no object of lines 1-5 has a "uid" member (theirs: user_id, event_name, amount)');
    expect(result.stderr).toContain('check --columns userId=uid');
    expect(server.requests).toHaveLength(0);
  });

  it('a mistyped value member is refused too: the events would go without their values', async () => {
    const file = ndjson('b.ndjson', rows(3));
    const result = await runCommand(['batch', file, '--columns', 'userId=user_id,triggerId=event_name,value=amt'], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('has a "amt" member');
    expect(server.requests).toHaveLength(0);
  });

  it('in a folder, a later part that lacks it is named before anything is sent', async () => {
    fs.mkdirSync(at('export'));
    ndjson('export/part-0.ndjson', rows(3));
    ndjson('export/part-1.ndjson', [{ uid: 'x', event_name: 't' }]);
    const result = await runCommand(['batch', at('export'), '--columns', 'userId=user_id,triggerId=event_name'], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path.join(at('export'), 'part-1.ndjson')}: no object of lines 1-1 has a "user_id" member`);
    expect(server.requests).toHaveLength(0);
  });

  it('a member some objects leave out (a warehouse drops nulls) is no mistake: those rows go as they are', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const file = ndjson('c.ndjson', [
      { user_id: 'a', event_name: 't' },
      { user_id: 'b', event_name: 't', amount: 2 },
    ]);
    const result = await runCommand(['batch', file, '--columns', 'userId=user_id,triggerId=event_name,value=amount'], sandbox.env);
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => r.body).sort()).toEqual(['{"value":2}', '{}']);
  });

  it('a JSON array (pretty or on one line) is exit 2 before anything is sent: its lines that held a whole object went', async () => {
    for (const [name, text] of [
      ['pretty.json', '[\n  {"triggerId":"t","userId":"a"},\n  {"triggerId":"t","userId":"b"}\n]\n'],
      ['one-line.json', '[{"triggerId":"t","userId":"a"},{"triggerId":"t","userId":"b"}]\n'],
    ]) {
      fs.writeFileSync(at(name!), text!);
      const result = await runCommand(['batch', at(name!)], sandbox.env);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('the input is a JSON array (line 1), not one JSON object a line; nothing was sent');
      expect(result.stderr).toContain("jq -c '.[]'");
    }
    expect(server.requests).toHaveLength(0); // was: b, on line 3 of the pretty one
  });
});

/**
 * Parts joined with cat (`cat part-*.csv | trigger batch -`) repeat their header inside the rows: each repeat was sent as an
 * event, to the trigger named like the column ("event_name") for the user "user_id" (inputs20). It is an invalid row now.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

describe('a CSV whose header comes again among its rows', () => {
  it('is an invalid row there, not sent; the rows around it are', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const joined = 'user_id,event_name\nu1,purchase\nuser_id,event_name\nu2,purchase\n';
    const input = path.join(sandbox.home, 'joined.csv');
    fs.writeFileSync(input, joined);
    const failed = path.join(sandbox.home, 'f.csv');
    const result = await runCommand(['batch', input, '--columns', 'userId=user_id,triggerId=event_name', '--failed', failed], sandbox.env);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/triggers/purchase/users/u1/events', '/v1/triggers/purchase/users/u2/events']);
    expect(result.stderr).toContain('line 3: invalid, not sent: the header again');
    expect(result.code).toBe(1);
  });
});

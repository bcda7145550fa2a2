/**
 * batch --json for a row whose outcome is unknown. `fire --json` for a 500 says
 * {"status":500,"attempts":1,"requestId":"r_1","error":{"kind":"unavailable","recorded":"unknown",...}};
 * the same answer to a batch row is printed as a row never sent:
 * {"status":null,"attempts":0,"requestId":null,"error":{"kind":"unknown","message":"outcome unknown: ..."}}
 * so a script reading the results loses the status, the request id the service gave (the one to
 * trace it with, which the contract says is shown with any error), is told no attempt was made for
 * a request the service received, finds no `error.recorded` (README: --json says "no" or "unknown"),
 * and meets a `kind` that README's list of kinds does not have. The same for a time-out after sending.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

interface RowResult {
  line: number;
  status: number | null;
  attempts: number;
  requestId: string | null;
  error?: { kind: string; recorded?: string };
}

describe('batch --json, a row of unknown outcome', () => {
  it('a 500 keeps its status, its attempt, its request id and says recorded "unknown", as fire --json does', async () => {
    server.handle((_req, res) => json(res, 500, { error: 'boom' }, { 'x-request-id': 'r_1' }));
    const input = path.join(sandbox.home, 'in.csv');
    fs.writeFileSync(input, 'triggerId,userId\nt,a\n');
    const fired = await runCommand(['fire', 't', 'a', '--json'], sandbox.env);
    const fire = JSON.parse(fired.stdout) as RowResult;
    expect(fire).toMatchObject({ status: 500, attempts: 1, requestId: 'r_1', error: { recorded: 'unknown' } });

    const result = await runCommand(['batch', input, '--json', '--failed', path.join(sandbox.home, 'failed.csv')], sandbox.env);
    expect(result.code).toBe(1);
    const row = JSON.parse(result.stdout.trim()) as RowResult;
    expect(server.requests).toHaveLength(2); // fire's and the batch row's: the row was sent
    expect(row).toMatchObject({ line: 2, status: 500, attempts: 1, requestId: 'r_1', error: { recorded: 'unknown' } });
    expect(['usage', 'config', 'refused', 'unavailable', 'network', 'timeout', 'interrupted', 'bug']).toContain(row.error?.kind);
  });
});

/**
 * A journal is carried on only with the input read the same way (inputs20): `--resume` with another `--columns` read the rest
 * of the export with user and trigger swapped and sent it so; another `--trigger` would send the rows without one elsewhere.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

describe('--resume reads the input as the journal did', () => {
  it('another --columns or --trigger is refused (exit 2, nothing sent); the same carries on', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const input = path.join(sandbox.home, 'export.csv');
    fs.writeFileSync(input, 'uid,ev\nu1,purchase\nu2,\n');
    const journal = path.join(sandbox.home, 'export.journal');
    const batch = (...args: string[]) => runCommand(['batch', input, '--journal', journal, ...args], sandbox.env);
    const first = await batch('--columns', 'userId=uid,triggerId=ev', '--trigger', 'signup');
    expect(first.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    for (const other of [
      ['--columns', 'userId=ev,triggerId=uid', '--trigger', 'signup'],
      ['--columns', 'userId=uid,triggerId=ev'],
    ]) {
      const again = await batch(...other, '--resume');
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('was read with --columns triggerId=ev,userId=uid,value=value, --trigger signup');
    }
    const same = await batch('--columns', 'triggerId=ev,userId=uid', '--trigger', 'signup', '--resume');
    expect(same.code).toBe(0);
    expect(server.requests).toHaveLength(2);
  });
});

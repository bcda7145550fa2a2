/**
 * A current folder removed since the shell went there (a CI workspace cleaned, `rm -rf` of the build folder one is in): process.cwd()
 * throws uv_cwd, and `fire` and `batch --failed elsewhere` printed "this is a bug in trigger", exit 70 (review28 F7). Now one line
 * saying what is wrong, exit 2, nothing sent; shell completion still answers (nothing), as it did.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { BIN, run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

/** `trigger <args>` run from a folder removed after the shell went into it. */
const fromRemoved = (args: string) => {
  const gone = path.join(box.home, 'gone');
  fs.mkdirSync(gone);
  const script = `cd '${gone}' && rmdir '${gone}' && exec '${process.execPath}' '${BIN}' ${args}`;
  return run(['-c', script], { env: box.env, command: 'bash' });
};

it.each(['fire t u1', `batch '${'<rows>'}' --failed '${'<failed>'}'`])(
  '%s in a removed folder: exit 2, one line, nothing sent',
  async (cmd) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    fs.writeFileSync(path.join(box.home, 'rows.csv'), 'triggerId,userId\nt,u1\n');
    const args = cmd.replace('<rows>', path.join(box.home, 'rows.csv')).replace('<failed>', path.join(box.home, 'f.csv'));
    const result = await fromRemoved(args);
    expect({ code: result.code, stdout: result.stdout, sent: server.requests.length }).toEqual({ code: 2, stdout: '', sent: 0 });
    expect(result.stderr).toBe('error: the current folder was removed — cd to a folder that exists\n');
  },
);

it('shell completion in a removed folder answers, not with an error', async () => {
  const result = await fromRemoved('__complete fire --');
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('');
});

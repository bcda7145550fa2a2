/**
 * What a batch's input may be: a named input is looked at before a row is sent and read again for
 * its rows, so a FIFO (a named pipe, a shell's process substitution) is refused with the way to pipe
 * it in, and a file's first bytes decide its format when its name does not.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const at = (name: string) => path.join(sandbox.home, name);
const batch = (args: string[]) => runCommand(['batch', ...args], sandbox.env, sandbox.home);

describe('the kinds of input a batch reads', () => {
  it('a FIFO is refused before anything is read from it: exit 2, the way to pipe it in, nothing sent', async () => {
    const fifo = at('rows.fifo');
    execFileSync('mkfifo', [fifo]);
    const result = await batch([fifo]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: ${fifo} is not a regular file or folder — pipe it to standard input: cat ${fifo} | trigger batch -`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('a file without an extension is told by its first bytes, and read whole after the look', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    fs.writeFileSync(at('rows'), `  \n${Array.from({ length: 3 }, (_, i) => `{"triggerId":"t","userId":"u${i}"}`).join('\n')}\n`);
    const result = await batch([at('rows'), '--concurrency', '1']);
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/triggers/t/users/u0/events',
      '/v1/triggers/t/users/u1/events',
      '/v1/triggers/t/users/u2/events',
    ]);
  });
});

/**
 * A folder entry that leads nowhere: a loop of links (inputs20). It was exit 70, "this is a bug in trigger ... ELOOP"; it is
 * the input's problem, named before anything is sent. (The same for a link to nothing: a broken export, not a file to skip.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

describe('a folder entry that leads nowhere', () => {
  it.each([
    [
      'a loop of links',
      (folder: string) => [fs.symlinkSync('loop-b', path.join(folder, 'loop-a')), fs.symlinkSync('loop-a', path.join(folder, 'loop-b'))],
    ],
    ['a link to nothing', (folder: string) => fs.symlinkSync('gone.csv', path.join(folder, 'part-1.csv'))],
  ])('%s: an input error naming it (exit 2, not 70), nothing sent', async (_what, make) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const folder = fs.mkdtempSync(path.join(sandbox.home, 'exp-'));
    fs.writeFileSync(path.join(folder, 'part-0.csv'), 'triggerId,userId\nt,a\n');
    make(folder);
    const result = await runCommand(['batch', folder], sandbox.env);
    expect(result.stderr).not.toContain('this is a bug in trigger');
    expect(result.stderr).toMatch(/cannot read .*(loop-a|part-1\.csv)/);
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});

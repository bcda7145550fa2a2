/**
 * audit24 item 17: `--resume --dry-run` ignored the journal ("8,000 of 8,000 rows can be sent" where the resume sent 7,971). A dry
 * run now reads an existing journal as its resume would, and writes nothing to it: it counts the rows the resume sends.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

it('--resume --dry-run counts what the resume sends, and leaves the journal as it was; without --resume it refuses as the run would', async () => {
  // The key refused after 5 rows: the batch stops itself after 10 refusals in a row, leaving 15 rows not sent.
  let refusing = true;
  server.handle((_req, res, i) => (refusing && i >= 5 ? json(res, 401, { message: 'bad key' }) : json(res, 200, { success: true })));
  const input = path.join(sandbox.home, 'in.csv');
  fs.writeFileSync(input, `triggerId,userId\n${Array.from({ length: 30 }, (_, i) => `t,u${i}`).join('\n')}\n`);
  const journal = path.join(sandbox.home, 'in.journal');
  const args = ['batch', input, '--journal', journal, '--resume', '--failed', path.join(sandbox.home, 'f.csv'), '--concurrency', '1'];
  const first = await runCommand(args, sandbox.env);
  expect(first.code).toBe(1);
  expect(first.stdout).toContain('5 accepted · 10 failed · 0 invalid · 15 not sent of 30 rows');
  const recorded = fs.readFileSync(journal, 'utf8');

  const dry = await runCommand([...args, '--dry-run'], sandbox.env);
  expect(dry.code).toBe(1); // as the resume's: 10 rows it kept as refused are not sent again (review27 F3)
  expect(dry.stdout).toContain(
    '⚠ dry run: 15 of 30 rows can be sent, 0 invalid, 5 accepted by an earlier run, 10 left by an earlier run, not sent again; nothing was sent',
  );
  expect(fs.readFileSync(journal, 'utf8')).toBe(recorded);
  const refused = await runCommand(args.filter((a) => a !== '--resume').concat('--dry-run'), sandbox.env);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(`the journal ${journal} already records a batch of ${input} that did not finish`);
  // Its command to carry the batch on names the failed file the dry run was given, though a dry run keeps none (fix26a).
  expect(refused.stderr).toContain(`--resume --failed ${path.join(sandbox.home, 'f.csv')}`);
  expect(server.requests).toHaveLength(15);

  refusing = false;
  const resumed = await runCommand(args, sandbox.env);
  expect(resumed.stdout).toContain('15 accepted · 5 accepted in an earlier run · 10 failed');
  expect(server.requests).toHaveLength(30); // the 15 the dry run counted
});

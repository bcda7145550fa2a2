/**
 * `--resume --dry-run` reads an existing journal to count what its resume would send (fix25a). Run while that batch still sends, it read
 * the rows in flight as "outcome unknown: in flight when an earlier run of this batch ended" (that run had not ended) and exited 1
 * (review25). The resume it stands for would be refused, another batch holding the journal: so is the dry run, naming that process.
 */
import fs from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import { expect, it } from 'vitest';
import { BIN, run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';
import { spawn } from 'node:child_process';

let box: Sandbox;
let server: TestServer;
useServer((s, b) => ([server, box] = [s, b]));

it('--resume --dry-run beside the batch that holds the journal says so, and calls no row of it unknown', async () => {
  const held: http.ServerResponse[] = [];
  server.handle((_req, res, i) => (i < 5 ? json(res, 200, { success: true }) : void held.push(res)));
  const input = path.join(box.home, 'in.csv');
  fs.writeFileSync(input, `triggerId,userId\n${Array.from({ length: 20 }, (_, i) => `t,u${i}`).join('\n')}\n`);
  const journal = path.join(box.home, 'in.journal');
  const args = ['batch', input, '--journal', journal, '--failed', path.join(box.home, 'f.csv'), '--concurrency', '2'];
  const child = spawn(process.execPath, [BIN, ...args], { env: box.env, cwd: box.home, stdio: 'ignore' });
  const ended = new Promise((resolve) => child.on('close', resolve));
  while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));

  const dry = await run(['batch', input, '--journal', journal, '--resume', '--dry-run'], { env: box.env });
  for (const res of held) json(res, 200, { success: true });
  server.handle((_req, res) => json(res, 200, { success: true }));
  await ended;
  expect(dry.stderr).not.toContain('in flight when an earlier run of this batch ended');
  expect(dry.code).toBe(2);
});

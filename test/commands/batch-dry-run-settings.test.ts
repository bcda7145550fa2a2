/**
 * A dry run of a batch sends nothing and prints no request, so it needs neither key nor base URL: a new user checking a
 * file before setting anything up got "no base URL is set" (exit 2). fire --dry-run still needs the URL (it prints a curl).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

it('trigger batch --dry-run checks every row with no settings at all; a real run and fire --dry-run still ask for them', async () => {
  const { TRIGGER_BASE_URL: _url, TRIGGER_API_KEY: _key, ...env } = sandbox.env;
  const file = path.join(sandbox.home, 'rows.csv');
  fs.writeFileSync(file, 'triggerId,userId,value\nt,a,1\nt,b,abc\n');
  const dry = await runCommand(['batch', file, '--dry-run'], env);
  expect(dry.code).toBe(1); // one invalid row, found
  expect(dry.stdout).toContain('dry run: 1 of 2 rows can be sent, 1 invalid; nothing was sent');
  expect((await runCommand(['batch', file], env)).stderr).toContain('no API key is set');
  expect((await runCommand(['fire', 't', 'u', '--dry-run'], env)).stderr).toContain('no base URL is set');
  expect(server.requests).toHaveLength(0);
});

/**
 * review26b F10: an empty TRIGGER_PROFILE still refused a dry run (exit 2, "TRIGGER_PROFILE is empty"), where an empty
 * TRIGGER_API_KEY is taken as unset there since 28a2dff: GitHub gives a fork's pull request an empty `vars.PROFILE` as it
 * gives every secret empty, and a "check with --dry-run" step must pass. A run that sends still refuses it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const forkEnv = () => ({ ...sandbox.env, TRIGGER_PROFILE: '', TRIGGER_API_KEY: '' });

it('fire --dry-run and batch --dry-run with TRIGGER_PROFILE= and TRIGGER_API_KEY=: exit 0, the active profile as if unset', async () => {
  const fire = await runCommand(['fire', 't', 'u', '--dry-run'], forkEnv());
  expect([fire.code, fire.stderr.split('\n').filter((l) => l.startsWith('error'))]).toEqual([0, []]);
  expect(fire.stdout).toContain(`curl --fail-with-body`);
  fs.writeFileSync(path.join(sandbox.home, 'in.csv'), 'triggerId,userId\nt,a\n');
  const batch = await runCommand(['batch', 'in.csv', '--dry-run'], forkEnv());
  expect([batch.code, batch.stdout]).toEqual([0, expect.stringContaining('1 of 1 row can be sent')]);
  expect(server.requests).toHaveLength(0);
});

it('a run that sends with TRIGGER_PROFILE= is still refused: exit 2, nothing sent', async () => {
  const fire = await runCommand(['fire', 't', 'u'], { ...sandbox.env, TRIGGER_PROFILE: '' });
  expect([fire.code, fire.stderr]).toEqual([2, expect.stringContaining('error: TRIGGER_PROFILE is empty')]);
  expect(server.requests).toHaveLength(0);
});

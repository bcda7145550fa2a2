/**
 * A catalog's `ids` are chosen by the active profile ("--profile staging sends signup-test for
 * signup"). In CI the README says to give the key and the base URL through the environment
 * (TRIGGER_API_KEY, TRIGGER_BASE_URL), and TRIGGER_PROFILE or --profile picks the profile. With no
 * config file on the machine (a fresh CI runner), naming the profile only to pick the catalog's ids
 * is refused: `profile "staging" is not in .../config.json — create it with: trigger config set-key
 * --profile staging`, although every setting the command needs came from the environment, and the
 * fix it prints would store the key on the runner.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const CATALOG = { triggers: { signup: { name: 'Signed up', value: 'none', ids: { staging: 'signup-test' } } } };

describe('a profile named only for the catalog ids, with key and base URL from the environment', () => {
  it.each([
    ['--profile', ['--profile', 'staging'], {}],
    ['TRIGGER_PROFILE', [], { TRIGGER_PROFILE: 'staging' }],
  ])('%s staging sends the staging id, with no config file on the machine', async (_name, flags, env) => {
    const dir = path.join(sandbox.home, 'project');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'triggers.json'), JSON.stringify(CATALOG));
    const run = await runCommand(['fire', 'signup', 'alice', ...flags], { ...sandbox.env, ...env }, dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/triggers/signup-test/users/alice/events']);
  });

  it.each([
    ['a catalog that names no such profile (a typo)', 'stagng', true],
    ['no catalog at all (the profile picks nothing)', 'staging', false],
  ])('%s: refused as before, nothing sent', async (_what, profile, withCatalog) => {
    const dir = path.join(sandbox.home, 'project');
    fs.mkdirSync(dir);
    if (withCatalog) fs.writeFileSync(path.join(dir, 'triggers.json'), JSON.stringify(CATALOG));
    const run = await runCommand(['fire', 'signup', 'alice', '--profile', profile], sandbox.env, dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`profile "${profile}" is not in`);
    expect(server.requests).toHaveLength(0);
  });
});

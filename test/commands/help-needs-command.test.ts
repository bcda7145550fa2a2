/**
 * `trigger config` or `trigger triggers` with no subcommand prints its help and exits 2. What a CI
 * log and a --json reader are given says a command is needed, never commander's "(outputHelp)".
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { commandEnv, runCommand } from '../helpers/in-process.js';

let sandbox: ReturnType<typeof commandEnv>;
beforeEach(() => {
  sandbox = commandEnv();
});
afterEach(() => sandbox.cleanup());

it.each([['config'], ['triggers']])('%s with no subcommand: the help, exit 2, and words in the annotation and the JSON', async (name) => {
  const result = await runCommand([name], { ...sandbox.env, GITHUB_ACTIONS: 'true' });
  expect(result.code).toBe(2);
  expect(result.stderr + result.stdout).toContain('Usage: trigger');
  expect(result.stderr).toContain('::error title=trigger::a command is needed: the help above lists them');
  expect(result.stderr + result.stdout).not.toContain('outputHelp');
  const json = await runCommand([name, '--json'], sandbox.env);
  expect(json.code).toBe(2);
  expect(json.stdout + json.stderr).not.toContain('outputHelp');
});

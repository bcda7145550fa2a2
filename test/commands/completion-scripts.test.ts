/**
 * trigger completion in-process: the scripts it prints, its refusal of an unknown shell, and
 * __complete kept out of the help. They were spawned in test/e2e/completion.test.ts, which keeps
 * __complete from the built binary and the scripts used in real shells.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandEnv, runCommand, type CommandSandbox } from '../helpers/in-process.js';

let sandbox: CommandSandbox;
beforeEach(() => {
  sandbox = commandEnv();
});
afterEach(() => sandbox.cleanup());

describe('trigger completion, in-process', () => {
  it('__complete is not a command in the help', async () => {
    const result = await runCommand(['--help'], sandbox.env);
    expect(result.stdout).toContain('completion');
    expect(result.stdout).not.toContain('__complete');
  });

  it('an unknown shell is a usage error', async () => {
    const result = await runCommand(['completion', 'powershell'], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe("error: shell 'powershell' is not one trigger knows: use bash, zsh or fish");
  });

  it('the scripts ask the tool, and zsh is native: no compinit, no bashcompinit, no path variable', async () => {
    const zsh = (await runCommand(['completion', 'zsh'], sandbox.env)).stdout;
    expect(zsh.startsWith('#compdef trigger\n')).toBe(true);
    expect(zsh).toContain('trigger __complete');
    expect(zsh).not.toMatch(/^\s*(autoload[^\n]*)?\b(compinit|bashcompinit)\b/m);
    expect(zsh).not.toMatch(/\blocal\b[^\n]*\bpath\b/);
    for (const shell of ['bash', 'fish'])
      expect((await runCommand(['completion', shell], sandbox.env)).stdout).toContain('trigger __complete');
  });
});

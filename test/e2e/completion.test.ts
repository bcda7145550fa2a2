/**
 * trigger completion: the bash script is sourced in a real bash and asked for completions.
 */
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, run, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

function complete(words: string[]): string[] {
  const script = `
trigger() { ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"; }
source <(trigger completion bash)
COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=()
_trigger
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['-c', script], { env: box.env, encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.split('\n').filter(Boolean);
}

describe('trigger completion', () => {
  it.each([
    [
      ['trigger', ''],
      ['fire', 'batch', 'config', 'status', 'emulator', 'triggers', 'completion'],
    ],
    [['trigger', 'ba'], ['batch']],
    [['trigger', 'fire', '--va'], ['--value']],
    [
      ['trigger', 'config', 'set-'],
      ['set-key', 'set-base-url'],
    ],
    [['trigger', 'config', 'get', '--j'], ['--json']],
    [
      ['trigger', 'batch', 'x.csv', '--format', ''],
      ['csv', 'ndjson', 'lines'],
    ],
    [
      ['trigger', 'completion', ''],
      ['bash', 'zsh', 'fish'],
    ],
    [
      ['trigger', 'emulator', '--fail-'],
      ['--fail-rate', '--fail-status'],
    ],
    [
      ['trigger', 'config', 'get', ''],
      ['api-key', 'base-url'],
    ],
    [['trigger', 'config', 'unset', 'b'], ['base-url']],
  ])('bash completes %j', (words, expected) => {
    expect(complete(words)).toEqual(expected);
  });

  it('completes profile names from the config file, for --profile and config use / delete', async () => {
    for (const name of ['staging', 'prod'])
      expect((await run(['config', 'set-base-url', 'https://api.example.com', '--profile', name], { env: box.env })).code).toBe(0);
    expect(complete(['trigger', 'fire', 't', 'u', '--profile', ''])).toEqual(['staging', 'prod']);
    expect(complete(['trigger', 'config', 'use', 'st'])).toEqual(['staging']);
    expect(complete(['trigger', 'config', 'delete', ''])).toEqual(['staging', 'prod']);
    const fish = await run(['completion', 'fish'], { env: box.env });
    expect(fish.stdout).toContain("-l profile -x -a '(trigger config list --names 2>/dev/null)'");
  });

  it('prints zsh and fish scripts built from the same commands', async () => {
    const zsh = await run(['completion', 'zsh'], { env: box.env });
    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain('complete -o default -F _trigger trigger');
    const fish = await run(['completion', 'fish'], { env: box.env });
    expect(fish.code).toBe(0);
    expect(fish.stdout).toContain("complete -c trigger -n '__fish_use_subcommand' -a batch");
    expect(fish.stdout).toContain("complete -c trigger -n '__fish_seen_subcommand_from batch' -l format -x -a 'csv ndjson lines'");
  });

  it('an unknown shell is a usage error', async () => {
    const result = await run(['completion', 'powershell'], { env: box.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: shell 'powershell' is not one trigger knows: use bash, zsh or fish");
  });
});

/**
 * What a new user meets on their first runs: the help asked for as `trigger help <command>`, a typo
 * after `help`, a group with no command, an option typed before its command. Exit codes and the lines
 * on each stream from the built main() in this process; one spawned run shows the process's exit 0.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBuilt } from '../helpers/built-in-process.js';
import { run, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

describe('help asked for', () => {
  it('trigger help fire is fire --help: the help on stdout, exit 0', async () => {
    const spawned = await run(['help', 'fire'], { env: box.env });
    expect(spawned.code).toBe(0);
    expect(spawned.stdout).toBe((await runBuilt(['fire', '--help'], { env: box.env })).stdout);
    expect(spawned.stderr).toBe('');
  });

  it.each([[['help']], [['help', 'config', 'get']], [['config', 'help', 'get']], [[]]])('trigger %j: the help, exit 0', async (args) => {
    const result = await runBuilt(args, { env: box.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: trigger /);
    expect(result.stderr).toBe('');
  });
});

describe('mistakes', () => {
  it('a typo after help is named, with the command meant, not answered with the whole help', async () => {
    const result = await runBuilt(['help', 'fier'], { env: box.env });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').slice(0, 2)).toEqual(["error: unknown command 'fier'", '(did you mean fire?)']);
    expect(result.stdout + result.stderr).not.toContain('Usage:');
  });

  it.each([
    [['config', 'help', 'gte'], "error: unknown command 'gte'", '(did you mean get?)'],
    [['triggers', 'help', 'lsit'], "error: unknown command 'lsit'", '(did you mean list?)'],
  ])(
    'a typo after a group\'s help (%j) is named too (it showed the group\'s help and "a command is needed")',
    async (args, named, meant) => {
      const result = await runBuilt(args, { env: box.env });
      expect(result.code).toBe(2);
      expect(result.stderr.split('\n').slice(0, 2)).toEqual([named, meant]);
      expect(result.stdout + result.stderr).not.toContain('Usage:');
      expect((await runBuilt(['config', 'help', 'get'], { env: box.env })).stdout).toContain('Usage: trigger config get');
    },
  );

  it.each([['config'], ['triggers']])('%s with no command: the help, then one line that says a command is missing', async (name) => {
    const result = await runBuilt([name], { env: box.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Usage: trigger ${name}`);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe('error: a command is needed: the help above lists them');
  });

  it.each([
    [['--profile', 'x', 'status'], '--profile', '(options go after the command: trigger status --profile …)'],
    [['--profile=x', 'status'], '--profile=x', '(options go after the command: trigger status --profile …)'],
    [['-q', 'fire', 'purchase', 'bob'], '-q', '(options go after the command: trigger fire -q …)'],
  ])('an option before its command (%j) says where it goes', async (args, typed, hint) => {
    const result = await runBuilt(args, { env: box.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: unknown option '${typed}'\n${hint}\n`);
  });

  it("one word too many says how many the command takes, in the tool's words", async () => {
    const result = await runBuilt(['triggers', 'show', 'purchase', 'completed'], { env: box.env });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('error: show takes 1 argument; got 2 — quote a value with spaces in it');
  });

  it('under --json the object is still printed; an option no command has keeps the usual hint', async () => {
    const json = await runBuilt(['--json', 'fire', 'purchase', 'bob'], { env: box.env });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { kind: 'usage', message: "unknown option '--json'" } });
    expect(json.stderr).toContain('(options go after the command: trigger fire --json …)');
    for (const args of [['--no-color', 'status'], ['--foo']]) {
      const result = await runBuilt(args, { env: box.env });
      expect(result.stderr).toBe(`error: unknown option '${args[0]}'\n(run with --help for usage and examples)\n`);
    }
  });
});

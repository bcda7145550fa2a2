/**
 * Shell completion: `trigger __complete` answers from the commander tree and the user's files; the
 * scripts of `trigger completion` are used in real interactive bash (with bash-completion), zsh and
 * fish in a pseudo-terminal (tmux), typing Tab as a person does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, sandbox, type Sandbox } from '../helpers/cli.js';
import { missing, needs } from '../helpers/needs.js';
import { SHELL_NEEDS, ShellSession, type ShellName } from '../helpers/shell.js';
import { PROFILES, writeCompletionWork } from '../helpers/complete.js';

const shells: Array<[ShellName, 'source' | 'fpath' | undefined]> = [
  ['bash', undefined],
  ['zsh', 'source'],
  ['zsh', 'fpath'],
  ['fish', undefined],
];

/** The shells, by "name install", started side by side: each start waits on compinit or on `trigger completion`. */
const sessions = new Map<string, Promise<ShellSession>>();

let box: Sandbox;
let work: string;
beforeAll(async () => {
  box = sandbox();
  work = writeCompletionWork(box.home);
  for (const [shell, install] of shells) {
    if (missing(...SHELL_NEEDS[shell])) continue;
    const started = ShellSession.start(shell, box, { cwd: work, install });
    started.catch(() => undefined); // awaited, and reported, by its own describe block
    sessions.set(`${shell} ${install}`, started);
  }
  // The profiles are written while the shells start: the first Tab is the first to read them.
  for (const [name, url] of PROFILES) {
    const result = await run(['config', 'set-base-url', url, '--profile', name], { env: box.env });
    expect(result.code, result.stderr).toBe(0);
  }
}, 60_000);
afterAll(async () => {
  for (const started of sessions.values()) (await started.catch(() => undefined))?.close();
  box.cleanup();
});

/** The candidates `trigger __complete` gives for the words (the last one being typed). */
async function ask(...words: string[]): Promise<{ values: string[]; lines: string[]; directive: string }> {
  const result = await run(['__complete', ...words], { env: box.env, cwd: work });
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('');
  const lines = result.stdout.trimEnd().split('\n');
  const directive = lines.pop()!;
  return { values: lines.map((l) => l.split('\t')[0]!), lines, directive };
}

describe('trigger __complete, spawned', () => {
  it('answers from the built binary: commands with their descriptions, then the directive', async () => {
    const answer = await ask('con');
    expect(answer.lines).toEqual(['config\tstore the API key and base URL, per profile']);
    expect(answer.directive).toBe(':plain');
  });

  // The answers to every line typed below, and more, run in-process: test/commands/complete.test.ts
  // and test/in-process/shells-complete.test.ts; the scripts, an unknown shell and the help:
  // test/commands/completion-scripts.test.ts.
});

describe.each(shells)('in a real %s (%s)', (shell, install) => {
  const available = needs(...SHELL_NEEDS[shell]);
  let session: ShellSession;
  beforeAll(async () => {
    if (available) session = await sessions.get(`${shell} ${install}`)!;
  }, 60_000);

  it('completes a command', async () => {
    await session.tab('trigger con', /^\$ trigger config\s*$/m);
  });

  if (install === 'fpath') {
    // Installed as a file in $fpath, zsh loads the function on the first Tab and runs it as loaded on
    // the second. From there on it is the function that the sourced install runs, tried below.
    it('lists subcommands, with their descriptions', async () => {
      const screen = await session.tab('trigger config u', /\buse\b[\s\S]*\bunset\b|\bunset\b[\s\S]*\buse\b/);
      expect(screen).toContain('make a profile the active one');
    });
    return;
  }

  it('completes an option value after =', async () => {
    await session.tab('trigger batch events.csv --format=nd', /^\$ trigger batch events.csv --format=ndjson\s*$/m);
  });

  it('completes a file name where a file goes', async () => {
    await session.tab('trigger batch ev', /^\$ trigger batch events\.csv\s*$/m);
  });

  // A list, each value with its own description where the shell shows them. Other lists (subcommands,
  // profiles) come the same way; what the tool answers for them: test/in-process/shells-complete.test.ts.
  it('lists the triggers of the catalog in the folder (with their names in zsh and fish)', async () => {
    const screen = await session.tab('trigger fire p', /\bpurchase\b[\s\S]*\bpromo\b|\bpromo\b[\s\S]*\bpurchase\b/);
    if (shell !== 'bash') expect(screen).toContain('Purchase completed');
  });

  // fish is where a value could show its option's description (a `complete -l format -d ...`).
  if (shell === 'fish') {
    it("shows each value's own description, not its option's", async () => {
      const formats = await session.tab('trigger batch x --format ', /\bcsv\b[\s\S]*\bndjson\b/);
      expect(formats).not.toContain('input format');
    });
  }
});

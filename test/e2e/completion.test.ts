/**
 * Shell completion: `trigger __complete` answers from the commander tree and the user's files; the
 * scripts of `trigger completion` are used in real interactive bash (with bash-completion), zsh and
 * fish in a pseudo-terminal (tmux), typing Tab as a person does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { SHELL_NEEDS, ShellSession, type ShellName } from '../helpers/shell.js';

let box: Sandbox;
let work: string;
beforeAll(async () => {
  box = sandbox();
  work = path.join(box.home, 'work');
  fs.mkdirSync(work);
  fs.writeFileSync(path.join(work, 'events.csv'), 'triggerId,userId\n');
  fs.writeFileSync(
    path.join(work, 'triggers.json'),
    JSON.stringify({
      triggers: { purchase: { name: 'Purchase completed' }, promo: { name: 'Spring promo' }, signup: { name: 'Signed up' } },
    }),
  );
  for (const [name, url] of [
    ['staging', 'https://staging.example.com'],
    ['prod', 'https://api.example.com'],
  ]) {
    const result = await run(['config', 'set-base-url', url!, '--profile', name!], { env: box.env });
    expect(result.code, result.stderr).toBe(0);
  }
});
afterAll(() => box.cleanup());

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
    expect((await ask('con')).lines).toEqual(['config\tstore the API key and base URL, per profile']);
    expect((await ask('batch', '')).directive).toBe(':files');
    expect((await ask('config', 'use', '')).values).toEqual(['staging', 'prod']);
  });

  // The scripts, an unknown shell and the help run in-process: test/commands/completion-scripts.test.ts.
});

const shells: Array<[ShellName, 'source' | 'fpath' | undefined]> = [
  ['bash', undefined],
  ['zsh', 'source'],
  ['zsh', 'fpath'],
  ['fish', undefined],
];

describe.each(shells)('in a real %s (%s)', (shell, install) => {
  const available = needs(...SHELL_NEEDS[shell]);
  let session: ShellSession;
  beforeAll(async () => {
    if (available) session = await ShellSession.start(shell, box, { cwd: work, install });
  }, 60_000);
  afterAll(() => session?.close());

  it('completes a command', async () => {
    await session.tab('trigger con', /^\$ trigger config\s*$/m);
  });

  it('lists subcommands (with their descriptions in zsh and fish)', async () => {
    const screen = await session.tab('trigger config u', /\buse\b[\s\S]*\bunset\b|\bunset\b[\s\S]*\buse\b/);
    if (shell !== 'bash') expect(screen).toContain('make a profile the active one');
  });

  it('completes a profile name from the config file', async () => {
    await session.tab('trigger fire purchase alice --profile st', /^\$ trigger fire purchase alice --profile staging\s*$/m);
  });

  it('completes an option value after =', async () => {
    await session.tab('trigger batch events.csv --format=nd', /^\$ trigger batch events.csv --format=ndjson\s*$/m);
  });

  it('completes a file name where a file goes', async () => {
    await session.tab('trigger batch ev', /^\$ trigger batch events\.csv\s*$/m);
  });

  it('completes a trigger from the catalog in the folder (with its name in zsh and fish)', async () => {
    await session.tab('trigger fire si', /^\$ trigger fire signup\s*$/m);
    const screen = await session.tab('trigger fire p', /\bpurchase\b[\s\S]*\bpromo\b|\bpromo\b[\s\S]*\bpurchase\b/);
    if (shell !== 'bash') expect(screen).toContain('Purchase completed');
    await session.tab('trigger batch events.csv --trigger pu', /^\$ trigger batch events\.csv --trigger purchase\s*$/m);
  });

  it("shows each value's own description, not its option's", async () => {
    const screen = await session.tab('trigger config use ', /\bstaging\b[\s\S]*\bprod\b|\bprod\b[\s\S]*\bstaging\b/);
    if (shell !== 'bash') expect(screen).toContain('https://staging.example.com');
    const formats = await session.tab('trigger batch x --format ', /\bcsv\b[\s\S]*\bndjson\b/);
    expect(formats).not.toContain('input format');
  });
});

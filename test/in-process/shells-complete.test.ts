/**
 * What the shells are told, in-process: each command line that test/e2e/completion.test.ts types in a
 * real bash, zsh or fish, given to `trigger __complete` as their scripts give it (the words after
 * `trigger`, the last one being typed), in the same folder and with the same config file and catalog.
 * The candidates are those the shells showed or put on the line. The real shells keep what only they
 * show: that a Tab reaches the tool, puts a single answer on the line, lists several with their
 * descriptions, completes after `=`, and lists files where a file goes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATS } from '../../src/batch/formats.js';
import { commandEnv, runCommand, type CommandSandbox } from '../helpers/in-process.js';
import { PROFILES, writeCompletionWork } from '../helpers/complete.js';

let box: CommandSandbox;
let work: string;
beforeAll(async () => {
  box = commandEnv();
  work = writeCompletionWork(box.home);
  for (const [name, url] of PROFILES) {
    const result = await runCommand(['config', 'set-base-url', url, '--profile', name], box.env);
    expect(result.code, result.stderr).toBe(0);
  }
});
afterAll(() => box.cleanup());

/** The answer to the command line as a shell sends it: `trigger a b c` with `c` being typed. */
async function ask(line: string): Promise<{ values: string[]; lines: string[]; directive: string }> {
  const words = line.split(' ').slice(1);
  const result = await runCommand(['__complete', ...words], box.env, work);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('');
  const lines = result.stdout.trimEnd().split('\n');
  const directive = lines.pop()!;
  return { values: lines.map((l) => l.split('\t')[0]!), lines, directive };
}

describe('what each shell is told on a Tab', () => {
  it.each([
    // A single candidate is what the shell puts on the line.
    ['trigger con', ['config']],
    ['trigger fire purchase alice --profile st', ['staging']],
    ['trigger batch events.csv --format=nd', ['--format=ndjson']],
    ['trigger fire si', ['signup']],
    ['trigger batch events.csv --trigger pu', ['purchase']],
    // Several are listed.
    ['trigger config u', ['unset', 'use']],
    ['trigger fire p', ['purchase', 'promo']],
    ['trigger config use ', ['staging', 'prod']],
    ['trigger batch x --format ', [...FORMATS]],
  ])('%j: %j', async (line, expected) => {
    expect((await ask(line)).values).toEqual(expected);
  });

  it('where a file goes, the shell is asked to list files', async () => {
    expect((await ask('trigger batch ev')).directive).toBe(':files');
    expect((await ask('trigger batch ')).directive).toBe(':files');
    expect((await ask('trigger fire si')).directive).toBe(':plain');
  });

  it('each value comes with its own description: the subcommand, the trigger, the profile; a format has none', async () => {
    expect((await ask('trigger config u')).lines.join('\n')).toContain('use\tmake a profile the active one');
    expect((await ask('trigger fire p')).lines).toEqual(['purchase\tPurchase completed', 'promo\tSpring promo']);
    expect((await ask('trigger config use ')).lines).toEqual(['staging\thttps://staging.example.com', 'prod\thttps://api.example.com']);
    const formats = (await ask('trigger batch x --format ')).lines;
    expect(formats.join('\n')).not.toContain('input format');
    expect(formats).toEqual([...FORMATS]);
  });
});

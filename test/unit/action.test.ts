/**
 * The Action's inputs (action/main.ts) as tables: how `args` is split, and what runs with which
 * environment. The Action itself runs as a runner runs it in test/e2e/action.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ActionInputError, inActionWords, plan, splitArgs } from '../../action/main.js';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-action-unit-'));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));
/** A runner's environment: the inputs as INPUT_<NAME>, no config file. */
const job = (inputs: Record<string, string>, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  HOME: home,
  TRIGGER_CONFIG_DIR: path.join(home, 'config'),
  ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value])),
  ...extra,
});
const KEY = 'tk_unit_0123456789abcdef';
const URL = 'https://api.example.com';

describe('the input args, split as a shell would', () => {
  it.each([
    ['--retries 5 --timeout "10"', ['--retries', '5', '--timeout', '10']],
    ["--trigger 'spring promo'", ['--trigger', 'spring promo']],
    ['a\\ b', ['a b']],
    ['"say \\"hi\\""', ['say "hi"']],
    ['--name ""', ['--name', '']],
    ['  \n ', []],
  ])('%j is %j', (text, words) => {
    expect(splitArgs(text)).toEqual(words);
  });

  it('an unclosed quote is an input error that says how to fix it', () => {
    expect(() => splitArgs('--timeout "5')).toThrow(ActionInputError);
    expect(() => splitArgs('--timeout "5')).toThrow('args: a " quote is not closed');
  });
});

describe('what the step runs', () => {
  it('fire: the words after --, the flags before', () => {
    const step = plan(
      job({ 'trigger-id': 'deploy', 'user-id': '-alice', value: '3', args: '--retries 0', 'api-key': KEY, 'base-url': URL }),
    );
    expect(step.mode).toBe('fire');
    expect(step.argv).toEqual(['fire', '--json', '--value', '3', '--retries', '0', '--', 'deploy', '-alice']);
    expect(step.env).toMatchObject({ TRIGGER_API_KEY: KEY, TRIGGER_BASE_URL: URL, GITHUB_ACTIONS: 'true' });
  });

  it('batch: the file after --, with --failed', () => {
    const step = plan(job({ file: 'events.csv', failed: 'failed.csv', 'api-key': KEY, 'base-url': URL }));
    expect(step.argv).toEqual(['batch', '--json', '--failed', 'failed.csv', '--', 'events.csv']);
  });

  it("empty inputs leave the job's TRIGGER_* as they are; given ones win", () => {
    const env = { TRIGGER_API_KEY: 'tk_job_0123456789abcdef', TRIGGER_BASE_URL: 'https://job.example.com' };
    expect(plan(job({ 'trigger-id': 't', 'user-id': 'u', 'api-key': '', 'base-url': '' }, env)).env).toMatchObject(env);
    expect(plan(job({ 'trigger-id': 't', 'user-id': 'u', 'api-key': KEY, 'base-url': URL }, env)).env).toMatchObject({
      TRIGGER_API_KEY: KEY,
      TRIGGER_BASE_URL: URL,
    });
  });

  it.each([
    [{ 'trigger-id': 't', 'user-id': 'u', 'base-url': URL }, 'no API key', 'set the input api-key'],
    [{ 'trigger-id': 't', 'user-id': 'u', 'api-key': KEY }, 'no base URL', 'set the input base-url'],
    [{ 'trigger-id': 't', 'api-key': KEY, 'base-url': URL }, 'the input user-id is empty', 'give trigger-id and user-id'],
    [{ file: 'x.csv', value: '3', 'api-key': KEY, 'base-url': URL }, 'the input value is for one event', "each row's value"],
    [
      { 'trigger-id': 't', 'user-id': 'u', failed: 'f.csv', 'api-key': KEY, 'base-url': URL },
      'the input failed is for a batch',
      'with file',
    ],
  ])('%j: %s', (inputs, message, hint) => {
    let error: unknown;
    try {
      plan(job(inputs));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ActionInputError);
    expect((error as ActionInputError).message).toBe(message);
    expect((error as ActionInputError).hint).toContain(hint);
  });
});

/** The command for the rows not read: it runs as printed too (its --failed is not the input's). */
const REST = 'trigger batch b.csv.gz --after-line 9 --journal b-rest.journal --resume --failed b-rest-failed.csv';

describe("trigger's messages in the Action's words", () => {
  it.each([
    [
      { value: 'abc' },
      'error: --value must be a decimal number such as 9.99, -3 or 1e3; got "abc"',
      'error: the input value must be a decimal number such as 9.99, -3 or 1e3; got "abc"',
    ],
    [
      { 'base-url': 'http://example.com' },
      'error: base URL http://example.com (from TRIGGER_BASE_URL) uses plain http; use https, or pass --allow-http if you must',
      'error: base URL http://example.com (from the input base-url) uses plain http; use https, or pass --allow-http if you must',
    ],
    [
      { 'api-key': 'k' },
      'error: the service refused the event: 401 Unauthorized — check the API key (••••abcd from TRIGGER_API_KEY)',
      'error: the service refused the event: 401 Unauthorized — check the API key (••••abcd from the input api-key)',
    ],
    // Not given as an input: the job's own environment, or a flag in args, keeps its name.
    [{}, 'error: base URL x (from TRIGGER_BASE_URL) ...', 'error: base URL x (from TRIGGER_BASE_URL) ...'],
    [{}, 'error: --value must be a decimal number', 'error: --value must be a decimal number'],
    // The command for the rows not read, and a compressed file's test before it: it runs as printed too.
    [{ failed: 'f.csv' }, `  ...; send them with: ${REST}`, `  ...; send them with: ${REST}`],
    [{ failed: 'f.csv' }, `  ...; send them with: gzip -t b.csv.gz && ${REST}`, `  ...; send them with: gzip -t b.csv.gz && ${REST}`],
  ])('%j: %s', (inputs, cli, action) => {
    expect(inActionWords(cli, job(inputs))).toBe(action);
  });
});

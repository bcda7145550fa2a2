/**
 * trigger __complete, in-process: what the shells' scripts are told for the words typed so far (the
 * last one being typed). The scripts themselves are tried in real shells in test/e2e/completion.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATS } from '../../src/batch/formats.js';
import { commandEnv, runCommand, type CommandSandbox } from '../helpers/in-process.js';
import { PROFILES } from '../helpers/complete.js';

let box: CommandSandbox;
beforeAll(async () => {
  box = commandEnv();
  for (const [name, url] of PROFILES) {
    const result = await runCommand(['config', 'set-base-url', url, '--profile', name], box.env);
    expect(result.code, result.stderr).toBe(0);
  }
});
afterAll(() => box.cleanup());

async function ask(...words: string[]): Promise<{ values: string[]; lines: string[]; directive: string }> {
  const result = await runCommand(['__complete', ...words], box.env);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('');
  const lines = result.stdout.trimEnd().split('\n');
  const directive = lines.pop()!;
  return { values: lines.map((l) => l.split('\t')[0]!), lines, directive };
}

describe('trigger __complete', () => {
  it.each([
    [[''], ['fire', 'batch', 'config', 'status', 'emulator', 'triggers', 'completion']],
    [['ba'], ['batch']],
    [['fire', '--va'], ['--value']],
    [
      ['config', 'set-'],
      ['set-key', 'set-base-url'],
    ],
    [['config', 'get', '--j'], ['--json']],
    [['batch', 'x.csv', '--format', ''], [...FORMATS]],
    [['batch', 'x.csv', '--format=n'], ['--format=ndjson']],
    [
      ['completion', ''],
      ['bash', 'zsh', 'fish'],
    ],
    [
      ['emulator', '--fail-'],
      ['--fail-rate', '--fail-status'],
    ],
    [
      ['config', 'get', ''],
      ['api-key', 'base-url'],
    ],
    [['config', 'unset', 'b'], ['base-url']],
    [
      ['fire', 't', 'u', '--profile', ''],
      ['staging', 'prod'],
    ],
    [['fire', 't', 'u', '--profile=s'], ['--profile=staging']],
    [['config', 'use', 'st'], ['staging']],
    [
      ['config', 'delete', ''],
      ['staging', 'prod'],
    ],
    [['-'], ['--version', '--help']],
    // An option already given is not offered again; `--` ends the options.
    [['fire', 't', 'u', '--json', '--j'], []],
    [['fire', '--', '--'], []],
    // A value typed for an option is not an argument: --value's value has no completion.
    [['fire', 't', 'u', '--value', ''], []],
    // A word after a command's options is an argument, never a subcommand of another level.
    [
      ['config', 'list', '--json', 'use', ''],
      ['--names', '--help'],
    ],
  ])('%j completes to %j', async (words, expected) => {
    expect((await ask(...words)).values).toEqual(expected);
  });

  it('describes commands, options and profiles by themselves', async () => {
    expect((await ask('con')).lines).toEqual(['config\tstore the API key and base URL, per profile']);
    expect((await ask('fire', '--val')).lines).toEqual(['--value\ta decimal number sent with the event, e.g. 9.99']);
    expect((await ask('config', 'use', '')).lines).toEqual(['staging\thttps://staging.example.com', 'prod\thttps://api.example.com']);
    expect((await ask('batch', 'x', '--format', '')).lines).toEqual([...FORMATS]);
  });

  it('marks the active profile', async () => {
    expect((await runCommand(['config', 'use', 'prod'], box.env)).code).toBe(0);
    expect((await ask('config', 'delete', 'p')).lines).toEqual(['prod\thttps://api.example.com (active)']);
  });

  it('asks the shell for file names where a file goes, and only there', async () => {
    expect((await ask('batch', '')).directive).toBe(':files');
    expect((await ask('batch', 'x.csv', '--failed', '')).directive).toBe(':files');
    expect((await ask('batch', 'x.csv', '--journal', '')).directive).toBe(':files');
    expect((await ask('emulator', '--log', '')).directive).toBe(':files');
    expect((await ask('fire', '')).directive).toBe(':plain');
    expect((await ask('config', 'use', '')).directive).toBe(':plain');
  });

  it('offers the options once the arguments are given', async () => {
    const { values } = await ask('fire', 'purchase', 'alice', '');
    expect(values).toContain('--value');
    expect(values).not.toContain('--version');
  });

  it('answers nothing, and no error, when the config file is broken', async () => {
    const broken = commandEnv();
    try {
      fs.mkdirSync(broken.env.TRIGGER_CONFIG_DIR!, { recursive: true });
      fs.writeFileSync(path.join(broken.env.TRIGGER_CONFIG_DIR!, 'config.json'), '{ not json');
      expect(await runCommand(['__complete', 'config', 'use', ''], broken.env)).toEqual({ code: 0, stdout: ':plain\n', stderr: '' });
    } finally {
      broken.cleanup();
    }
  });

  describe("the catalog's triggers", () => {
    let catalog: string;
    beforeAll(() => {
      catalog = path.join(box.home, 'catalog.json');
      fs.writeFileSync(
        catalog,
        JSON.stringify({
          triggers: {
            purchase: { name: 'Purchase completed', value: 'required' },
            signup: { name: 'Signed up', ids: { staging: 'signup-test' } },
            'old-promo': { name: 'Old promo', deprecated: 'use promo-2026' },
          },
        }),
      );
    });
    const withCatalog = () => ({ ...box.env, TRIGGER_CATALOG: catalog });
    const values = async (env: NodeJS.ProcessEnv, ...words: string[]) =>
      (await runCommand(['__complete', ...words], env)).stdout.trimEnd().split('\n');

    it.each([
      [
        ['fire', ''],
        ['purchase\tPurchase completed', 'signup\tSigned up', 'old-promo\tOld promo (deprecated: use promo-2026)'],
      ],
      [['fire', 's'], ['signup\tSigned up']],
      [['batch', 'x.csv', '--trigger', 'p'], ['purchase\tPurchase completed']],
      [['triggers', 'show', 'o'], ['old-promo\tOld promo (deprecated: use promo-2026)']],
      [['triggers', 'edit', 'p'], ['purchase\tPurchase completed']],
      [['triggers', 'remove', 'sig'], ['signup\tSigned up']],
      [['emulator', '--trigger', 'purchase', 's'], ['signup\tSigned up']],
      // The ids of the profile typed, as fire sends them.
      [['fire', '--profile', 'staging', 's'], ['signup-test\tSigned up']],
      [['fire', '--profile=staging', 's'], ['signup-test\tSigned up']],
      // A new trigger's id is not one of the catalog's.
      [['triggers', 'add', ''], []],
      [['fire', '--no-catalog', ''], []],
    ])('%j offers %j', async (words, expected) => {
      expect(await values(withCatalog(), ...words)).toEqual([...expected, ':plain']);
    });

    it('finds triggers.json in the working folder or a parent, as fire does', async () => {
      const sub = path.join(box.home, 'project', 'scripts');
      fs.mkdirSync(sub, { recursive: true });
      fs.copyFileSync(catalog, path.join(box.home, 'project', 'triggers.json'));
      expect((await runCommand(['__complete', 'fire', 'pur'], box.env, sub)).stdout).toBe('purchase\tPurchase completed\n:plain\n');
      expect((await runCommand(['__complete', 'fire', 'pur'], box.env, box.home)).stdout).toBe(':plain\n');
    });

    it('uses TRIGGER_PROFILE, and --catalog names the file', async () => {
      expect(await values({ ...withCatalog(), TRIGGER_PROFILE: 'staging' }, 'fire', 'sig')).toEqual(['signup-test\tSigned up', ':plain']);
      expect(await values(box.env, 'fire', '--catalog', catalog, 'pur')).toEqual(['purchase\tPurchase completed', ':plain']);
    });

    it('offers nothing, and prints no error, for a catalog that cannot be used', async () => {
      const broken = path.join(box.home, 'broken.json');
      fs.writeFileSync(broken, '{"triggers": {"x": {"value": "sometimes"}}}');
      expect(await runCommand(['__complete', 'fire', ''], { ...box.env, TRIGGER_CATALOG: broken })).toEqual({
        code: 0,
        stdout: ':plain\n',
        stderr: '',
      });
    });
  });

  it('never lists a value with a control character, which would break the shells', async () => {
    const odd = commandEnv();
    try {
      fs.mkdirSync(odd.env.TRIGGER_CONFIG_DIR!, { recursive: true });
      fs.writeFileSync(
        path.join(odd.env.TRIGGER_CONFIG_DIR!, 'config.json'),
        JSON.stringify({ profiles: { 'a\nb': {}, ok: { baseUrl: 'https://x.example.com\n\tinjected' } } }),
      );
      expect((await runCommand(['__complete', 'config', 'use', ''], odd.env)).stdout).toBe('ok\thttps://x.example.com injected\n:plain\n');
    } finally {
      odd.cleanup();
    }
  });
});

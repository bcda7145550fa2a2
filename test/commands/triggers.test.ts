/**
 * The catalog in-process: `trigger triggers ...` and what fire and batch do with a catalog, against
 * a real server on 127.0.0.1, each in its own folder (passed as the command's cwd, no chdir).
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

let dir: string;
let file: string;
beforeEach(() => {
  dir = path.join(sandbox.home, 'project');
  fs.mkdirSync(path.join(dir, 'scripts', 'nightly'), { recursive: true });
  file = path.join(dir, 'triggers.json');
});

const CONTRACT = {
  $schema: './node_modules/trigger-cli/triggers.schema.json',
  triggers: {
    purchase: { name: 'Purchase completed', value: 'required', min: 0 },
    signup: { name: 'Signed up', value: 'none', ids: { staging: 'signup-test' } },
    'old-promo': { name: 'Old promo', deprecated: 'use promo-2026' },
  },
};
const writeCatalog = (data: unknown = CONTRACT) => fs.writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data, null, 2));
const trigger = (args: string[], cwd = dir, env = sandbox.env) => runCommand(args, env, cwd);
const sent = () => server.requests.map((r) => r.url);

describe('trigger triggers add / edit / remove', () => {
  it('add creates triggers.json here, naming the schema, and says how to create the trigger in the dashboard', async () => {
    const result = await trigger(['triggers', 'add', 'purchase', '--name', 'Purchase completed', '--value', 'required', '--min', '0']);
    expect(result.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      $schema: './triggers.schema.json', // no node_modules here: a copy beside it (test/commands/catalog-trust.test.ts)
      triggers: { purchase: { name: 'Purchase completed', value: 'required', min: 0 } },
    });
    expect(result.stdout).toContain(`added purchase to ${file} (created)`);
    expect(result.stdout).toMatch(/Triggers page.*Create Trigger[\s\S]*name: Purchase completed[\s\S]*id: purchase[\s\S]*Custom.*Save/);
  });

  it('add from a subfolder writes the catalog found above, keeping every trigger and their order; an existing id is exit 2', async () => {
    writeCatalog();
    const result = await trigger(['triggers', 'add', 'refund', '--name', 'Refund', '--max', '1000'], path.join(dir, 'scripts', 'nightly'));
    expect(result.code).toBe(0);
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof CONTRACT;
    expect(Object.keys(data.triggers)).toEqual(['purchase', 'signup', 'old-promo', 'refund']);
    expect(data.triggers).toMatchObject(CONTRACT.triggers);
    expect(fs.existsSync(path.join(dir, 'scripts', 'nightly', 'triggers.json'))).toBe(false);

    const before = fs.readFileSync(file, 'utf8');
    const again = await trigger(['triggers', 'add', 'refund', '--name', 'Refund']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^error: trigger "refund" is already in .*triggers\.json/);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('an id that looks the same as one there (é as one character, or e and an accent) is exit 2, both spelled; such a catalog is unusable (audit23)', async () => {
    writeCatalog();
    expect((await trigger(['triggers', 'add', 'cafe\u0301', '--name', 'Coffee'])).code).toBe(0);
    const before = fs.readFileSync(file, 'utf8');
    const again = await trigger(['triggers', 'add', 'caf\u00e9', '--name', 'Coffee']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('error: trigger "caf\\u00e9" looks the same as "cafe\\u0301", already in');
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    // Written by hand: the catalog says which two, and nothing is sent with it.
    fs.writeFileSync(file, JSON.stringify({ triggers: { 'caf\u00e9': { name: 'a' }, 'cafe\u0301': { name: 'b' } } }));
    const checked = await trigger(['triggers', 'check']);
    expect(checked.code).toBe(2);
    expect(checked.stdout + checked.stderr).toContain('triggers "caf\\u00e9" and "cafe\\u0301" look the same: keep one');
  });

  it('edit changes fields and the id a profile uses; a change that would give two triggers one id is refused, the file untouched', async () => {
    writeCatalog();
    expect((await trigger(['triggers', 'edit', 'purchase', '--max', '500', '--name', 'Purchase'])).code).toBe(0);
    expect((await trigger(['triggers', 'edit', 'purchase', '--profile', 'staging', '--id', 'purchase-test'])).code).toBe(0);
    expect((await trigger(['triggers', 'edit', 'old-promo', '--clear', 'deprecated'])).code).toBe(0);
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { triggers: Record<string, unknown> };
    expect(data.triggers.purchase).toEqual({ name: 'Purchase', value: 'required', min: 0, max: 500, ids: { staging: 'purchase-test' } });
    expect(data.triggers['old-promo']).toEqual({ name: 'Old promo' });

    const before = fs.readFileSync(file, 'utf8');
    const clash = await trigger(['triggers', 'edit', 'old-promo', '--profile', 'staging', '--id', 'purchase-test']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/have one id, "purchase-test", in profile staging/);
    const inverted = await trigger(['triggers', 'edit', 'purchase', '--min', '600']);
    expect(inverted.code).toBe(2);
    expect(inverted.stderr).toMatch(/"min" \(600\) is above "max" \(500\)/);
    const lossy = await trigger(['triggers', 'edit', 'purchase', '--min', '0.10000000000000000001']);
    expect(lossy.code).toBe(2);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('remove deletes one trigger and keeps the rest; an unknown one is exit 2 with a suggestion', async () => {
    writeCatalog();
    expect((await trigger(['triggers', 'remove', 'signup'])).code).toBe(0);
    expect(Object.keys((JSON.parse(fs.readFileSync(file, 'utf8')) as typeof CONTRACT).triggers)).toEqual(['purchase', 'old-promo']);
    const unknown = await trigger(['triggers', 'remove', 'purchse']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/did you mean purchase\?/);
  });

  it('a catalog that cannot be parsed is named with line and column, and left untouched', async () => {
    writeCatalog('{\n  "triggers": {\n    "a": {},\n  }\n}\n');
    const result = await trigger(['triggers', 'add', 'b', '--name', 'B']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`catalog ${file}:4: not valid JSON`);
    expect(result.stderr).toMatch(/line 4, column 3/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "triggers": {\n    "a": {},\n  }\n}\n');
  });
});

describe('trigger triggers list / show', () => {
  it('list shows each trigger with its id in the active profile, name, value rule and deprecation', async () => {
    writeCatalog();
    const human = await trigger(['triggers', 'list']);
    expect(human.code).toBe(0);
    expect(human.stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^purchase\s+Purchase completed\s+value required \(>= 0\)$/),
      expect.stringMatching(/^signup\s+Signed up\s+value none$/),
      expect.stringMatching(/^old-promo\s+Old promo\s+value optional deprecated: use promo-2026$/),
    ]);
    const staging = await trigger(['triggers', 'list', '--json'], dir, { ...sandbox.env, TRIGGER_PROFILE: 'staging' });
    const data = JSON.parse(staging.stdout) as { profile: string; triggers: Array<{ id: string; key: string }> };
    expect(data.profile).toBe('staging');
    expect(data.triggers.map((t) => t.id)).toEqual(['purchase', 'signup-test', 'old-promo']);
  });

  it("show finds a trigger by its key or by the active profile's id", async () => {
    writeCatalog();
    const result = await trigger(['triggers', 'show', 'signup-test', '--profile', 'staging', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ trigger: { key: 'signup', id: 'signup-test', value: 'none' } });
    expect((await trigger(['triggers', 'show', 'nope'])).code).toBe(2);
  });

  it('with no catalog anywhere: exit 2 saying how to make one', async () => {
    const result = await trigger(['triggers', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no trigger catalog here.*trigger triggers add/);
  });
});

describe('fire with a catalog', () => {
  it('refuses an unknown trigger before sending (exit 2), naming the catalog and the nearest trigger', async () => {
    writeCatalog();
    const result = await trigger(['fire', 'purchse', 'alice', '--value', '1'], path.join(dir, 'scripts'));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`trigger "purchse" is not in the catalog ${file}; did you mean purchase?`);
    const unknown = await trigger(['fire', 'refund now', 'alice']);
    expect(unknown.stderr).toMatch(/is not in the catalog .* — if it is new, add it: trigger triggers add 'refund now' --name <name>/);
    expect(sent()).toEqual([]);
  });

  it('names a long unknown id in its hint rather than printing it whole a second time (audit26 #6)', async () => {
    writeCatalog();
    const result = await trigger(['fire', 'z'.repeat(3000), 'alice']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('if it is new, add it: trigger triggers add <the id, 3,000 characters> --name <name>');
    expect(result.stderr.length).toBeLessThan(600);
    const short = await trigger(['fire', 'z'.repeat(64), 'alice']); // up to 64 characters, whole: a command to paste
    expect(short.stderr).toContain(`trigger triggers add ${'z'.repeat(64)} --name <name>`);
    expect(sent()).toEqual([]);
  });

  it('catches a staging id used against production', async () => {
    writeCatalog();
    const result = await trigger(['fire', 'signup-test', 'alice']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/"signup-test" is the id of signup in profile staging.*did you mean signup\?/);
    expect(sent()).toEqual([]);
  });

  it.each([
    [['purchase', 'alice'], /requires a value/],
    [['purchase', 'alice', '--value', '-0.0000000000000000001'], /below the minimum 0/],
    [['signup', 'alice', '--value', '1'], /takes no value/],
  ])('refuses a value the rules forbid: %j', async (args, message) => {
    writeCatalog();
    const result = await trigger(['fire', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(sent()).toEqual([]);
  });

  it("sends the active profile's id, warns for a deprecated trigger, and --no-catalog ignores the catalog", async () => {
    writeCatalog();
    const staging = { ...sandbox.env, TRIGGER_PROFILE: 'staging' };
    fs.mkdirSync(sandbox.env.TRIGGER_CONFIG_DIR!, { recursive: true });
    fs.writeFileSync(path.join(sandbox.env.TRIGGER_CONFIG_DIR!, 'config.json'), JSON.stringify({ profiles: { staging: {} } }));
    expect((await trigger(['fire', 'signup', 'alice'], dir, staging)).code).toBe(0);
    const old = await trigger(['fire', 'old-promo', 'bob']);
    expect(old.code).toBe(0);
    expect(old.stderr).toContain('warning: trigger old-promo is deprecated: use promo-2026');
    expect((await trigger(['fire', 'anything', 'carol', '--no-catalog'])).code).toBe(0);
    expect((await trigger(['fire', 'anything', 'carol'], dir, { ...sandbox.env, TRIGGER_CATALOG: path.join(dir, 'none.json') })).code).toBe(
      2,
    );
    expect(sent()).toEqual([
      '/v1/triggers/signup-test/users/alice/events',
      '/v1/triggers/old-promo/users/bob/events',
      '/v1/triggers/anything/users/carol/events',
    ]);
  });

  it('a catalog that cannot be used stops fire with exit 2, naming the file and the problem', async () => {
    writeCatalog({ triggers: { purchase: { value: 'requird' } } });
    const result = await trigger(['fire', 'purchase', 'alice', '--value', '1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `catalog ${file}:3: trigger "purchase": "value" must be "required", "optional" or "none", not "requird"`,
    );
    expect(sent()).toEqual([]);
  });
});

describe('batch with a catalog', () => {
  it('invalid rows are kept in the failed file and never sent; the rest go with their profile id; one warning per deprecated trigger', async () => {
    writeCatalog();
    const input = path.join(dir, 'events.csv');
    fs.writeFileSync(
      input,
      'triggerId,userId,value\npurchase,a,1\npurchse,b,2\npurchase,c,100.0000000000000001\npurchase,h,-0.0000000000000000001\nold-promo,d,\nold-promo,e,\nsignup,f,3\nsignup,g,\n',
    );
    const failed = path.join(dir, 'failed.csv');
    const result = await trigger(['batch', input, '--failed', failed, '--concurrency', '1']);
    expect(result.code).toBe(1);
    expect(sent().sort()).toEqual(
      [
        '/v1/triggers/purchase/users/a/events',
        '/v1/triggers/purchase/users/c/events',
        '/v1/triggers/old-promo/users/d/events',
        '/v1/triggers/old-promo/users/e/events',
        '/v1/triggers/signup/users/g/events',
      ].sort(),
    );
    expect(result.stderr.match(/deprecated/g)).toHaveLength(1);
    const kept = fs.readFileSync(failed, 'utf8');
    expect(kept).toMatch(/purchse,b,2,.*did you mean purchase\?/);
    expect(kept).toMatch(/signup,f,3,.*takes no value/);
    expect(kept).toMatch(/purchase,h,-0\.0000000000000000001,.*below the minimum 0/);
    expect(kept.trim().split('\n')).toHaveLength(4);
  });

  it('a journal records the catalog it ran with; --resume refuses a changed one (or none), nothing sent', async () => {
    writeCatalog();
    const input = path.join(dir, 'events.csv');
    fs.writeFileSync(input, 'triggerId,userId,value\npurchase,a,1\nsignup,b,\n');
    const journal = path.join(dir, 'events.journal');
    const args = ['batch', input, '--journal', journal, '--failed', path.join(dir, 'f1.csv')];
    expect((await trigger(args)).code).toBe(0);
    expect(sent()).toHaveLength(2);
    const original = fs.readFileSync(file, 'utf8');

    writeCatalog({ ...CONTRACT, triggers: { ...CONTRACT.triggers, refund: {} } });
    const changed = await trigger([...args.slice(0, -1), path.join(dir, 'f2.csv'), '--resume']);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain(`was made with the catalog ${file}, which has changed since`);
    const without = await trigger([...args.slice(0, -1), path.join(dir, 'f3.csv'), '--resume', '--no-catalog']);
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/was made with the catalog .*, not without one/);

    fs.writeFileSync(file, original);
    const restored = await trigger([...args.slice(0, -1), path.join(dir, 'f4.csv'), '--resume']);
    expect(restored.code).toBe(0);
    expect(sent()).toHaveLength(2);
  });

  it('an unknown --trigger stops the batch before anything is sent', async () => {
    writeCatalog();
    const input = path.join(dir, 'users.txt');
    fs.writeFileSync(input, 'a\nb\n');
    const result = await trigger(['batch', input, '--format', 'lines', '--trigger', 'sigup']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/did you mean signup\?/);
    expect(sent()).toEqual([]);
  });
});

describe('trigger triggers check / import', () => {
  it('check: every bad row as file:line, exit 1; a clean file exit 0; a broken catalog exit 2; annotations in GitHub Actions', async () => {
    writeCatalog();
    const bad = path.join(dir, 'bad.ndjson');
    fs.writeFileSync(
      bad,
      '{"triggerId":"purchase","userId":"a","value":5}\n{"triggerId":"refnd","userId":"b"}\n{"triggerId":"purchase","userId":"c"}\n',
    );
    const good = path.join(dir, 'good.csv');
    fs.writeFileSync(good, 'triggerId,userId\nsignup,a\n');
    const result = await trigger(['triggers', 'check', 'bad.ndjson', 'good.csv']);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^bad\.ndjson:2: trigger "refnd" is not in the catalog/),
      expect.stringMatching(/^bad\.ndjson:3: trigger purchase requires a value/),
    ]);
    expect((await trigger(['triggers', 'check', 'good.csv'])).code).toBe(0);
    expect((await trigger(['triggers', 'check'])).code).toBe(0);

    const gha = await trigger(['triggers', 'check', 'bad.ndjson', '--json'], dir, { ...sandbox.env, GITHUB_ACTIONS: 'true' });
    expect(gha.code).toBe(1);
    expect(JSON.parse(gha.stdout)).toMatchObject({
      ok: false,
      problems: [
        { file: 'bad.ndjson', line: 2 },
        { file: 'bad.ndjson', line: 3 },
      ],
    });
    expect(gha.stderr).toMatch(/^::error file=bad\.ndjson,line=2,title=trigger::trigger "refnd"/m);

    writeCatalog({ triggers: { a: { min: 2, max: 1 } }, extra: 1 });
    const broken = await trigger(['triggers', 'check', 'good.csv']);
    expect(broken.code).toBe(2);
    expect(broken.stdout).toContain(`${file}:8: unknown field "extra"`);
    expect(sent()).toEqual([]);
  });

  it('import adds the distinct triggers of batch files, keeping those already there', async () => {
    writeCatalog();
    fs.writeFileSync(path.join(dir, 'jan.csv'), 'triggerId,userId\nwelcome,a\npurchase,b\nwelcome,c\n');
    fs.writeFileSync(path.join(dir, 'feb.ndjson'), '{"triggerId":"refund","userId":"a"}\n{"triggerId":"signup-test","userId":"b"}\n');
    const result = await trigger(['triggers', 'import', 'jan.csv', 'feb.ndjson'], dir, { ...sandbox.env, TRIGGER_PROFILE: 'staging' });
    expect(result.code).toBe(0);
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof CONTRACT;
    expect(Object.keys(data.triggers)).toEqual(['purchase', 'signup', 'old-promo', 'welcome', 'refund']);
    expect(result.stdout).toContain('imported 2 triggers');
  });
});

describe('a piece of the catalog or of a row echoed in an error is cut and escaped (fix26b)', () => {
  const long = `${'p'.repeat(4_998)}\u202e!`; // 5,000 characters, ending in a direction change

  it.each([
    ['not a profile name', { signup: { ids: { [long]: 'x' } } }],
    ['not a profile name, and its id not a string', { signup: { ids: { [long]: 7 } } }],
  ])('%s: triggers check and fire say its start, its end and its length', async (_what, triggers) => {
    writeCatalog({ triggers });
    const excerpt = `"${'p'.repeat(40)}…${'p'.repeat(10)}\\u202e!" (5,000 characters)`;
    const checked = await trigger(['triggers', 'check']);
    expect(checked.code).toBe(2);
    expect(checked.stdout).toContain(`trigger "signup": "ids": ${excerpt} is not a profile name (up to 64 letters, digits, "-", "_", ".")`);
    const fired = await trigger(['fire', 'signup', 'u']);
    expect(fired.code).toBe(2);
    expect(fired.stderr).toContain(`"ids": ${excerpt} is not a profile name`);
    for (const out of [checked.stdout, checked.stderr, fired.stderr]) {
      expect(out).not.toContain('p'.repeat(41));
      expect(out).not.toContain('\u202e');
      for (const line of out.split('\n')) expect(line.length).toBeLessThan(400);
    }
    expect(server.requests).toHaveLength(0);
  });
  it("a long trigger id not in the catalog is echoed cut in a row's problem", async () => {
    writeCatalog();
    fs.writeFileSync(path.join(dir, 'rows.csv'), `triggerId,userId\n${'x'.repeat(5_000)},u\n`);
    const checked = await trigger(['triggers', 'check', 'rows.csv']);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(`rows.csv:2: trigger "${'x'.repeat(40)}…${'x'.repeat(12)}" (5,000 characters) is not in the catalog`);
    expect(checked.stdout).not.toContain('x'.repeat(41));
  });
});

/**
 * The catalog in-process, where users meet it: exit codes, what reaches a real server on 127.0.0.1,
 * `status`, the emulator started beside a catalog, and `triggers check` in GitHub Actions.
 * test/e2e/catalog.test.ts keeps six processes adding at once, and the built library.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import {
  runInProcess as run,
  startEmulatorInProcess as startEmulatorProcess,
  type InProcessEmulator as EmulatorProcess,
} from '../helpers/in-process.js';
import { startServer, type TestServer } from '../helpers/server.js';

let box: Sandbox;
let server: TestServer;
let project: string;
let emu: EmulatorProcess | undefined;

beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
  project = path.join(box.home, 'project');
  fs.mkdirSync(path.join(project, 'jobs'), { recursive: true });
});
afterEach(async () => {
  await emu?.stop('SIGKILL');
  emu = undefined;
  await server.close();
  box.cleanup();
});

const trigger = (args: string[], cwd = project, env = box.env) => run(args, { env, cwd });

describe('the catalog, end to end', () => {
  it('from `triggers add` to a refused typo: exit 2, one line naming the catalog and the nearest trigger, nothing sent', async () => {
    const added = await trigger(['triggers', 'add', 'purchase', '--name', 'Purchase completed', '--value', 'required', '--min', '0']);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('Create Trigger');

    const typo = await trigger(['fire', 'purchse', 'alice', '--value', '9.99'], path.join(project, 'jobs'));
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr.trim().split('\n')).toEqual([
      `error: trigger "purchse" is not in the catalog ${path.join(project, 'triggers.json')}; did you mean purchase?`,
    ]);
    const ok = await trigger(['fire', 'purchase', 'alice', '--value', '9.99'], path.join(project, 'jobs'));
    expect(ok.code).toBe(0);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/triggers/purchase/users/alice/events']);
    for (const r of [added, typo, ok]) expectNoKey(r);
  });

  it('--json: a refused trigger is one JSON object with exit 2', async () => {
    fs.writeFileSync(path.join(project, 'triggers.json'), '{"triggers": {"purchase": {}}}');
    const result = await trigger(['fire', 'refund', 'alice', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { kind: 'usage' } });
    expect(server.requests).toEqual([]);
  });

  it('status shows the catalog in effect, and one that cannot be used', async () => {
    fs.writeFileSync(path.join(project, 'triggers.json'), '{"triggers": {"a": {}, "b": {}}}');
    const human = await trigger(['status'], path.join(project, 'jobs'));
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`catalog\\s+${path.join(project, 'triggers.json')} \\(2 triggers; found from this folder\\)`));
    const json = await trigger(['status', '--json', '--catalog', 'other.json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      catalog: { path: path.join(project, 'other.json'), source: 'flag', triggers: null },
      problems: [{ message: expect.stringMatching(/cannot read catalog .*other\.json: no such file/) }],
    });
    const none = await trigger(['status', '--no-catalog', '--json']);
    expect(JSON.parse(none.stdout)).toMatchObject({ ok: true, catalog: null });
  });

  it("the emulator started beside a catalog knows exactly its triggers, under the active profile's ids", async () => {
    fs.writeFileSync(
      path.join(project, 'triggers.json'),
      JSON.stringify({ triggers: { purchase: {}, signup: { ids: { staging: 'signup-test' } } } }),
    );
    fs.mkdirSync(box.configDir, { recursive: true });
    fs.writeFileSync(path.join(box.configDir, 'config.json'), JSON.stringify({ profiles: { staging: {} } }));
    const env = { ...box.env, TRIGGER_PROFILE: 'staging' };
    emu = await startEmulatorProcess([], env, project);
    expect(emu.stderr()).toContain('triggers: purchase, signup-test from');
    const toEmu = { ...env, TRIGGER_BASE_URL: emu.url };
    expect((await trigger(['fire', 'signup', 'alice'], project, toEmu)).code).toBe(0);
    const other = await trigger(['fire', 'refund', 'alice', '--no-catalog'], project, toEmu);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/404/);
    await emu.waitForLines(1);
    expect(emu.stdout()).toContain('signup-test');
  });

  it('the emulator beside a catalog with no triggers knows none: every trigger answers 404', async () => {
    fs.writeFileSync(path.join(project, 'triggers.json'), JSON.stringify({ triggers: {} }));
    emu = await startEmulatorProcess([], box.env, project);
    expect(emu.stderr()).toContain('triggers: none from');
    const fired = await trigger(['fire', 'purchase', 'alice', '--no-catalog'], project, { ...box.env, TRIGGER_BASE_URL: emu.url });
    expect(fired.code).toBe(1);
    expect(fired.stderr).toContain('trigger "purchase" not found; this emulator knows no triggers');
  });

  it('triggers check in GitHub Actions: an annotation on each bad line, exit 1', async () => {
    fs.writeFileSync(path.join(project, 'triggers.json'), '{"triggers": {"purchase": {"value": "required", "max": 100}}}');
    fs.writeFileSync(
      path.join(project, 'backfill.csv'),
      'triggerId,userId,value\npurchase,a,5\npurchase,b,100.0000000000000001\nrefund,c,1\n',
    );
    const result = await trigger(['triggers', 'check', 'backfill.csv'], project, { ...box.env, GITHUB_ACTIONS: 'true' });
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^backfill\.csv:3: value 100\.0000000000000001 is above the maximum 100 of trigger purchase/),
      expect.stringMatching(/^backfill\.csv:4: trigger "refund" is not in the catalog/),
    ]);
    expect(result.stderr).toMatch(/^::error file=backfill\.csv,line=3,title=trigger::value 100\.0000000000000001 is above/m);
    expect(result.stderr).toMatch(/^::error file=backfill\.csv,line=4,title=trigger::/m);
    expect(server.requests).toEqual([]);
  });
});

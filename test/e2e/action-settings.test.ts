/**
 * The GitHub Action on a self-hosted runner (issue 28 items 13 and 14), run as a runner runs it
 * (test/helpers/action.ts: the committed bundle in a plain clone, INPUT_* variables) against a real
 * server on 127.0.0.1:
 * - it never reads settings stored on the runner: only its inputs and the job's TRIGGER_* count, and
 *   its hints name its inputs and the secret, never `trigger config`;
 * - every command it prints for a person runs as printed, and its log shows the rows that were not
 *   accepted with the lines the CLI prints.
 * The Action runs as a process, as a runner runs it; the CLI that stores the runner's settings, prints
 * the ✖ lines to compare with and follows the printed commands runs in-process (main() with the same
 * argv, environment and folder): a spawned Node for each cost a second and showed nothing more.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import { runBuilt } from '../helpers/built-in-process.js';
import { json, killAfter, startServer, type TestServer } from '../helpers/server.js';
import { cloneWorkingTree, runAction } from '../helpers/action.js';
import { printedCommand } from '../helpers/batch.js';

/** The key `trigger config set-key` stored in the runner's HOME: it must never be sent. */
const STORED_KEY = 'tk_stored_on_runner_9f8e7d6c5b4a';

let server: TestServer;
let box: Sandbox;
let clone: { dir: string; cleanup: () => void };
/** Users the service refuses (422). */
let refused = new Set<string>();
/** After this many requests the service stops answering (a job cancelled meanwhile). */
let answerOnly = Infinity;
beforeAll(() => {
  clone = cloneWorkingTree();
});
afterAll(() => clone.cleanup());
beforeEach(async () => {
  refused = new Set();
  answerOnly = Infinity;
  server = await startServer((req, res, index) => {
    if (index >= answerOnly) return;
    if (req.headers.authorization !== `Bearer ${TEST_KEY}`) return json(res, 401, { error: 'invalid API key' });
    const user = /\/users\/([^/]+)\/events/.exec(req.url)?.[1] ?? '';
    if (refused.has(user)) json(res, 422, { error: 'value out of range' }, { 'x-request-id': `req-${user}` });
    else json(res, 200, { success: true });
  });
  // A self-hosted runner: HOME and XDG_CONFIG_HOME of a user who ran `trigger config`, no TRIGGER_CONFIG_DIR.
  box = sandbox();
  delete box.env.TRIGGER_CONFIG_DIR;
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

/** The CLI as a person on the runner or a job's next step runs it (in-process). */
const run = (args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }) => runBuilt(args, options);

/**
 * Stores a key and the base URL on the "runner" as a person would, with the CLI. (The key as an
 * argument: piped in, as people do, in test/e2e/config.test.ts.)
 */
async function storeSettings(env: NodeJS.ProcessEnv = box.env): Promise<string> {
  const key = await run(['config', 'set-key', STORED_KEY, '--insecure-storage'], { env });
  expect(key.code).toBe(0);
  const url = await run(['config', 'set-base-url', server.url], { env });
  expect(url.code).toBe(0);
  const file = path.join(env.TRIGGER_CONFIG_DIR ?? path.join(box.home, '.config', 'trigger'), 'config.json');
  expect(fs.readFileSync(file, 'utf8')).toContain(STORED_KEY);
  return file;
}

const action = (inputs: Record<string, string>, env: NodeJS.ProcessEnv = box.env, workspace?: string) =>
  runAction(inputs, { env, actionDir: clone.dir, ...(workspace ? { workspace } : {}) });
const noStoredKey = (result: { stdout: string; stderr: string; outputFile: string }) => {
  for (const text of [result.stdout, result.stderr, result.outputFile])
    if (text.includes(STORED_KEY)) throw new Error('the stored key was shown');
};

describe('the Action never reads settings stored on the runner', () => {
  it('api-key empty and a key stored with trigger config set-key: not used; the error names the input and the secret', async () => {
    const file = await storeSettings();
    const stored = fs.readFileSync(file, 'utf8');
    const result = await action({ 'api-key': '', 'base-url': '', 'trigger-id': 'deploy', 'user-id': 'alice' });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(result.stderr).toContain(
      'error: no API key — set the input api-key to a secret (api-key: ${{ secrets.TRIGGER_API_KEY }}), or TRIGGER_API_KEY in the env of the job',
    );
    expect(result.stderr).not.toContain('trigger config');
    expect(result.outputs.ok).toBe('false');
    noStoredKey(result);
    expect(fs.readFileSync(file, 'utf8')).toBe(stored); // nothing stored was changed either
  }, 120_000);

  it('not with a batch either, nor when the job points TRIGGER_CONFIG_DIR at stored settings', async () => {
    const env = { ...box.env, TRIGGER_CONFIG_DIR: path.join(box.home, 'stored') };
    await storeSettings(env);
    const events = path.join(box.home, 'events.csv');
    fs.writeFileSync(events, 'triggerId,userId\nt,a\n');
    const result = await action({ 'base-url': server.url, file: events }, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: no API key — set the input api-key to a secret');
    expect(server.requests).toHaveLength(0);
    noStoredKey(result);
  }, 120_000);

  it("only the inputs and the job's environment count: the stored base URL is not used either", async () => {
    await storeSettings();
    const result = await action({ 'api-key': TEST_KEY, 'trigger-id': 'deploy', 'user-id': 'alice' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: no base URL — set the input base-url');
    expect(server.requests).toHaveLength(0);
    const fromJob = await action(
      { 'trigger-id': 'deploy', 'user-id': 'alice' },
      { ...box.env, TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url },
    );
    expect(fromJob.code).toBe(0);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TEST_KEY}`]);
    noStoredKey(fromJob);
  }, 120_000);

  it('a profile the job names (TRIGGER_PROFILE) is not looked for; --profile in args is refused', async () => {
    await storeSettings();
    const env = { ...box.env, TRIGGER_PROFILE: 'staging', TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url };
    const result = await action({ 'trigger-id': 'deploy', 'user-id': 'alice' }, env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const flagged = await action({
      'api-key': TEST_KEY,
      'base-url': server.url,
      'trigger-id': 'deploy',
      'user-id': 'bob',
      args: '--profile default',
    });
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toContain('error: args: --profile names settings stored on the runner, which the Action never reads');
    expect(server.requests).toHaveLength(1);
  }, 120_000);

  it('a refused key: the hint names the input api-key and the secret, not trigger config set-key', async () => {
    const wrong = 'tk_wrong_key_0000111122223333';
    const result = await action({ 'api-key': wrong, 'base-url': server.url, 'trigger-id': 'deploy', 'user-id': 'alice' });
    expect(result.code).not.toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toContain('from the input api-key');
    expect(result.stderr).toContain('set a new one in the secret given to the input api-key');
    expect(result.stderr).not.toContain('trigger config');
    expectNoKey(result, wrong);
  }, 120_000);
});

describe('what the Action prints for a person', () => {
  it('the replay command runs as printed, twice, and the log shows the rows that were not accepted as the CLI does', async () => {
    refused = new Set(['u2', 'u5']);
    const workspace = path.join(box.home, 'work');
    fs.mkdirSync(workspace);
    const rows = ['t,u1,1', 't,u2,2', 't,u3,abc', 't,u4,4', 't,u5,5', ',u6,6'];
    fs.writeFileSync(path.join(workspace, 'events.csv'), `triggerId,userId,value\n${rows.join('\n')}\n`);
    const failed = path.join(workspace, 'failed.csv');
    const result = await action(
      { 'api-key': TEST_KEY, 'base-url': server.url, file: 'events.csv', failed, args: '--concurrency 1 --retries 0' },
      box.env,
      workspace,
    );
    expect(result.code).toBe(1);
    expect(result.outputs).toMatchObject({ ok: 'false', accepted: '2', failed: '2', invalid: '2' });

    // The same ✖ lines the CLI prints for the same input.
    const cliEnv = { ...box.env, TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url, TRIGGER_CONFIG_DIR: path.join(box.home, 'cli') };
    const cli = await run(
      ['batch', 'events.csv', '--failed', path.join(workspace, 'cli-failed.csv'), '--concurrency', '1', '--retries', '0'],
      {
        env: cliEnv,
        cwd: workspace,
      },
    );
    const marks = (text: string) => text.split('\n').filter((line) => line.startsWith('✖ line'));
    expect(marks(cli.stderr)).toHaveLength(4);
    expect(marks(result.stderr)).toEqual(marks(cli.stderr));
    expect(result.stderr).toMatch(/^✖ line \d+: the service refused the event: 422 .* \(request id req-\w+\)$/m); // fix26c noticed
    expect(result.stderr).toMatch(/^✖ line 4: invalid, not sent: /m);
    expect(result.stderr).toMatch(/^✖ line 7: invalid, not sent: /m);

    // The command, exactly as printed: it names --failed (not "the input failed") and runs.
    const command = printedCommand(result.stderr);
    expect(command).toBeDefined();
    expect(result.stderr).not.toMatch(/with: trigger batch .*the input/);
    expect(command).toEqual([
      'batch',
      failed,
      '--failed',
      path.join(workspace, 'failed-2.csv'),
      '--journal',
      path.join(workspace, 'failed-2.csv.journal'),
      '--resume',
    ]);
    refused = new Set();
    const sent = server.requests.length;
    const replay = await run(command!, { env: cliEnv, cwd: workspace });
    expect(replay.code).toBe(1); // the two invalid rows are kept again, to be fixed by hand
    expect(server.requests.length).toBe(sent + 2);
    const again = await run(command!, { env: cliEnv, cwd: workspace });
    expect(again.code).toBe(1);
    expect(server.requests.length).toBe(sent + 2); // a second run sends nothing
    expectNoKey(result);
  }, 120_000);

  it('more than 20 rows not accepted: 20 lines, then how many more, as the CLI says', async () => {
    const workspace = path.join(box.home, 'work');
    fs.mkdirSync(workspace);
    const rows = Array.from({ length: 25 }, (_, i) => `t,u${i},x${i}`);
    fs.writeFileSync(path.join(workspace, 'events.csv'), `triggerId,userId,value\n${rows.join('\n')}\n`);
    const result = await action({ 'api-key': TEST_KEY, 'base-url': server.url, file: 'events.csv' }, box.env, workspace);
    expect(result.code).toBe(1);
    expect(result.outputs).toMatchObject({ invalid: '25' });
    expect(result.stderr.split('\n').filter((line) => line.startsWith('✖ line'))).toHaveLength(20);
    expect(result.stderr).toContain('  … 5 more not shown');
    // Without the input failed the rows go to the default file in the workspace, and the command runs from there.
    const command = printedCommand(result.stderr);
    expect(command?.[1]).toMatch(/^trigger-failed-\d{4}-\d\d-\d\d-\d{6}\.csv$/);
    expect(fs.existsSync(path.join(workspace, command![1]!))).toBe(true);
    expect(command).toContain('--journal');
  }, 120_000);

  it('a cancelled job (SIGINT, then SIGTERM): the command it prints for the rows not sent runs as printed', async () => {
    answerOnly = 2;
    const workspace = path.join(box.home, 'work');
    fs.mkdirSync(workspace);
    fs.writeFileSync(
      path.join(workspace, 'events.csv'),
      `triggerId,userId\n${Array.from({ length: 20 }, (_, i) => `t,u${i}`).join('\n')}\n`,
    );
    const result = await runAction(
      { 'api-key': TEST_KEY, 'base-url': server.url, file: 'events.csv', failed: 'failed.csv', args: '--concurrency 1 --retries 0' },
      { env: box.env, actionDir: clone.dir, workspace, onSpawn: killAfter(server, 3, 'SIGINT', 'SIGTERM') },
    );
    expect(result.code).toBe(130);
    expect(result.outputs.accepted).toBe('2');
    const command = printedCommand(result.stderr);
    expect(command).toEqual(['batch', 'failed.csv', '--failed', 'failed-2.csv', '--journal', 'failed-2.csv.journal', '--resume']);
    answerOnly = Infinity;
    const before = server.requests.length;
    const cliEnv = { ...box.env, TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url, TRIGGER_CONFIG_DIR: path.join(box.home, 'cli') };
    const replay = await run(command!, { env: cliEnv, cwd: workspace });
    // The row in flight at the second signal is of unknown outcome: kept, not sent again.
    expect(replay.code).toBe(1);
    expect(replay.stdout).toMatch(/17 accepted · 0 failed · 0 invalid · 1 outcome unknown of 18 rows/);
    expect(server.requests.length).toBe(before + 17);
    expect((await run(command!, { env: cliEnv, cwd: workspace })).code).toBe(1);
    expect(server.requests.length).toBe(before + 17);
    const users = server.requests.map((r) => /\/users\/([^/]+)\//.exec(r.url)![1]);
    expect(new Set(users).size).toBe(users.length); // no user twice
  }, 120_000);
});

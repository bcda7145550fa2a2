/**
 * The GitHub Action, run as a runner runs it (test/helpers/action.ts): node on the committed bundle in
 * a plain git clone, INPUT_* variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, against a real
 * local server: one event, a cancelled job, SIGUSR1, and that the bundle matches its source. The
 * inputs, batches and errors run in-process on that source: test/in-process/action.test.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runBuilt } from '../helpers/built-in-process.js';
import { ROOT, TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import { freePort, json, killAfter, startServer, usr1WhileHeld, type TestServer } from '../helpers/server.js';
import { cloneWorkingTree, loadAction, parseOutputFile, runAction } from '../helpers/action.js';

let server: TestServer;
let box: Sandbox;
let clone: { dir: string; cleanup: () => void };
beforeAll(() => {
  clone = cloneWorkingTree();
});
afterAll(() => clone.cleanup());
beforeEach(async () => {
  server = await startServer((_req, res) => json(res, 200, { success: true }, { 'x-request-id': 'req_42' }));
  box = sandbox();
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const base = () => ({ 'api-key': TEST_KEY, 'base-url': server.url });
const action = (inputs: Record<string, string>, env: NodeJS.ProcessEnv = box.env) => runAction(inputs, { env, actionDir: clone.dir });
/** A result line without its duration, which differs from run to run. */
const steady = (line: string) => line.replace(/\d+(\.\d+)? ?m?s\b/, '<time>');

describe('the GitHub Action', () => {
  it('runs from a plain clone with nothing installed', () => {
    expect(fs.existsSync(path.join(clone.dir, 'node_modules'))).toBe(false);
    expect(fs.existsSync(path.join(clone.dir, 'dist'))).toBe(false);
    const spec = loadAction(clone.dir);
    expect(spec.runs).toEqual({ using: 'node24', main: 'action/dist/index.cjs' });
    expect(fs.existsSync(path.join(clone.dir, spec.runs.main))).toBe(true);
  });

  it('fires one event: outputs ok, status and request-id, and the step log shows the CLI result line', async () => {
    const result = await action({
      ...base(),
      'trigger-id': 'deploy',
      'user-id': 'alice',
      value: '9.99',
      args: '--retries 0 --timeout "5"',
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.outputs).toEqual({ ok: 'true', status: '200', 'request-id': 'req_42' });
    expect(server.requests.map((r) => `${r.url} ${r.body} ${r.headers.authorization}`)).toEqual([
      `/v1/triggers/deploy/users/alice/events {"value":9.99} Bearer ${TEST_KEY}`,
    ]);
    // The CLI's line for the same event: the built main() in this process (only the Action's step needs one).
    const cli = await runBuilt(['fire', 'deploy', 'alice', '--value', '9.99'], {
      env: { ...box.env, TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url },
    });
    expect(cli.code).toBe(0);
    expect(result.stdout).toContain('deploy · alice · value 9.99 · 200 OK');
    expect(steady(result.stdout)).toBe(steady(cli.stdout));
    expect(result.masks).toEqual([`::add-mask::${TEST_KEY}`]); // first, before anything could print it (audit28)
    expectNoKey(result);
    expect(result.outputFile).not.toContain(TEST_KEY);
  });

  it('a cancelled job (SIGINT, then SIGTERM, as a runner sends) keeps the unsent rows and sets the outputs', async () => {
    // The first answers come at once; then the server stops answering, so the rows after them are in flight or waiting.
    server.handle((_req, res, index) => {
      if (index < 2) json(res, 200, { success: true });
    });
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, `triggerId,userId\n${Array.from({ length: 20 }, (_, i) => `t,u${i}`).join('\n')}\n`);
    const failed = path.join(box.home, 'failed.csv');
    const result = await runAction(
      { ...base(), file, failed, args: '--concurrency 1 --retries 0' },
      { env: box.env, actionDir: clone.dir, onSpawn: killAfter(server, 3, 'SIGINT', 'SIGTERM') },
    );
    expect(result.code).toBe(130);
    expect(result.outputs.ok).toBe('false');
    expect(result.outputs.accepted).toBe('2');
    const kept = fs.readFileSync(failed, 'utf8').trim().split('\n');
    expect(kept).toHaveLength(1 + 18);
    expectNoKey(result);
  });

  it('kill -USR1 on a running step opens no inspector: the key in its environment stays in the process', async () => {
    const port = await freePort();
    const held = usr1WhileHeld(server, port);
    const result = await runAction(
      { ...base(), 'trigger-id': 'deploy', 'user-id': 'alice' },
      { env: { ...box.env, NODE_OPTIONS: `--inspect-port=${port}` }, actionDir: clone.dir, onSpawn: held.onSpawn },
    );
    expect(await held.inspectorOpen()).toBe(false);
    expect(result.code).toBe(0);
    expect(result.outputs.ok).toBe('true');
  });

  it('declares the inputs and outputs the contract names', () => {
    const spec = loadAction();
    expect(Object.keys(spec.inputs).sort()).toEqual(['api-key', 'args', 'base-url', 'failed', 'file', 'trigger-id', 'user-id', 'value']);
    expect(Object.keys(spec.outputs).sort()).toEqual(['accepted', 'failed', 'invalid', 'ok', 'request-id', 'status']);
    expect(Object.values(spec.inputs).some((i) => i.required)).toBe(false);
    expect(parseOutputFile('a=1\nb<<EOF\nx\ny\nEOF\n')).toEqual({ a: '1', b: 'x\ny' });
  });

  it('the CI check fails when the committed bundle differs from the source', () => {
    const check = (dir?: string) =>
      spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-action.mjs'), '--check', ...(dir ? [dir] : [])], {
        encoding: 'utf8',
      });
    const current = check();
    expect(current.stderr).toBe('');
    expect(current.status).toBe(0);
    const stale = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-action-stale-'));
    try {
      fs.cpSync(path.join(ROOT, 'action', 'dist'), stale, { recursive: true });
      fs.appendFileSync(path.join(stale, 'index.cjs'), '// edited by hand\n');
      const result = check(stale);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain("error: the Action's bundle does not match its sources");
      expect(result.stderr).toContain('npm run build:action');
    } finally {
      fs.rmSync(stale, { recursive: true, force: true });
    }
  });
});

/**
 * The GitHub Action (action.yml), run offline by test/helpers/action.ts against a real local server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, sandbox, type Sandbox } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { loadAction, parseOutputFile, runAction } from '../helpers/action.js';

let server: TestServer;
let box: Sandbox;
beforeEach(async () => {
  server = await startServer((_req, res) => json(res, 200, { success: true }, { 'x-request-id': 'req_42' }));
  box = sandbox();
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const base = () => ({ 'api-key': TEST_KEY, 'base-url': server.url });

describe('the GitHub Action', () => {
  it('fires one event: outputs ok, status and request-id; the key goes through the environment', async () => {
    const result = await runAction(
      { ...base(), 'trigger-id': 'deploy', 'user-id': 'alice', value: '9.99', args: '--retries 0 --timeout "5"' },
      box.env,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ ok: 'true', status: '200', 'request-id': 'req_42' });
    expect(server.requests.map((r) => `${r.url} ${r.body} ${r.headers.authorization}`)).toEqual([
      `/v1/triggers/deploy/users/alice/events {"value":9.99} Bearer ${TEST_KEY}`,
    ]);
    // The key is never on a command line: the only place it appears in action.yml is an env entry.
    const action = fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'action.yml'), 'utf8');
    expect(action.split('\n').filter((l) => l.includes('inputs.api-key'))).toEqual(['        TRIGGER_API_KEY: ${{ inputs.api-key }}']);
  });

  it('a refused event fails the step, with the outputs set and one annotation', async () => {
    server.handle((_req, res) => json(res, 404, { error: 'no such trigger' }, { 'x-request-id': 'req_404' }));
    const result = await runAction({ ...base(), 'trigger-id': 'nope', 'user-id': 'alice' }, box.env);
    expect(result.code).toBe(1);
    expect(result.outputs).toMatchObject({ ok: 'false', status: '404', 'request-id': 'req_404' });
    expect(result.stderr.split('\n').filter((l) => l.startsWith('::error'))).toHaveLength(1);
    expect(result.stderr).not.toContain(TEST_KEY);
  });

  it('sends a batch: outputs accepted, failed and invalid; the failed file and the step summary', async () => {
    server.handle((req, res) => (req.url.includes('/users/bad/') ? json(res, 500, { error: 'boom' }) : json(res, 200, { success: true })));
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, 'triggerId,userId,value\nt,a,1\nt,bad,2\nt,c,x\nt,d,\n');
    const failed = path.join(box.home, 'failed.csv');
    const result = await runAction({ ...base(), file, failed, args: '--concurrency 2' }, box.env);
    expect(result.code).toBe(1);
    expect(result.outputs).toMatchObject({ ok: 'false', accepted: '2', failed: '1', invalid: '1' });
    expect(fs.readFileSync(failed, 'utf8').trim().split('\n')).toHaveLength(3);
    expect(result.summary).toContain('| accepted | 2 |');
    expect(server.requests).toHaveLength(3);
  });

  it('says what is missing when neither an event nor a file is given', async () => {
    const result = await runAction(base(), box.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('give trigger-id and user-id to fire one event, or file to send a batch');
    expect(server.requests).toHaveLength(0);
  });

  it('declares the inputs and outputs the contract names', () => {
    const action = loadAction();
    expect(Object.keys(action.inputs).sort()).toEqual(['api-key', 'args', 'base-url', 'failed', 'file', 'trigger-id', 'user-id', 'value']);
    expect(Object.keys(action.outputs).sort()).toEqual(['accepted', 'failed', 'invalid', 'ok', 'request-id', 'status']);
    expect(parseOutputFile('a=1\nb<<EOF\nx\ny\nEOF\n')).toEqual({ a: '1', b: 'x\ny' });
  });
});

/**
 * The GitHub Action's step in-process (action/main.ts run(), test/helpers/in-process.ts): INPUT_*
 * variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, against a real local server.
 * test/e2e/action.test.ts runs the committed bundle as a runner does, from a plain clone: one event,
 * a cancelled job, SIGUSR1, and the check that the bundle matches this source.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { Captured, runActionInProcess, runCommand } from '../helpers/in-process.js';
import { VERSION } from '../../src/version.js';

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
const action = (inputs: Record<string, string>, env: NodeJS.ProcessEnv = box.env) => runActionInProcess(inputs, { env });

describe('the GitHub Action', () => {
  it('sends a user id that starts with a dash as the user id, not as a flag', async () => {
    const result = await action({ ...base(), 'trigger-id': 'deploy', 'user-id': '-alice', value: '-3' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => `${r.url} ${r.body}`)).toEqual(['/v1/triggers/deploy/users/-alice/events {"value":-3}']);
  });

  it('keeps the digits of a value in the result line', async () => {
    const result = await action({ ...base(), 'trigger-id': 'deploy', 'user-id': 'bob', value: '12345678901234567890.5' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('value 12345678901234567890.5 ·');
  });

  it('a refused event fails the step, with the outputs set, the error line and one annotation', async () => {
    server.handle((_req, res) => json(res, 404, { error: 'no such trigger' }, { 'x-request-id': 'req_404' }));
    const result = await action({ ...base(), 'trigger-id': 'nope', 'user-id': 'alice' });
    expect(result.code).toBe(1);
    expect(result.outputs).toEqual({ ok: 'false', status: '404', 'request-id': 'req_404' });
    expect(result.stderr).toMatch(/^error: /m);
    expect(result.stderr.split('\n').filter((l) => l.startsWith('::error'))).toHaveLength(1);
    expect(result.stdout).toBe('');
    expectNoKey(result);
  });

  it("a batch's ✖ lines are the CLI's: a refusal's and a 500's request id, the 500's outcome unknown (fix26c noticed)", async () => {
    server.handle((req, res) => {
      const user = /\/users\/(\w+)\//.exec(req.url)?.[1] ?? '';
      if (user === 'a') json(res, 200, { success: true });
      else json(res, user === 'bad' ? 500 : 422, { error: 'no' }, { 'x-request-id': `req-${user}` });
    });
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, 'triggerId,userId\nt,a\nt,bad\nt,refused\n');
    const result = await action({ ...base(), file, args: '--concurrency 1 --retries 0' });
    const env = { ...box.env, TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url };
    const cli = await runCommand(['batch', file, '--concurrency', '1', '--retries', '0', '--failed', path.join(box.home, 'f.csv')], env);
    const marks = (text: string) => text.split('\n').filter((line) => line.startsWith('✖ line'));
    expect(marks(result.stderr)).toEqual(
      [
        'line 3: outcome unknown: no definitive answer: 500 Internal Server Error: no (request id req-bad)',
        'line 4: the service refused the event: 422 Unprocessable Content: no (request id req-refused)',
      ].map((line) => `✖ ${line}`),
    );
    expect(marks(result.stderr)).toEqual(marks(cli.stderr));
  });

  it('sends a batch: outputs accepted, failed and invalid; the failed file and the step summary', async () => {
    server.handle((req, res) => (req.url.includes('/users/bad/') ? json(res, 500, { error: 'boom' }) : json(res, 200, { success: true })));
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, 'triggerId,userId,value\nt,a,1\nt,bad,2\nt,c,x\nt,d,\n');
    const failed = path.join(box.home, 'failed.csv');
    const result = await action({ ...base(), file, failed, args: '--concurrency 2 --retries 0' });
    expect(result.code).toBe(1);
    expect(result.outputs).toEqual({ ok: 'false', accepted: '2', failed: '1', invalid: '1' });
    expect(fs.readFileSync(failed, 'utf8').trim().split('\n')).toHaveLength(3);
    expect(result.summary).toContain('| accepted | 2 |');
    expect(server.requests).toHaveLength(3);
    expectNoKey(result);
  });

  it('a bad input is named as the input, in the log and the annotation', async () => {
    const result = await action({ ...base(), 'trigger-id': 'deploy', 'user-id': 'alice', value: 'abc' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: the input value must be a decimal number');
    expect(result.stderr).toMatch(/^::error title=trigger::the input value must be a decimal number/m);
    expect(server.requests).toHaveLength(0);
  });

  it("an input left empty never hides the job's own TRIGGER_* environment", async () => {
    const env = { ...box.env, TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url };
    const result = await action({ 'api-key': '', 'base-url': '', 'trigger-id': 'deploy', 'user-id': 'alice' }, env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.outputs.ok).toBe('true');
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TEST_KEY}`]);
  });

  it('an input that is given wins over the job environment', async () => {
    const env = { ...box.env, TRIGGER_API_KEY: 'tk_job_level_key_0000', TRIGGER_BASE_URL: 'http://127.0.0.1:9/nothing-here' };
    const result = await action({ ...base(), 'trigger-id': 'deploy', 'user-id': 'alice' }, env);
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TEST_KEY}`]);
  });

  it.each([
    [{ 'base-url': 'SERVER' }, 'no API key', 'set the input api-key to a secret'],
    [{ 'api-key': TEST_KEY }, 'no base URL', 'set the input base-url'],
  ])('a missing setting is named by its input: %j', async (given, message, hint) => {
    const inputs = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, v === 'SERVER' ? server.url : v]));
    const result = await action({ ...inputs, 'trigger-id': 'deploy', 'user-id': 'alice' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: ${message} — ${hint}`);
    expect(result.stderr).not.toContain('trigger config');
    expect(result.stderr).toContain('::error title=trigger::');
    expect(result.outputs.ok).toBe('false');
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [{}, 'error: no event to send — give trigger-id and user-id to fire one event, or file to send a batch'],
    [{ 'trigger-id': 'deploy' }, 'error: the input user-id is empty'],
    [{ 'trigger-id': 'deploy', 'user-id': 'a', file: 'x.csv' }, 'error: the inputs file and trigger-id/user-id were both given'],
    [{ 'trigger-id': 'deploy', 'user-id': 'a', args: '--timeout "5' }, 'error: args: a " quote is not closed'],
  ])('bad inputs %j: exit 2, one clear line, nothing sent', async (given, line) => {
    const result = await action({ ...base(), ...given });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(line);
    expect(server.requests).toHaveLength(0);
  });

  it('a flag trigger does not know in args fails the step with an annotation', async () => {
    const result = await action({ ...base(), 'trigger-id': 'deploy', 'user-id': 'a', args: '--bogus' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: unknown option '--bogus'");
    expect(result.stderr.split('\n').filter((l) => l.startsWith('::error'))).toEqual(["::error title=trigger::unknown option '--bogus'"]);
    expect(server.requests).toHaveLength(0);
  });

  // audit24 finding 7: exit 70 and a raw "ENOSPC: ..." line, so "Re-run failed jobs" sent the accepted event again.
  it.each([
    ['a folder', 'it is a folder', () => box.home],
    ['a full disk', 'no space left on the disk', () => '/dev/full'],
  ])('GITHUB_OUTPUT that cannot be written (%s) after an accepted event: a warning, and the step passes', async (_label, why, output) => {
    if (!fs.existsSync(output())) return; // no /dev/full here
    const result = await runActionInProcess({ ...base(), 'trigger-id': 'deploy', 'user-id': 'once' }, { env: box.env, output: output() });
    const line = `the event was accepted, but the step's outputs could not be written to GITHUB_OUTPUT (${why}); a re-run of this job would send it again`;
    expect({ code: result.code, requests: server.requests.length }).toEqual({ code: 0, requests: 1 });
    expect(result.stderr).toBe(`warning: ${line}\n::warning title=trigger::${line}\n`);
    expect(result.stdout).toMatch(/^✔ deploy · once /);
  });

  it('a batch whose GITHUB_OUTPUT cannot be written: the rows were sent as summarized, and its own exit code', async () => {
    server.handle((req, res) => (req.url.includes('/users/bad/') ? json(res, 404, { error: 'no' }) : json(res, 200, { success: true })));
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, 'triggerId,userId\nt,a\nt,bad\n');
    const result = await runActionInProcess({ ...base(), file }, { env: box.env, output: box.home });
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(2);
    const line =
      "the batch's rows were sent as summarized above, but the step's outputs could not be written to GITHUB_OUTPUT (it is a folder)";
    expect(result.stderr).toContain(`\nwarning: ${line}; a re-run of this job would send them again\n`);
  });

  it('bad inputs with a GITHUB_OUTPUT that cannot be written: still exit 2, nothing sent', async () => {
    const result = await runActionInProcess({ ...base(), 'trigger-id': 'deploy' }, { env: box.env, output: box.home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("\nwarning: the step's outputs could not be written to GITHUB_OUTPUT (it is a folder)\n");
    expect(server.requests).toHaveLength(0);
  });

  // audit24 findings 7 and 18: a bare "error: ..." and exit 70, with no word that it is a bug nor where to report it.
  const thrown = async (env: NodeJS.ProcessEnv) => {
    const { run, reportThrown } = await import('../../action/main.js');
    const [stdout, stderr] = [new Captured(), new Captured()];
    const streams = { stdout, stderr } as unknown as Parameters<typeof run>[1];
    const code = await run(env, streams).catch((error: unknown) => reportThrown(error, stderr));
    return { code, stderr: stderr.text };
  };
  const inputs = () => ({ 'INPUT_API-KEY': TEST_KEY, 'INPUT_BASE-URL': server.url, 'INPUT_TRIGGER-ID': 'deploy', 'INPUT_USER-ID': 'a' });

  it('an error the step did not expect: exit 70 and one line that says it is a bug and where to report it', async () => {
    const env = new Proxy(
      { ...box.env, ...inputs() },
      {
        get(target, name) {
          if (name === 'INPUT_ARGS') throw new TypeError('an environment that cannot be read');
          return Reflect.get(target, name) as unknown;
        },
      },
    );
    const where = "please report it on the issue tracker of the trigger-cli package, with the step's inputs (never the key) and its log";
    const line = `this is a bug in trigger ${VERSION} (node ${process.versions.node}): an environment that cannot be read; ${where}`;
    expect(await thrown(env)).toEqual({ code: 70, stderr: `error: ${line}\n::error title=trigger::${line}\n` });
    expect(server.requests).toHaveLength(0);
  });

  it("trigger's own error thrown by the step (a RUNNER_TEMP that is a file) has its own exit code, not a bug's", async () => {
    const notFolder = path.join(box.home, 'runner-temp');
    fs.writeFileSync(notFolder, '');
    const result = await thrown({ ...box.env, ...inputs(), RUNNER_TEMP: notFolder });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: cannot read config file .*runner-temp.*: a file is in the way/);
    expect(result.stderr).not.toContain('bug');
    expect(server.requests).toHaveLength(0);
  });

  // audit24 finding 9: a dry run's rows were counted as accepted, a batch's own usage error as a failed row ("✖ ?: ..."), --help lost.
  it('args --dry-run on a batch: nothing sent, so the output accepted is 0', async () => {
    const file = path.join(box.home, 'ev.csv');
    fs.writeFileSync(file, 'triggerId,userId\np,a\np,b\n');
    const result = await action({ ...base(), file, args: '--dry-run' });
    expect(server.requests).toHaveLength(0);
    expect({ code: result.code, outputs: result.outputs }).toEqual({
      code: 0,
      outputs: { ok: 'true', accepted: '0', failed: '0', invalid: '0' },
    });
  });

  it('a batch that reads no row (a missing file): the output failed is 0 and no "✖ ?:" line', async () => {
    const result = await action({ ...base(), file: path.join(box.home, 'missing.csv') });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: cannot read');
    expect(result.stderr).not.toContain('✖');
    expect(result.outputs).toEqual({ ok: 'false', accepted: '0', failed: '0', invalid: '0' });
  });

  it.each([
    ['--help', 'Usage: trigger batch [options] <file...>\n'],
    ['--version', `${VERSION}\n`],
  ])('args %s: what trigger prints reaches the step log', async (args, printed) => {
    const file = path.join(box.home, 'ev.csv');
    fs.writeFileSync(file, 'triggerId,userId\np,a\n');
    const result = await action({ ...base(), file, args });
    expect(result.stdout.startsWith(printed)).toBe(true);
    expect(server.requests).toHaveLength(0);
    expect({ code: result.code, ok: result.outputs.ok }).toEqual({ code: 0, ok: 'true' });
  });

  it.each(['--help', '--version'])(
    'args %s with a trigger and user: exit 0 and ok "true", as for a batch (it said "false")',
    async (args) => {
      const result = await action({ ...base(), 'trigger-id': 'deploy', 'user-id': 'a', args });
      expect(result.stdout).toMatch(args === '--help' ? /^Usage: trigger fire / : new RegExp(`^${VERSION.replaceAll('.', '\\.')}\n`));
      expect(server.requests).toHaveLength(0);
      expect({ code: result.code, outputs: result.outputs }).toEqual({ code: 0, outputs: { ok: 'true', status: '', 'request-id': '' } });
    },
  );

  it('a file input that is a pattern: exit 2 and one line that says to name the folder, nothing sent', async () => {
    const result = await action({ ...base(), file: path.join(box.home, 'export', '*.csv.gz') });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `error: the input file ${path.join(box.home, 'export', '*.csv.gz')} is a pattern, and the step runs no shell to expand it — name the folder that holds the files (file: export/ sends every part in it), or one file`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('with --dry-run in args, the step log shows the curl command and nothing is sent', async () => {
    const result = await action({ ...base(), 'trigger-id': 'deploy', 'user-id': 'a', value: '3', args: '--dry-run' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`curl --fail-with-body`);
    expect(result.stdout).toContain(`--data-raw '{"value":3}'`);
    expect(server.requests).toHaveLength(0);
    expectNoKey(result);
  });
});

describe('the key in the step log (audit28)', () => {
  const other = 'tk_test_another_key_0000000';
  it.each([
    ['the input api-key', TEST_KEY, {}, [TEST_KEY]],
    ['the job TRIGGER_API_KEY', '', { TRIGGER_API_KEY: TEST_KEY }, [TEST_KEY]],
    ['both, the same key: once', TEST_KEY, { TRIGGER_API_KEY: ` ${TEST_KEY}` }, [TEST_KEY]],
    ['both, another key in the job', TEST_KEY, { TRIGGER_API_KEY: other }, [TEST_KEY, other]],
  ])('%s: ::add-mask:: first, so that the runner masks a key from vars.* or a step output', async (_label, key, env, keys) => {
    const inputs = { 'api-key': key, 'base-url': server.url, 'trigger-id': 'deploy', 'user-id': 'a' };
    const result = await action(inputs, { ...box.env, ...env });
    expect(result.code).toBe(0);
    expect(result.masks).toEqual(keys.map((k) => `::add-mask::${k}`));
    expectNoKey(result);
  });

  it('a key too short to be one (refused) is not masked: "prod" would be hidden wherever the rest of the job logs it (review28b)', async () => {
    const result = await action({ 'api-key': 'prod', 'base-url': server.url, 'trigger-id': 'deploy', 'user-id': 'a' }, box.env);
    expect(result.code).toBe(2);
    expect(result.masks).toEqual([]);
    expect(result.stdout + result.stderr).not.toContain('::add-mask::');
  });

  it('--dry-run with the key from the input api-key: the curl reads $TRIGGER_API_KEY, so the log says to set it from the secret', async () => {
    const result = await action({ ...base(), 'trigger-id': 'deploy', 'user-id': 'a', args: '--dry-run' });
    expect(result.stdout).toContain('Bearer $TRIGGER_API_KEY');
    expect(result.stderr).toContain(
      'note: the command reads the key from $TRIGGER_API_KEY, which is not set in this job (the key came from the input api-key): run it in a step with env: TRIGGER_API_KEY set from the same secret (TRIGGER_API_KEY: ${{ secrets.TRIGGER_API_KEY }})',
    );
    const fromJob = await action(
      { 'base-url': server.url, 'trigger-id': 'deploy', 'user-id': 'a', args: '--dry-run' },
      {
        ...box.env,
        TRIGGER_API_KEY: TEST_KEY,
      },
    );
    expect(fromJob.stderr).toBe(''); // the job's own variable: the command runs as printed
    expect(server.requests).toHaveLength(0);
  });
});

/**
 * trigger fire in-process: main() with a capturing Output and an explicit environment, against a
 * real server on 127.0.0.1. The table cases live here; test/e2e/fire.test.ts keeps the spawned runs.
 */
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const fire = (args: string[], env: NodeJS.ProcessEnv = sandbox.env) => runCommand(['fire', ...args], env);

describe('trigger fire, in-process', () => {
  it('sends the event and prints one line', async () => {
    const result = await fire(['purchase', 'alice', '--value', '9.99']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^✔ purchase · alice · value 9\.99 · 200 OK · \d+ ms\n$/);
    expect(server.requests.map((r) => `${r.url} ${r.body}`)).toEqual(['/v1/triggers/purchase/users/alice/events {"value":9.99}']);
  });

  it('a refusal: exit 1, the message and the hint on stderr, the JSON object under --json', async () => {
    server.handle((_req, res) => json(res, 404, { error: 'no such trigger' }));
    const result = await fire(['nope', 'alice', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      ok: false,
      status: 404,
      error: { kind: 'refused', serverMessage: 'no such trigger' },
    });
    expect(result.stderr).toContain('404 Not Found: no such trigger — check the trigger id "nope"');
  });

  it.each([
    [['t', 'u', '--value', 'abc'], /--value must be a decimal number/],
    [['t', 'u', '--value', '1e999'], /beyond the range/],
    [['t', 'u', '--value', 'NaN'], /--value must be a decimal number/],
    [['t', 'u', '--value', '0x1F'], /--value must be a decimal number/],
    [['t', 'u', '--value', ''], /--value must be a decimal number/],
    [['t', ''], /userId must not be empty/],
    [['', 'u'], /triggerId must not be empty/],
    [['t'], /missing required argument 'userId'/],
    [['t', 'u', '--timeout', '0'], /--timeout/],
    [['t', 'u', '--retries', '-1'], /--retries/],
    [['t', 'u', '--bogus'], /unknown option '--bogus'/],
    [['t', 'u', '--base-url', 'http://example.com'], /plain http/],
    [['t', 'u', '--base-url', 'https://u:p@example.com'], /credentials/],
    [['t', 'u', '--api-key', 'has space'], /contains a space at position 4/],
    [['t', 'u', '9.99'], /to send a value, use: --value 9\.99/],
    [['t', 'u', '--value', '1', '--value', '2'], /--value '2' is not valid: a value was given already with --value; give it once/], // audit26 #14
  ])('usage error %j: exit 2, nothing sent, nothing on stdout', async (args, message) => {
    const result = await fire(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['TRIGGER_API_KEY', 'no API key is set', 'trigger config set-key'],
    ['TRIGGER_BASE_URL', 'no base URL is set', 'trigger config set-base-url'],
  ])('without %s: exit 2 with the command that fixes it', async (variable, message, fix) => {
    const env = { ...sandbox.env };
    delete env[variable];
    const result = await fire(['t', 'u'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain(fix);
  });

  it('the environment given is the one read: another base URL in it is the one used', async () => {
    const other = await startServer();
    try {
      const result = await fire(['t', 'u'], { ...sandbox.env, TRIGGER_BASE_URL: other.url });
      expect(result.code).toBe(0);
      expect([server.requests.length, other.requests.length]).toEqual([0, 1]);
    } finally {
      await other.close();
    }
  });
});

describe('trigger fire, in-process: what scripts read', () => {
  it('--help lists the exit codes, including 3 with error.recorded and 70 for a bug', async () => {
    const help = await fire(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes: 0 accepted, 1 refused by the service/);
    expect(help.stdout).toMatch(/3 no definitive answer \(--json error\.recorded says "no" or "unknown"\), 70 a bug in\s+trigger/);
  });

  it('an error trigger did not expect exits 70 with one line saying it is a bug, not 1 ("refused")', async () => {
    const broken = new Proxy(
      { ...sandbox.env },
      {
        get(target, name) {
          if (name === 'TRIGGER_BASE_URL') throw new TypeError('an environment that cannot be read');
          return Reflect.get(target, name) as unknown;
        },
      },
    );
    const result = await fire(['purchase', 'alice'], broken);
    expect(result.code).toBe(70);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^error: this is a bug in trigger \S+ \(node \S+\): an environment that cannot be read; please report it on the issue tracker of the trigger-cli package, with the command you ran and its output with --verbose\n$/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('a usage error under --json has value null, as other objects have a number or null', async () => {
    const result = await fire(['purchase', 'alice', '--value', 'abc', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, value: null, error: { kind: 'usage', exitCode: 2 } });
  });

  it('a status the table does not name has its reason phrase all the same (audit26 #14: `425: e425`)', async () => {
    server.handle((_req, res) => json(res, 425, { error: 'e425' }));
    const result = await fire(['t', 'u']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the service refused the event: 425 Too Early: e425');
  });

  it('--json of a malformed 2xx gives its status and request id (fix26e noticed: status null)', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_cut' });
      res.end('{"success":false');
    });
    const result = await fire(['t', 'u', '--json']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, status: 200, requestId: 'req_cut', error: { recorded: 'unknown' } });
  });

  it('a status no list names reads as a status, `HTTP 599`, not `599: e599` (review26b F10)', async () => {
    server.handle((_req, res) => json(res, 599, { error: 'e599' }));
    expect((await fire(['t', 'u', '--retries', '0'])).stderr).toContain('error: no definitive answer: HTTP 599: e599 —');
    server.handle((_req, res) => json(res, 499, { error: '499 client closed' })); // a message that repeats the status: said once
    expect((await fire(['t', 'u'])).stderr).toContain('error: the service refused the event: HTTP 499: client closed —');
  });

  it('a 504 from a gateway: exit 3, error.recorded "unknown", sent once', async () => {
    server.handle((_req, res) => json(res, 504, { message: 'upstream timed out' }));
    const result = await fire(['purchase', 'alice', '--json']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, status: 504, error: { kind: 'unavailable', recorded: 'unknown' } });
    expect(server.requests).toHaveLength(1);
  });
});

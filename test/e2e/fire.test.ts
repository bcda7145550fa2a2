/**
 * The built binary against a real server on 127.0.0.1: what the server received, the exit code,
 * stdout and stderr, and that the key shows in neither. One spawned run per exit code (0, 1, 2, 3,
 * 130 on a real SIGINT) and --version (--help runs the built main() in-process); the table cases run in-process in
 * test/in-process/fire-service.test.ts and test/commands/fire.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { runBuilt } from '../helpers/built-in-process.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;

beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: '' });
  box.env.TRIGGER_BASE_URL = server.url;
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const fire = (args: string[], env: NodeJS.ProcessEnv = box.env) => run(['fire', ...args], { env });

describe('trigger fire: success', () => {
  it('sends the event and prints one line on stdout', async () => {
    const result = await fire(['purchase', 'alice@example.com', '--value', '9.99']);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      url: '/v1/triggers/purchase/users/alice%40example.com/events',
      body: '{"value":9.99}',
    });
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/purchase · alice@example\.com · value 9\.99 · 200 OK · \d+ ms/);
    expect(result.stderr).toBe('');
    expectNoKey(result);
  });
});

describe('trigger fire: failures', () => {
  it('401: exit 1, the server message and a hint about the key', async () => {
    server.handle((_req, res) => json(res, 401, { error: 'invalid api key' }, { 'x-request-id': 'req_401' }));
    const result = await fire(['t', 'u']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('401 Unauthorized');
    expect(result.stderr).toContain('invalid api key');
    expect(result.stderr).toContain('request id req_401');
    expect(result.stderr).toContain('check the API key (••••z789 from TRIGGER_API_KEY)');
    expect(server.requests).toHaveLength(1);
    expectNoKey(result);
  });

  it('500: one request only, exit 3: it may have been recorded', async () => {
    server.handle((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<h1>Internal Server Error</h1>');
    });
    const result = await fire(['t', 'u']);
    expect(result.code).toBe(3);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toContain('500 Internal Server Error: <h1>Internal Server Error</h1>');
    expect(result.stderr).toContain('not retried');
  });
});

describe('trigger fire: interrupted', () => {
  it('SIGINT while waiting for the answer: exit 130, says the outcome is unknown', async () => {
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    server.handle(() => arrived());
    const result = await run(['fire', 't', 'u', '--json'], {
      env: box.env,
      onSpawn: (child) => void requestArrived.then(() => child.kill('SIGINT')),
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupted');
    expect(result.stderr).toContain('may or may not have been recorded');
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { kind: 'interrupted', exitCode: 130 } });
    expect(server.requests).toHaveLength(1);
  });
});

describe('trigger fire: usage errors send nothing and exit 2', () => {
  // The table of usage errors runs in-process: test/commands/fire.test.ts.
  it('--json reports a usage error as one JSON object too', async () => {
    const result = await fire(['t', 'u', '--value', 'abc', '--json']);
    expect(result.code).toBe(2);
    const object = JSON.parse(result.stdout);
    expect(object).toMatchObject({ ok: false, status: null, value: null, error: { kind: 'usage', exitCode: 2 } });
  });
});

describe('help and version', () => {
  it('--version and --help exit 0, help shows examples', async () => {
    const version = await run(['--version'], { env: box.env });
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    // The help texts from the built main() in this process; the spawned --version shows the process's exit 0.
    const help = await runBuilt(['--help'], { env: box.env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    const fireHelp = await runBuilt(['fire', '--help'], { env: box.env });
    expect(fireHelp.code).toBe(0);
    expect(fireHelp.stdout).toContain('trigger fire purchase alice@example.com --value 9.99');
  });
});

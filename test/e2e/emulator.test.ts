/**
 * `trigger emulator` as a child process on a free port, for what only a process shows: real SIGINT
 * and SIGTERM with a request in flight, a port in use, npm run demo. Its answers, recording, faults
 * and options are tested in-process: test/in-process/emulator.test.ts.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { startEmulatorProcess, type EmulatorProcess } from '../helpers/emulator.js';
import { startServer } from '../helpers/server.js';

let box: Sandbox;
let emu: EmulatorProcess | undefined;

beforeEach(() => {
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY });
});
afterEach(async () => {
  await emu?.stop('SIGKILL');
  emu = undefined;
  box.cleanup();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(url: string, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}${options.path}`,
      { method: options.method ?? 'POST', headers: options.headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const good = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' };

describe('trigger emulator: lifecycle', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s lets a request in flight finish, records it, and exits 0', async (signal) => {
    const log = path.join(box.home, 'events.ndjson');
    emu = await startEmulatorProcess(['--latency', '700', '--log', log], box.env);
    const pending = send(emu.url, { path: '/v1/triggers/t/users/in-flight/events', headers: good, body: '{}' });
    await new Promise((r) => setTimeout(r, 200));
    const ended = emu.stop(signal);
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(await ended).toEqual({ code: 0, signal: null });
    expect(fs.readFileSync(log, 'utf8')).toContain('"userId":"in-flight"');
    expect(emu.stderr()).toContain('stopped: 1 recorded');
  });

  it('a port in use is one clear line and exit 2', async () => {
    // Anything listening on the port will do: a plain server here, not a second spawned emulator.
    const holder = await startServer();
    const port = String(holder.port);
    const result = await run(['emulator', '--port', port], { env: box.env, timeoutMs: 5_000 }).finally(() => holder.close());
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(result.stderr).not.toContain('    at ');
  });
});

describe('npm run demo', () => {
  it('starts the emulator, fires through the CLI, shows both sides and stops it', async () => {
    const { spawnSync } = await import('node:child_process');
    const { ROOT } = await import('../helpers/cli.js');
    const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'demo.mjs')], {
      env: box.env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('stopped: 3 recorded, 1 rejected');
    expect(result.stdout).toMatch(/"userId":"\.\.\/bob\/ 😀\?#"/);
    expect(result.stdout).toContain('"value":12345678901234567890,');
  });
});

/**
 * The emulator with a FIFO for --log, with and without a reader process. Its limits (--capacity,
 * --max-in-flight) are tested in-process: test/in-process/emulator-limits.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator } from '../../src/emulator/server.js';
import { TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { startEmulatorProcess, type EmulatorProcess } from '../helpers/emulator.js';

let box: Sandbox;
let emu: EmulatorProcess | undefined;
let server: Emulator | undefined;

beforeEach(() => {
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY });
});
afterEach(async () => {
  await emu?.stop('SIGKILL');
  await server?.close({ force: true });
  emu = undefined;
  server = undefined;
  box.cleanup();
});

const good = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' };

function post(url: string, user = 'u'): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/triggers/t/users/${user}/events`, { method: 'POST', headers: good, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

describe('trigger emulator --log on a FIFO', () => {
  const mkfifo = (file: string) => expect(spawnSync('mkfifo', [file]).status).toBe(0);

  it('with no reader, says so and exits 2 instead of hanging before it listens; with one, writes to it', async () => {
    const fifo = path.join(box.home, 'events.fifo');
    mkfifo(fifo);
    const result = await run(['emulator', '--port', '0', '--log', fifo], { env: box.env, timeoutMs: 5_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: the log ${fifo} is a FIFO with no reader`);
    expect(result.stderr).toContain(`cat ${fifo}`);
    expect(result.stderr).not.toContain('listening');

    // With a reader, it listens and writes each recorded event to the FIFO.
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    const readerClosed = new Promise((r) => reader.once('close', r));
    let read = '';
    reader.stdout.setEncoding('utf8').on('data', (d: string) => (read += d));
    try {
      // Wait until cat waits in open() for a writer (any probe of ours would hand it an EOF).
      const waiting = () => {
        try {
          return fs.readFileSync(`/proc/${reader.pid}/wchan`, 'utf8').includes('partner');
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 250 && !waiting(); i++) await new Promise((r) => setTimeout(r, 20));
      emu = await startEmulatorProcess(['--log', fifo], box.env);
      expect((await post(emu.url, 'through-the-fifo')).status).toBe(200);
      await emu.stop('SIGINT');
      await readerClosed;
      expect(read).toContain('"userId":"through-the-fifo"');
    } finally {
      reader.kill('SIGKILL');
    }
  });
});

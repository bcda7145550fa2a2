/**
 * Answers that did not come whole, said as what happened (review24 F8, review24b item 5), against a real node:http server: a refusal
 * whose body was cut short was shown as if whole; a close after the status line, before the headers ended, said "before it answered";
 * a time-out after an answer began said "no response". Outcomes and exit codes were right; only the words were not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

it('a 400 whose body is cut short says so after the words that came', async () => {
  server.handle((_req, res) => {
    res.writeHead(400, { 'content-type': 'application/json', 'content-length': 100 });
    res.write('{"error":"busy');
    setTimeout(() => res.socket?.destroy(), 20);
  });
  const result = await runCommand(['fire', 't', 'u', '--retries', '0'], sandbox.env);
  expect(result.code).toBe(1);
  // Was: 'the service refused the event: 400 Bad Request: {"error":"busy', as if the service had said no more.
  expect(result.stderr).toContain('error: the service refused the event: 400 Bad Request: {"error":"busy (cut short)');
});

it.each([['HTTP/1.1 200 OK\r\n'], ['HTTP/1.1 200 OK\r\nContent-Type: applic']])(
  'a close after the status line %j, before the headers end, is not "before it answered"',
  async (sent) => {
    server.handle((_req, res) => {
      res.socket?.write(sent);
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const result = await runCommand(['fire', 't', 'u', '--retries', '0'], sandbox.env);
    expect(result.code).toBe(3); // outcome unknown, as before
    expect(result.stderr).toContain("connection closed by the other side in the middle of its answer's headers");
    expect(result.stderr).not.toContain('before it answered');
  },
);

it('a close before any answer on a kept-alive connection, after a whole answer on it, is still "before it answered"', async () => {
  server.handle((_req, res, index) => void (index === 0 ? json(res, 200, { success: true }) : res.socket?.destroy()));
  const [rows, failed] = [path.join(sandbox.home, 'rows.csv'), path.join(sandbox.home, 'failed.csv')];
  fs.writeFileSync(rows, 'triggerId,userId\nt,u1\nt,u2\n');
  const result = await runCommand(['batch', rows, '--concurrency', '1', '--retries', '0', '--failed', failed], sandbox.env);
  expect(new Set(server.requests.map((r) => r.remotePort)).size).toBe(1); // one connection, so the first answer's state was there
  expect(result.code).toBe(1);
  expect(fs.readFileSync(failed, 'utf8')).toContain('connection closed by the other side before it answered');
});

it('a time-out after the headers and part of the body says the answer began, not "no response"', async () => {
  server.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 40 });
    res.write('{"succ'); // and then nothing more: the client's time limit ends it
  });
  const result = await runCommand(['fire', 't', 'u', '--retries', '0', '--timeout', '1'], sandbox.env);
  expect(result.code).toBe(3);
  // Was: "no response from http://127.0.0.1:<port> within 1 s".
  expect(result.stderr).toMatch(
    /no whole answer from http:\/\/127\.0\.0\.1:\d+ within 1 s: its answer \(200 OK\) began but did not finish in time/,
  );
  expect(result.stderr).not.toContain('no response');
});

it('a body still trickling in when the time-out comes did not finish in time; it did not stop (review27 F9)', async () => {
  server.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4000 });
    const trickle = setInterval(() => res.write(' '), 50); // a byte every 50 ms: the answer is moving when the time-out comes
    res.on('close', () => clearInterval(trickle));
  });
  const result = await runCommand(['fire', 't', 'u', '--retries', '0', '--timeout', '1'], sandbox.env);
  expect(result.code).toBe(3);
  // Was: "it stopped in the middle of its answer (200 OK)", of an answer that had not stopped.
  expect(result.stderr).toMatch(
    /no whole answer from http:\/\/127\.0\.0\.1:\d+ within 1 s: its answer \(200 OK\) began but did not finish in time/,
  );
  expect(result.stderr).not.toContain('stopped');
});

it('a time-out after the status line, before the headers end, says the answer began, not "no response"', async () => {
  server.handle((_req, res) => void res.socket?.write('HTTP/1.1 200 OK\r\nContent-Type: applic')); // and then nothing more
  const result = await runCommand(['fire', 't', 'u', '--retries', '0', '--timeout', '1'], sandbox.env);
  expect(result.code).toBe(3);
  expect(result.stderr).toMatch(
    /no whole answer from http:\/\/127\.0\.0\.1:\d+ within 1 s: its answer's headers began but did not finish in time/,
  );
  expect(result.stderr).not.toContain('no response');
});

describe('--verbose says what the message says (fix26b)', () => {
  it('a 400 whose body is cut short: its body line says "(cut short)"', async () => {
    server.handle((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'content-length': 100 });
      res.write('{"error":"busy');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const result = await runCommand(['fire', 't', 'u', '--retries', '0', '--verbose'], sandbox.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('\n< {"error":"busy (cut short)\n');
  });

  it('a 503 cut short before its body: its status line and the retry say "(cut short)"', async () => {
    server.handle((_req, res, index) => {
      if (index > 0) return json(res, 200, { success: true });
      res.writeHead(503, { 'content-length': 100 });
      res.flushHeaders();
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const result = await runCommand(['fire', 't', 'u', '--retries', '1', '--verbose'], sandbox.env);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/\n< 503 \([^)]+\) \(cut short\)\n/);
    expect(result.stderr).toMatch(/\n\* 503 Service Unavailable \(cut short\): retrying in /);
  });

  it.each([
    ['its status line', 'HTTP/1.1 200 OK\r\nContent-Type: applic'],
    ['its headers and part of its body', 'HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n{"succ'],
  ])('a time-out after %s: the attempt line says no whole answer came, not "no response"', async (_what, sent) => {
    server.handle((_req, res) => void res.socket?.write(sent));
    const result = await runCommand(['fire', 't', 'u', '--retries', '0', '--timeout', '1', '--verbose'], sandbox.env);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/\* attempt 1 failed after [^:]+: no whole answer within 1 s\n/);
    expect(result.stderr).not.toContain('no response');
  });
});

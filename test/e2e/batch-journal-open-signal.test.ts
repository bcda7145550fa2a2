/**
 * review25 A3: between the read of the input for --journal and the sending, nothing listened for a stop signal: the journal was
 * opened (made, its header synced) with Node's default in place, and a signal then killed the batch without a word, leaving the
 * failed file's .tmp, the locks and a journal (2 of 40 random SIGINTs). The built binary, held by a preload at the moment its new
 * journal's header is synced and sent a real signal there: it ends as a stop does (its exit code, its line, the summary), sends
 * nothing, leaves no .tmp and no lock, and the command it prints sends every row.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { leftIn } from '../helpers/batch.js';
import { json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const at = (name: string) => path.join(box.home, name);

/**
 * A preload that holds the process, once, right after the journal's header is synced: it says so (a file `held`), and waits without
 * spinning until the test has sent its signal (a file `go`). No listener then: the process dies of the signal at once.
 */
const HOLD = (held: string, go: string) => `
const fs = require('node:fs');
const [sync, cell] = [fs.fsyncSync, new Int32Array(new SharedArrayBuffer(4))];
let once = false;
fs.fsyncSync = function (fd, ...rest) {
  const result = sync.call(this, fd, ...rest);
  if (!once && fs.readlinkSync('/proc/self/fd/' + fd).endsWith('.journal')) {
    once = true;
    fs.writeFileSync(${JSON.stringify(held)}, '');
    while (!fs.existsSync(${JSON.stringify(go)})) Atomics.wait(cell, 0, 0, 5);
  }
  return result;
};`;

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)('%s as the new journal is opened: exit %i, its stop line, nothing sent, no .tmp or lock left', async (signal, code) => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  fs.writeFileSync(at('in.csv'), 'triggerId,userId\nt,a\nt,b\nt,c\n');
  fs.writeFileSync(at('hold.cjs'), HOLD(at('held'), at('go')));
  const onSpawn = (child: { kill(signal: NodeJS.Signals): boolean }) => {
    const poll = setInterval(() => {
      if (!fs.existsSync(at('held'))) return;
      clearInterval(poll);
      child.kill(signal); // delivered before `go` is there: the process is still held when it comes
      fs.writeFileSync(at('go'), '');
    }, 2);
  };
  const env = { ...box.env, NODE_OPTIONS: `--require ${at('hold.cjs')}` };
  const args = ['batch', 'in.csv', '--journal', 'in.journal', '--failed', 'f.csv'];
  const result = await run(args, { env, onSpawn });
  expect({ code: result.code, signal: result.signal }).toEqual({ code, signal: null });
  expect(result.stderr).toContain(`interrupted (${signal}): sending stopped, waiting for 0 requests in flight`);
  expect(result.stderr).toContain('trigger batch in.csv --journal in.journal --resume --failed f.csv');
  expect(server.requests).toHaveLength(0);
  expect(leftIn(box).filter((f) => f.endsWith('.tmp') || f.endsWith('.lock'))).toEqual([]);

  // The printed command carries it on: every row sent, once.
  const resumed = await run(['batch', 'in.csv', '--journal', 'in.journal', '--resume', '--failed', 'f.csv'], { env: box.env });
  expect(resumed.code).toBe(0);
  expect(server.requests.map((r) => r.url).sort()).toEqual(['a', 'b', 'c'].map((u) => `/v1/triggers/t/users/${u}/events`));
});

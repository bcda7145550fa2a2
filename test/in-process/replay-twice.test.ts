/**
 * A printed replay command run twice (a second paste, a CI retry of the step), killed and run again,
 * and the replay of a replay (issue 28 item 11): every command a summary prints names a new failed
 * file and its own journal with --resume, so following printed commands never sends a row twice.
 * In-process (main() with an explicit environment and the sandbox as the working folder) against a
 * real server on 127.0.0.1 that counts what it received for each user; moved from
 * test/e2e/replay-twice.test.ts with their assertions unchanged, as none needs a process. That file
 * keeps the SIGKILL mid-run and the two processes at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { printedCommand } from '../helpers/batch.js';

const startedIn = process.cwd();
let server: TestServer;
let box: Sandbox;
/** Users the service refuses (422) while the cause is not fixed. */
let refused = new Set<string>();
/** A delay before each answer, so that a run can be killed in the middle. */
let delayMs = 0;
/** Users whose answer comes 300 ms late, so that it ends after the others. */
let slow = new Set<string>();
beforeEach(async () => {
  refused = new Set();
  slow = new Set();
  delayMs = 0;
  server = await startServer(async (req, res) => {
    const user = /\/users\/([^/]+)\/events/.exec(req.url)?.[1] ?? '';
    const wait = delayMs + (slow.has(user) ? 300 : 0);
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
    if (refused.has(user)) json(res, 422, { error: 'value out of range' });
    else json(res, 200, { success: true });
  });
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
  // The summary names the printed command's paths from the process's folder, not main()'s cwd (as
  // test/in-process/batch-once.test.ts notes): this process stands in the sandbox, as a shell would.
  process.chdir(box.home);
});
afterEach(async () => {
  process.chdir(startedIn);
  await server.close();
  box.cleanup();
});

const users = (n: number) => Array.from({ length: n }, (_, i) => `u${i}`);
const csv = (ids: string[]) => `triggerId,userId\n${ids.map((u) => `t,${u}`).join('\n')}\n`;
/** How many times the server received an event for each user (refused or not). */
function received(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of server.requests) {
    const user = /\/users\/([^/]+)\/events/.exec(r.url)![1]!;
    counts.set(user, (counts.get(user) ?? 0) + 1);
  }
  return counts;
}
const batch = (args: string[]) => run(args, { env: box.env, cwd: box.home });
/** The command (after `trigger`) a run printed, which must be there. */
function next(result: { stdout: string; stderr: string }): string[] {
  const command = printedCommand(`${result.stdout}\n${result.stderr}`);
  if (!command) throw new Error(`no command printed:\n${result.stdout}\n${result.stderr}`);
  return command;
}

describe('a printed replay command', () => {
  it('names a new failed file and its own journal, which does not exist before it runs', async () => {
    refused = new Set(['u1', 'u3']);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csv(users(5)));
    const first = await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '2']);
    expect(first.code).toBe(1);
    expect(next(first)).toEqual(['batch', 'failed.csv', '--failed', 'failed-2.csv', '--journal', 'failed-2.csv.journal', '--resume']);
    expect(fs.existsSync(path.join(box.home, 'failed-2.csv.journal'))).toBe(false);
    expect(fs.existsSync(path.join(box.home, 'failed-2.csv'))).toBe(false);
    expectNoKey(first);
  }, 120_000);

  it('run twice (a second paste, a CI retry): the second run sends nothing', async () => {
    const all = users(40);
    refused = new Set(all.filter((_, i) => i % 4 === 0));
    fs.writeFileSync(path.join(box.home, 'in.csv'), csv(all));
    const first = await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '4']);
    expect(first.code).toBe(1);
    const replay = next(first);

    refused = new Set(); // the cause is fixed
    const once = await batch(replay);
    expect(once.code).toBe(0);
    const afterOnce = server.requests.length;
    expect(afterOnce).toBe(40 + 10);

    const twice = await batch(replay);
    expect(twice.code).toBe(0);
    expect(server.requests.length).toBe(afterOnce); // nothing sent the second time
    expect(twice.stdout).toContain('0 accepted · 10 accepted in an earlier run of 10 rows');
    // Each user was accepted exactly once: the refused ones twice received, once refused.
    for (const [user, n] of received()) expect([user, n]).toEqual([user, all.indexOf(user) % 4 === 0 ? 2 : 1]);
    expectNoKey(twice);
  }, 120_000);

  it('the replay of a replay prints a command that is again safe, and again new', async () => {
    const all = users(30);
    refused = new Set(all.filter((_, i) => i % 3 === 0));
    fs.writeFileSync(path.join(box.home, 'in.csv'), csv(all));
    const first = await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '4']);
    const replay1 = next(first);

    refused = new Set(all.filter((_, i) => i % 6 === 0)); // half of them are still refused
    const r1 = await batch(replay1);
    expect(r1.code).toBe(1);
    const replay2 = next(r1);
    expect(replay2).toEqual(['batch', 'failed-2.csv', '--failed', 'failed-3.csv', '--journal', 'failed-3.csv.journal', '--resume']);
    // A second run of the first replay sends nothing and prints the same next command.
    const before = server.requests.length;
    const r1Again = await batch(replay1);
    expect(server.requests.length).toBe(before);
    expect(next(r1Again)).toEqual(replay2);

    refused = new Set();
    const r2 = await batch(replay2);
    expect(r2.code).toBe(0);
    const r2Again = await batch(replay2);
    expect(r2Again.code).toBe(0);
    // Accepted exactly once each: u0, u6, ... were refused twice before; u3, u9, ... once.
    for (const [user, n] of received()) {
      const i = all.indexOf(user);
      expect([user, n]).toEqual([user, i % 6 === 0 ? 3 : i % 3 === 0 ? 2 : 1]);
    }
  }, 120_000);

  it('the first replay run again after the replay of its failed file: what it prints still sends nothing twice', async () => {
    const all = users(12);
    const early = all.filter((_, i) => i % 3 === 0); // u0, u3, u6, u9
    refused = new Set(early);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csv(all));
    const replay1 = next(await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '4']));
    // Still refused, and u0's answer comes last: failed-2.csv keeps its rows in the order they ended.
    slow = new Set(['u0']);
    const r1 = await batch([...replay1, '--concurrency', '4']);
    expect(r1.code).toBe(1);
    const replay2 = next(r1);
    const kept = fs.readFileSync(path.join(box.home, 'failed-2.csv'), 'utf8');
    expect(kept.trim().split('\n').at(-1)).toMatch(/^t,u0,/);

    refused = new Set();
    expect((await batch(replay2)).code).toBe(0);
    // A CI retry of the first replay's step, then the command it prints, followed as printed.
    const r1Again = await batch(replay1);
    expect(fs.readFileSync(path.join(box.home, 'failed-2.csv'), 'utf8')).toBe(kept);
    expect(next(r1Again)).toEqual(replay2);
    const before = server.requests.length;
    expect((await batch(next(r1Again))).code).toBe(0);
    expect(server.requests.length).toBe(before);
    for (const [user, n] of received()) expect([user, n]).toEqual([user, early.includes(user) ? 3 : 1]);
  }, 120_000);

  it('a name already taken by something else is passed over, never resumed', async () => {
    refused = new Set(['u0']);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csv(users(3)));
    // Yesterday's replay of another failed.csv left its journal; and someone's failed-3.csv is there.
    fs.writeFileSync(path.join(box.home, 'old.csv'), csv(['x']));
    fs.writeFileSync(path.join(box.home, 'failed.csv'), 'triggerId,userId,error\nt,x,line 2: old\n');
    const old = await batch(['batch', 'failed.csv', '--failed', 'failed-2.csv', '--journal', 'failed-2.csv.journal', '--resume']);
    expect(old.code).toBe(0);
    fs.writeFileSync(path.join(box.home, 'failed-3.csv'), 'someone else\n');
    server.requests.length = 0;

    const today = await batch(['batch', 'in.csv', '--failed', 'failed.csv']);
    const replay = next(today);
    expect(replay).toEqual(['batch', 'failed.csv', '--failed', 'failed-4.csv', '--journal', 'failed-4.csv.journal', '--resume']);
    refused = new Set();
    expect((await batch(replay)).code).toBe(0);
    expect(received().get('u0')).toBe(2);
    expect(fs.readFileSync(path.join(box.home, 'failed-3.csv'), 'utf8')).toBe('someone else\n');
  }, 120_000);
});

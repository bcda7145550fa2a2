/**
 * A printed replay command run twice (a second paste, a CI retry of the step), killed and run again,
 * and the replay of a replay (issue 28 item 11): every command a summary prints names a new failed
 * file and its own journal with --resume, so following printed commands never sends a row twice.
 * The built binary against a real server on 127.0.0.1 that counts what it received for each user,
 * for what only a process shows: a SIGKILL mid-run and two processes at once on one journal. The
 * cases that check only exit codes, output, files and what the server received run in-process:
 * test/in-process/replay-twice.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { json, killAfter, startServer, type TestServer } from '../helpers/server.js';
import { printedCommand } from '../helpers/batch.js';

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
});
afterEach(async () => {
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
const batch = (args: string[], options: { onSpawn?: Parameters<typeof run>[1]['onSpawn'] } = {}) =>
  run(args, { env: box.env, cwd: box.home, timeoutMs: 30_000, ...options });
/** The command (after `trigger`) a run printed, which must be there. */
function next(result: { stdout: string; stderr: string }): string[] {
  const command = printedCommand(`${result.stdout}\n${result.stderr}`);
  if (!command) throw new Error(`no command printed:\n${result.stdout}\n${result.stderr}`);
  return command;
}

describe('a printed replay command', () => {
  it('killed with SIGKILL in the middle, then run again (and again): each row is sent at most once, none lost', async () => {
    const all = users(300);
    refused = new Set(all);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csv(all));
    const first = await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '8']);
    expect(first.code).toBe(1);
    const replay = next(first);
    server.requests.length = 0;

    refused = new Set();
    delayMs = 20;
    const killed = await batch(replay, { onSpawn: killAfter(server, 80, 'SIGKILL') });
    expect(killed.signal).toBe('SIGKILL');
    const sentBeforeKill = new Set(received().keys());
    expect(sentBeforeKill.size).toBeGreaterThanOrEqual(80);
    expect(sentBeforeKill.size).toBeLessThan(300);

    delayMs = 0;
    const again = await batch(replay);
    const third = await batch(replay);
    for (const [user, n] of received()) expect([user, n]).toEqual([user, 1]); // never twice
    // Every user was received, or is kept in the replay's failed file (in flight at the kill: outcome unknown).
    const kept = fs.readFileSync(path.join(box.home, replay[3]!), 'utf8');
    for (const user of all) {
      const got = received().has(user);
      const inFailed = kept.includes(`t,${user},`);
      expect([user, got || inFailed]).toEqual([user, true]);
      if (inFailed) expect(kept).toMatch(new RegExp(`^t,${user},line \\d+: .*outcome`, 'm'));
    }
    expect(third.stderr).toContain('resuming from');
    expect(again.code === 0 || again.code === 1).toBe(true);
  }, 120_000);

  it('two runs of it at once: one runs, the other is refused (exit 2) and sends nothing', async () => {
    const all = users(60);
    refused = new Set(all);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csv(all));
    const replay = next(await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '8']));
    server.requests.length = 0;
    refused = new Set();
    delayMs = 30;
    const [a, b] = await Promise.all([batch(replay), batch(replay)]);
    expect([a.code, b.code].sort()).toEqual([0, 2]);
    expect(`${a.stderr}${b.stderr}`).toMatch(/is in use by another batch \(pid \d+/);
    for (const [user, n] of received()) expect([user, n]).toEqual([user, 1]);
    expect(received().size).toBe(60);
  }, 120_000);
});

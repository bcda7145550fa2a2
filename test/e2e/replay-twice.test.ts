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
import { runBuilt } from '../helpers/built-in-process.js';
import { killAfter } from '../helpers/server.js';
import { countingService, csvOf, printedNext, users, type CountingService } from '../helpers/batch.js';

let service: CountingService;
let box: Sandbox;
beforeEach(async () => {
  service = await countingService();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: service.server.url });
});
afterEach(async () => {
  await service.server.close();
  box.cleanup();
});
const batch = (args: string[], options: { onSpawn?: Parameters<typeof run>[1]['onSpawn'] } = {}) =>
  run(args, { env: box.env, cwd: box.home, timeoutMs: 30_000, ...options });
/**
 * A run that needs to be another batch, not another process: the built main() in this process
 * (test/helpers/built-in-process.ts), in the same folder. Not for a run whose printed command is read
 * back: in-process the paths it prints are resolved against the folder, not as typed.
 */
const batchInProcess = (args: string[]) => runBuilt(args, { env: box.env, cwd: box.home });

describe('a printed replay command', () => {
  it('killed with SIGKILL in the middle, then run again (and again): each row is sent at most once, none lost', async () => {
    const all = users(300);
    service.refused = new Set(all);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
    const first = await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '8']);
    expect(first.code).toBe(1);
    const replay = printedNext(first);
    service.server.requests.length = 0;

    service.refused = new Set();
    service.delayMs = 20;
    const killed = await batch(replay, { onSpawn: killAfter(service.server, 80, 'SIGKILL') });
    expect(killed.signal).toBe('SIGKILL');
    const sentBeforeKill = new Set(service.received().keys());
    expect(sentBeforeKill.size).toBeGreaterThanOrEqual(80);
    expect(sentBeforeKill.size).toBeLessThan(300);

    service.delayMs = 0;
    const again = await batchInProcess(replay);
    const third = await batchInProcess(replay);
    for (const [user, n] of service.received()) expect([user, n]).toEqual([user, 1]); // never twice
    // Every user was received, or is kept in the replay's failed file (in flight at the kill: outcome unknown).
    const kept = fs.readFileSync(path.join(box.home, replay[3]!), 'utf8');
    for (const user of all) {
      const got = service.received().has(user);
      const inFailed = kept.includes(`t,${user},`);
      expect([user, got || inFailed]).toEqual([user, true]);
      if (inFailed) expect(kept).toMatch(new RegExp(`^t,${user},line \\d+: .*outcome`, 'm'));
    }
    expect(third.stderr).toContain('resuming from');
    expect(again.code === 0 || again.code === 1).toBe(true);
  }, 120_000);

  it('two runs of it at once: one runs, the other is refused (exit 2) and sends nothing', async () => {
    const all = users(60);
    service.refused = new Set(all);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
    const replay = printedNext(await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '8']));
    service.server.requests.length = 0;
    service.refused = new Set();
    // Both spawned, and the service answers nobody until one has ended: the run that took the journal
    // cannot finish before the other asks for it, however late the machine's load starts the second
    // (with answers 30 ms late, a second Node started after the first was done, and both exited 0).
    let release!: () => void;
    service.hold = new Promise<void>((resolve) => (release = resolve));
    const runs = [batch(replay), batch(replay)] as const;
    await Promise.race(runs);
    release();
    const [a, b] = await Promise.all(runs);
    expect([a.code, b.code].sort()).toEqual([0, 2]);
    expect(`${a.stderr}${b.stderr}`).toMatch(/is in use by another batch \(pid \d+/);
    for (const [user, n] of service.received()) expect([user, n]).toEqual([user, 1]);
    expect(service.received().size).toBe(60);
  }, 120_000);
});

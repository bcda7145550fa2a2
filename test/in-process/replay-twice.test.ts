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
import { countingService, csvOf, printedNext, users, type CountingService } from '../helpers/batch.js';

const startedIn = process.cwd();
let service: CountingService;
let box: Sandbox;
beforeEach(async () => {
  service = await countingService();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: service.server.url });
  // The summary names the printed command's paths from the process's folder, not main()'s cwd (as
  // test/in-process/batch-once.test.ts notes): this process stands in the sandbox, as a shell would.
  process.chdir(box.home);
});
afterEach(async () => {
  process.chdir(startedIn);
  await service.server.close();
  box.cleanup();
});
const batch = (args: string[]) => run(args, { env: box.env, cwd: box.home });

describe('a printed replay command', () => {
  it('names a new failed file and its own journal, which does not exist before it runs', async () => {
    service.refused = new Set(['u1', 'u3']);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(users(5)));
    const first = await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '2']);
    expect(first.code).toBe(1);
    expect(printedNext(first)).toEqual([
      'batch',
      'failed.csv',
      '--failed',
      'failed-2.csv',
      '--journal',
      'failed-2.csv.journal',
      '--resume',
    ]);
    expect(fs.existsSync(path.join(box.home, 'failed-2.csv.journal'))).toBe(false);
    expect(fs.existsSync(path.join(box.home, 'failed-2.csv'))).toBe(false);
    expectNoKey(first);
  }, 120_000);

  it('run twice (a second paste, a CI retry): the second run sends nothing', async () => {
    const all = users(40);
    service.refused = new Set(all.filter((_, i) => i % 4 === 0));
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
    const first = await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '4']);
    expect(first.code).toBe(1);
    const replay = printedNext(first);

    service.refused = new Set(); // the cause is fixed
    const once = await batch(replay);
    expect(once.code).toBe(0);
    const afterOnce = service.server.requests.length;
    expect(afterOnce).toBe(40 + 10);

    const twice = await batch(replay);
    expect(twice.code).toBe(0);
    expect(service.server.requests.length).toBe(afterOnce); // nothing sent the second time
    expect(twice.stdout).toContain('0 accepted · 10 accepted in an earlier run of 10 rows');
    // Each user was accepted exactly once: the refused ones twice received, once refused.
    for (const [user, n] of service.received()) expect([user, n]).toEqual([user, all.indexOf(user) % 4 === 0 ? 2 : 1]);
    expectNoKey(twice);
  }, 120_000);

  it('the replay of a replay prints a command that is again safe, and again new', async () => {
    const all = users(30);
    service.refused = new Set(all.filter((_, i) => i % 3 === 0));
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
    const first = await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '4']);
    const replay1 = printedNext(first);

    service.refused = new Set(all.filter((_, i) => i % 6 === 0)); // half of them are still refused
    const r1 = await batch(replay1);
    expect(r1.code).toBe(1);
    const replay2 = printedNext(r1);
    expect(replay2).toEqual(['batch', 'failed-2.csv', '--failed', 'failed-3.csv', '--journal', 'failed-3.csv.journal', '--resume']);
    // A second run of the first replay sends nothing and prints the same next command.
    const before = service.server.requests.length;
    const r1Again = await batch(replay1);
    expect(service.server.requests.length).toBe(before);
    expect(printedNext(r1Again)).toEqual(replay2);

    service.refused = new Set();
    const r2 = await batch(replay2);
    expect(r2.code).toBe(0);
    const r2Again = await batch(replay2);
    expect(r2Again.code).toBe(0);
    // Accepted exactly once each: u0, u6, ... were refused twice before; u3, u9, ... once.
    for (const [user, n] of service.received()) {
      const i = all.indexOf(user);
      expect([user, n]).toEqual([user, i % 6 === 0 ? 3 : i % 3 === 0 ? 2 : 1]);
    }
  }, 120_000);

  it('the first replay run again after the replay of its failed file: what it prints still sends nothing twice', async () => {
    const all = users(12);
    const early = all.filter((_, i) => i % 3 === 0); // u0, u3, u6, u9
    service.refused = new Set(early);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
    const replay1 = printedNext(await batch(['batch', 'in.csv', '--failed', 'failed.csv', '--concurrency', '4']));
    // Still refused, and u0's answer comes last: failed-2.csv keeps its rows in the order they ended.
    service.slow = new Set(['u0']);
    const r1 = await batch([...replay1, '--concurrency', '4']);
    expect(r1.code).toBe(1);
    const replay2 = printedNext(r1);
    const kept = fs.readFileSync(path.join(box.home, 'failed-2.csv'), 'utf8');
    expect(kept.trim().split('\n').at(-1)).toMatch(/^t,u0,/);

    service.refused = new Set();
    expect((await batch(replay2)).code).toBe(0);
    // A CI retry of the first replay's step, then the command it prints, followed as printed.
    const r1Again = await batch(replay1);
    expect(fs.readFileSync(path.join(box.home, 'failed-2.csv'), 'utf8')).toBe(kept);
    expect(printedNext(r1Again)).toEqual(replay2);
    const before = service.server.requests.length;
    expect((await batch(printedNext(r1Again))).code).toBe(0);
    expect(service.server.requests.length).toBe(before);
    for (const [user, n] of service.received()) expect([user, n]).toEqual([user, early.includes(user) ? 3 : 1]);
  }, 120_000);

  it('a name already taken by something else is passed over, never resumed', async () => {
    service.refused = new Set(['u0']);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(users(3)));
    // Yesterday's replay of another failed.csv left its journal; and someone's failed-3.csv is there.
    fs.writeFileSync(path.join(box.home, 'old.csv'), csvOf(['x']));
    fs.writeFileSync(path.join(box.home, 'failed.csv'), 'triggerId,userId,error\nt,x,line 2: old\n');
    const old = await batch(['batch', 'failed.csv', '--failed', 'failed-2.csv', '--journal', 'failed-2.csv.journal', '--resume']);
    expect(old.code).toBe(0);
    fs.writeFileSync(path.join(box.home, 'failed-3.csv'), 'someone else\n');
    service.server.requests.length = 0;

    const today = await batch(['batch', 'in.csv', '--failed', 'failed.csv']);
    const replay = printedNext(today);
    expect(replay).toEqual(['batch', 'failed.csv', '--failed', 'failed-4.csv', '--journal', 'failed-4.csv.journal', '--resume']);
    service.refused = new Set();
    expect((await batch(replay)).code).toBe(0);
    expect(service.received().get('u0')).toBe(2);
    expect(fs.readFileSync(path.join(box.home, 'failed-3.csv'), 'utf8')).toBe('someone else\n');
  }, 120_000);
});

describe("README's matrix (--failed failed-${{ matrix.shard }}.csv), its failed files then in one folder", () => {
  it("shard 1's printed replay names a file of its own, and running it leaves shard 2's failed file as it was", async () => {
    const all = users(40);
    service.refused = new Set(all);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
    // Shard 1 runs on its machine: no failed-2.csv there when it prints its replay (audit19 F1: it named failed-2.csv).
    const one = await batch(['batch', 'in.csv', '--shard', '1/4', '--failed', 'failed-1.csv']);
    expect(one.code).toBe(1);
    const replay = printedNext(one);
    expect(replay.slice(2, 4)).toEqual(['--failed', 'failed-1-2.csv']);
    // Shard 2 on another; its failed file downloaded beside shard 1's, then shard 1's printed command is followed.
    const two = await batch(['batch', 'in.csv', '--shard', '2/4', '--failed', 'failed-2.csv']);
    expect(two.code).toBe(1);
    const kept = fs.readFileSync(path.join(box.home, 'failed-2.csv'), 'utf8');
    expect(kept.trim().split('\n').length).toBeGreaterThan(1);
    service.refused = new Set();
    expect((await batch(replay)).code).toBe(0);
    expect(fs.readFileSync(path.join(box.home, 'failed-2.csv'), 'utf8')).toBe(kept);
  }, 120_000);
});

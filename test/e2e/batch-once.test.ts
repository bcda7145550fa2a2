/**
 * Nothing twice, nothing lost (issue 19): two runs on one journal or failed file, the chain of
 * printed replay commands (after signals, time-outs and 5xx), a pipe on stdin stopped by a signal
 * inside a grace period, a stdout that cannot be written, a journal on a full file system, and the
 * small ones (--failed -, --failed /dev/stdout --json, ids that are not UTF-8, UTF-16 input).
 * The built binary against a real node:http server on 127.0.0.1 that records what it received.
 * The printed replay after time-outs and 5xx, and --failed /dev/stdout with --json, run in-process:
 * test/in-process/batch-once.test.ts and test/in-process/spawns-batch.test.ts. (The default failed file stays here: in-process the summary
 * names it from the test's own folder, not the command's.)
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, TEST_KEY, run, type RunResult, type Sandbox } from '../helpers/cli.js';
import { runBuilt } from '../helpers/built-in-process.js';
import { needs } from '../helpers/needs.js';
import { TERMINAL, inTerminal } from '../helpers/pty.js';
import { json, killAfter, type TestServer, useServer } from '../helpers/server.js';
import { answerSlowly, holdAnswers, keptRows, printedCommand, until, userOf, users, csvRows } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const at = (name: string) => path.join(box.home, name);
const file = (name: string, text: string | Buffer) => {
  fs.writeFileSync(at(name), text);
  return at(name);
};
// A fixed concurrency unless a test names one: these tests time signals and second runs against a
// batch's length, which --concurrency auto (the default) would shorten as it finds the server fast.
const batch = (args: string[], options: { input?: string; onSpawn?: Parameters<typeof run>[1]['onSpawn'] } = {}) =>
  run(['batch', ...args, ...(args.includes('--concurrency') ? [] : ['--concurrency', '4'])], {
    env: box.env,
    timeoutMs: 240_000,
    ...options,
  });
/**
 * A run that only needs to be another batch, not another process (refused by a lock another process
 * holds, carrying on after the run under test ended, a followed replay): main() in-process, the same
 * argv, environment and folder, with no Node to start. One at a time: it captures this process's stdout.
 */
const batchInProcess = (args: string[], cwd?: string) =>
  runBuilt(['batch', ...args, ...(args.includes('--concurrency') ? [] : ['--concurrency', '4'])], {
    env: box.env,
    ...(cwd ? { cwd } : {}),
  });
const received = () => server.requests.map((r) => userOf(r.url));
const kept = (name: string) => keptRows(fs.readFileSync(path.isAbsolute(name) ? name : at(name), 'utf8'));
const slowly = (ms: number) => answerSlowly(server, ms);
const printed = (result: RunResult) => printedCommand(result.stdout + result.stderr);

/** Every row ends in exactly one place: received once by the server, or kept, and never both. */
function expectEachOnce(all: string[], keptUsers: string[] = []): void {
  const got = received();
  const dup = got.filter((u, i) => got.indexOf(u) !== i);
  expect(dup, 'rows the server received twice').toEqual([]);
  expect(
    keptUsers.filter((u) => got.includes(u)),
    'rows both received and kept',
  ).toEqual([]);
  expect([...got, ...keptUsers].sort()).toEqual([...all].sort());
}

describe('one batch at a time per journal', () => {
  it('two --resume runs started together: one sends, the other is refused naming its pid; every row once', async () => {
    // The answers are held until one run has ended, so the one that sends surely holds the journal
    // while the other starts. More than 4 requests (one run's --concurrency) would mean both are sending.
    const held = holdAnswers(server, 0, { releaseAt: 5 });
    const input = file('in.csv', csvRows(40));
    const args = [input, '--journal', at('j'), '--resume', '--failed', at('failed.csv')];
    // Two spawned processes, as two CI jobs would be: an in-process run would nearly always start first.
    const [a, b] = await Promise.all([batch(args).finally(held.release), batch(args).finally(held.release)]);
    const codes = [a.code, b.code].sort();
    expect(codes).toEqual([0, 2]);
    const refused = a.code === 2 ? a : b;
    expect(refused.stderr).toMatch(/^error: the journal .*\/j is in use by another batch \(pid \d+, since /m);
    expect(refused.stderr).toContain('nothing was sent');
    expectEachOnce(users(40));
  }, 300_000);

  it('a second --resume run while the first is sending is refused; once the first is done it carries on with nothing to send', async () => {
    // The first run's answers are held until the second has been refused: it surely holds the journal.
    const held = holdAnswers(server, 0, { releaseAt: 5 });
    const input = file('in.csv', csvRows(100));
    const args = [input, '--journal', at('j'), '--resume', '--failed', at('failed.csv')];
    const first = batch(args);
    await until(() => server.requests.length > 0);
    const second = await batchInProcess(args).finally(() => held.release());
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('is in use by another batch (pid ');
    expect((await first).code).toBe(0);
    const third = await batchInProcess(args);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('100 accepted in an earlier run');
    expectEachOnce(users(100));
    expect(fs.existsSync(at('.j.lock'))).toBe(false); // released at the end
  }, 300_000);

  it('a holder killed with SIGKILL leaves its lock behind; the next --resume takes it over and nothing goes twice', async () => {
    // 50 answers, then the rest held: the kill at the 50th request surely lands mid-batch, with rows in flight.
    holdAnswers(server, 50);
    const input = file('in.csv', csvRows(200));
    const args = [input, '--journal', at('j'), '--failed', at('failed.csv')];
    const killed = await batch(args, { onSpawn: killAfter(server, 50, 'SIGKILL') });
    expect(killed.signal).toBe('SIGKILL');
    expect(fs.existsSync(at('.j.lock'))).toBe(true);
    server.handle((_req, res) => json(res, 200, { success: true }));
    const resumed = await batch([...args, '--resume']);
    expect(resumed.code).toBe(1); // the rows in flight at the kill are of unknown outcome
    const unknown = kept('failed.csv').filter((k) => k.error.includes('outcome unknown'));
    expect(unknown.length).toBeGreaterThan(0);
    const got = received();
    expect(got.filter((u, i) => got.indexOf(u) !== i)).toEqual([]);
    expect(new Set([...got, ...unknown.map((k) => k.user)]).size).toBe(200);
  }, 300_000);
});

describe('one batch at a time per failed file', () => {
  it('a second batch naming the same --failed is refused before sending, and the first keeps all its rows', async () => {
    // The first run's answers (all 400) are held after 10 until the second has been refused.
    const held = holdAnswers(server, 10, { answer: (res) => json(res, 400, { error: 'no' }), releaseAt: 13 });
    const first = batch([file('a.csv', csvRows(50, 'a')), '--failed', at('failed.csv'), '--concurrency', '2']);
    await until(() => server.requests.length >= 10);
    const second = await batchInProcess([file('b.csv', csvRows(50, 'b')), '--failed', at('failed.csv')]).finally(() => held.release());
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/^error: the failed file .*failed\.csv is in use by another batch \(pid \d+/m);
    expect(received().filter((u) => u.startsWith('b'))).toEqual([]);
    expect((await first).code).toBe(1);
    expect(
      kept('failed.csv')
        .map((k) => k.user)
        .sort(),
    ).toEqual(users(50, 'a').sort());
  }, 300_000);
});

describe('the printed commands, followed', () => {
  it('without --failed, the rows not accepted go to a default file that the summary names; none is made when all is accepted', async () => {
    const good = await batchInProcess([file('ok.csv', csvRows(3))]);
    expect(good.code).toBe(0);
    expect(fs.readdirSync(box.home).filter((n) => n.startsWith('trigger-failed-'))).toEqual([]);

    server.handle((req, res) =>
      userOf(req.url) === 'u1' ? json(res, 404, { error: 'no such trigger' }) : json(res, 200, { success: true }),
    );
    const bad = await batch([file('in.csv', csvRows(3))]);
    expect(bad.code).toBe(1);
    const made = fs.readdirSync(box.home).filter((n) => n.startsWith('trigger-failed-'));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^trigger-failed-\d{4}-\d\d-\d\d-\d{6}\.csv$/);
    expect(bad.stdout).toContain(`1 row kept in ${made[0]}`);
    expect(kept(made[0]!).map((k) => k.user)).toEqual(['u1']);
    const next = made[0]!.replace('.csv', '-2.csv');
    expect(printed(bad)).toEqual(['batch', made[0], '--failed', next, '--journal', `${next}.journal`, '--resume']);
  });

  it('a chain of runs each interrupted (SIGINT) and followed by the command it printed sends every row exactly once', async () => {
    const all = users(300);
    let args: string[] = ['batch', file('in.csv', csvRows(300)), '--concurrency', '4']; // no --failed: the default file
    let runs = 0;
    for (; runs < 6; runs++) {
      const before = server.requests.length;
      // From this run's 50th request on, answers wait until the batch says it was interrupted: on a
      // loaded machine the signal may be handled late, and a run that had sent every row meanwhile
      // would have nothing left to carry on with.
      const held = holdAnswers(server, runs < 3 ? before + 50 : Infinity);
      const interrupt = (child: ReturnType<typeof spawn>) => {
        killAfter(server, before + 50, 'SIGINT')(child);
        child.stderr?.on('data', (chunk: Buffer) => {
          if (String(chunk).includes('interrupted')) held.release();
        });
      };
      const result = await run(args, { env: box.env, timeoutMs: 240_000, cwd: box.home, onSpawn: runs < 3 ? interrupt : undefined });
      if (runs < 3) {
        expect(result.code).toBe(130);
        // The command names a new failed file: never the one being replayed, never none.
        const next = printed(result)!;
        expect(next).toContain('--failed');
        expect(next[next.indexOf('--failed') + 1]).not.toBe(next[1]);
        args = next;
      } else {
        expect(result.code).toBe(0);
        break;
      }
    }
    expect(runs).toBe(3);
    expectEachOnce(all);
  }, 120_000);
});

describe('a pipe on stdin and a signal', () => {
  it('SIGTERM stops reading a pipe whose producer goes on: the batch ends by itself with every row read kept', async () => {
    slowly(30);
    const child = spawn(
      process.execPath,
      [BIN, 'batch', '-', '--format', 'lines', '--trigger', 't', '--failed', at('failed.csv'), '--concurrency', '2'],
      {
        env: box.env,
        cwd: box.home,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // A producer that never ends: a line every 2 ms, as `tail -f` or a slow query would.
    let n = 0;
    const producer = setInterval(() => {
      if (child.stdin.writable) child.stdin.write(`u${n++}\n`);
    }, 2);
    child.stdin.on('error', () => undefined);
    await until(() => server.requests.length >= 10);
    child.kill('SIGTERM');
    // A batch that kept reading the pipe would never end (the producer goes on): a SIGKILL long after
    // any grace period (as `timeout -k` would send) tells that apart from a loaded machine's slowness.
    const grace = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    clearTimeout(grace);
    clearInterval(producer);
    expect(signal).toBeNull();
    expect(code).toBe(143); // ended by itself, not by the SIGKILL
    const last = Number(/standard input was read up to line (\d+)/.exec(stderr)?.[1]);
    expect(last).toBeGreaterThan(10);
    // Lines 1..last are user u0..u(last-1): each was received once or kept, none both.
    const keptUsers = kept('failed.csv').map((k) => k.user);
    expect(keptUsers.length).toBeGreaterThan(0);
    expect(keptUsers.every((u) => /^u\d+$/.test(u))).toBe(true); // no line cut short
    expectEachOnce(users(last), keptUsers);
  }, 40_000);

  describe('on a terminal', () => {
    needs(...TERMINAL);
    it('on a terminal, batch - says it reads rows there and that Ctrl-D ends them', async () => {
      const result = await inTerminal(['batch', '-', '--format', 'lines', '--trigger', 't'], {
        env: box.env,
        waitFor: 'Ctrl-D',
        input: [
          [0.2, 'alice\n'],
          [0.4, '\x04'],
        ],
      });
      expect(result.output).toContain('reading rows from the terminal (one user id a line); press Ctrl-D on a new line to end them');
      expect(result.status).toBe(0);
      expect(received()).toEqual(['alice']);
    }, 30_000);
  });
});

describe('a standard output that cannot be written', () => {
  /** Runs with stdout on /dev/full (asynchronously: the server answers from this process). */
  const toDevFull = async (args: string[]) => {
    const out = fs.openSync('/dev/full', 'w');
    try {
      const child = spawn(process.execPath, [BIN, ...args], { env: box.env, cwd: box.home, stdio: ['ignore', out, 'pipe'] });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      return { code, stderr };
    } finally {
      fs.closeSync(out);
    }
  };

  it.runIf(fs.existsSync('/dev/full'))(
    'batch --json > /dev/full: one line, sending stops, the rows are kept and the summary given',
    async () => {
      slowly(2);
      const result = await toDevFull(['batch', file('in.csv', csvRows(1000)), '--json', '--failed', at('failed.csv')]);
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(result.stderr).toMatch(/^error: cannot write to standard output \(no space left on the device\)/m);
      expect(result.stderr).toMatch(/✖ stopped early \(standard output could not be written: no space left on the disk\)/);
      expect(result.code).toBe(1);
      expect(received().length).toBeLessThan(1000);
      const keptUsers = kept('failed.csv').map((k) => k.user);
      expect(
        kept('failed.csv').every((k) => k.error.includes('not sent: the batch stopped because standard output could not be written')),
      ).toBe(true);
      expectEachOnce(users(1000), keptUsers);
    },
  );
});

/** Mounts a small tmpfs (root only); undefined where that is not allowed. */
function smallTmpfs(dir: string, size: string): (() => void) | undefined {
  fs.mkdirSync(dir, { recursive: true });
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  if (mounted.status !== 0) return undefined;
  return () => spawnSync('umount', ['-l', dir]);
}

describe('a journal on a full file system', () => {
  needs('mount');
  it('stops sending when an outcome cannot be journaled, says so, and the printed replay sends every row once', async () => {
    slowly(1);
    const disk = at('small-disk');
    const unmount = smallTmpfs(disk, '8k');
    if (!unmount) return expect.fail('mount -t tmpfs failed (run as root, or where mounting is allowed)');
    try {
      const input = file('in.csv', csvRows(1000));
      const first = await batch([input, '--journal', path.join(disk, 'j'), '--failed', at('failed.csv')]);
      expect(first.code).toBe(1);
      expect(first.stderr).toMatch(/stopping: the journal .*small-disk\/j could not be written \(no space left on the disk\)/);
      expect(first.stdout + first.stderr).toContain('do not carry the batch on with --resume');
      const sentFirst = received().length;
      expect(sentFirst).toBeGreaterThan(0);
      expect(sentFirst).toBeLessThan(1000);
      expectEachOnce(
        users(1000),
        kept('failed.csv').map((k) => k.user),
      );
      const next = printed(first)!;
      // Not the journal that is behind: the replay's own, beside the failed file.
      expect(next).not.toContain(path.join(disk, 'j'));
      expect(next.slice(-3)).toEqual(['--journal', `${at('failed-2.csv')}.journal`, '--resume']);
      const replay = await runBuilt(next, { env: box.env, cwd: box.home });
      expect(replay.code).toBe(0);
      expectEachOnce(users(1000));
      expect(fs.readFileSync(path.join(disk, 'j'), 'utf8')).not.toContain(TEST_KEY);
    } finally {
      unmount();
    }
  }, 300_000);
});

describe('a batch without --failed in a folder that cannot be written', () => {
  needs('mount');
  it('is refused before it sends (exit 2, one line), as a --failed there is; a dry run, or --failed elsewhere, runs', async () => {
    const folder = at('read-only');
    fs.mkdirSync(folder);
    // Read-only for root too: a tmpfs mounted ro (EROFS), where chmod would not stop root.
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=16k', 'tmpfs', folder]).status !== 0)
      return expect.fail('mount -t tmpfs -o ro failed');
    try {
      const input = file('in.csv', csvRows(50));
      server.handle((req, res) =>
        userOf(req.url) === 'u10' ? json(res, 404, { error: 'no such trigger' }) : json(res, 200, { success: true }),
      );
      // Before (audit27 #14): a warning, then the rows before u10 sent, and the batch stopped there, 39 rows neither sent nor kept.
      for (const more of [[], ['--json']]) {
        const refused = await run(['batch', input, '--concurrency', '1', ...more], { env: box.env, cwd: folder });
        expect({ code: refused.code, sent: received().length }).toEqual({ code: 2, sent: 0 });
        expect(refused.stderr).toBe(
          `error: the current folder ${folder} cannot be written (the file system is read-only), and rows not accepted are kept there; ` +
            'nothing was sent — pass --failed <file> in a folder you can write to\n',
        );
      }
      expect((await run(['batch', input, '--dry-run'], { env: box.env, cwd: folder })).code).toBe(0);
      expect(received()).toHaveLength(0);
      const elsewhere = await run(['batch', input, '--failed', at('failed.csv')], { env: box.env, cwd: folder });
      expect({ code: elsewhere.code, sent: received().length }).toEqual({ code: 1, sent: 50 });
      expect(keptRows(fs.readFileSync(at('failed.csv'), 'utf8')).map((k) => k.user)).toEqual(['u10']);
    } finally {
      spawnSync('umount', ['-l', folder]);
    }
  }, 300_000);
});

describe('input and paths that are not what they should be', () => {
  // The same refusal in batch (an invalid row) runs in-process: test/in-process/spawns-batch.test.ts.
  it('ids that are not valid UTF-8 are refused in fire (exit 2), never sent as U+FFFD', async () => {
    // bash passes the two bytes as they are: Node's argv has them as U+FFFD U+FFFD.
    const fire = await run(['-c', `exec "${process.execPath}" "${BIN}" fire t $'\\xff\\xfe'`], { env: box.env, command: 'bash' });
    expect(fire.code).toBe(2);
    expect(fire.stderr).toMatch(/^error: userId is not valid UTF-8 text/m);
    expect(received()).toEqual([]);
  });
});

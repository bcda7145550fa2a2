/**
 * `trigger batch` under the faults of real backfills: signals, kill -9 with a journal, stdin,
 * a failed file that cannot be written, and the replay command after all of them. The built binary
 * against a real node:http server on 127.0.0.1, asserting what the server received.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, TEST_KEY, expectNoKey, run, type Sandbox } from '../helpers/cli.js';
import { runBuilt } from '../helpers/built-in-process.js';
import { json, killAfter, type TestServer, useServer } from '../helpers/server.js';
import { holdAnswers, keptRows, userOf, csvRows } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const at = (name: string) => path.join(box.home, name);
const file = (name: string, text: string | Buffer) => {
  fs.writeFileSync(at(name), text);
  return at(name);
};
const read = (name: string) => fs.readFileSync(at(name), 'utf8');
// 20,000 rows took over 60 s under a load of 27 on two cores: the time limit only catches a hang.
const batch = (args: string[], input?: string) => run(['batch', ...args], { env: box.env, input, timeoutMs: 240_000 });
/**
 * The runs that only refuse, or follow a printed command, after the process that matters (killed,
 * interrupted) has ended: in-process, with the same arguments and assertions, and no Node to start.
 */
const batchInProcess = (args: string[]) => runBuilt(['batch', ...args], { env: box.env });
const keptIn = (name: string) => keptRows(read(name));

describe('kill -9 with a journal, then --resume', () => {
  it('sends no row twice across the two runs, and accounts for every row', async () => {
    // 1,000 rows (once 20,000), answered up to the 250th request and held after it, killed there: the
    // kill surely lands mid-batch with 8 in flight, so the journal, the refusals and the resume are
    // tested as before, without making the batch long enough for a kill to land in by chance.
    holdAnswers(server, 250);
    const input = file('big.csv', csvRows(1_000));
    const journal = at('big.journal');
    const killed = await run(['batch', input, '--concurrency', '8', '--journal', journal, '--failed', at('failed.csv')], {
      env: box.env,
      timeoutMs: 60_000,
      onSpawn: killAfter(server, 250, 'SIGKILL'),
    });
    expect(killed.signal).toBe('SIGKILL');
    const firstRun = server.requests.length;
    expect(firstRun).toBeGreaterThanOrEqual(250);
    expect(firstRun).toBeLessThan(1_000);
    server.handle((_req, res) => json(res, 200, { success: true }));
    expect(fs.readFileSync(journal, 'utf8')).not.toContain(TEST_KEY);

    // The journal is never ignored: without --resume nothing is sent. (Run one after the other: each
    // takes the journal's lock.)
    const again = await batchInProcess([input, '--journal', journal, '--failed', at('failed.csv')]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already records a batch of .*big\.csv that did not finish/);
    expect(again.stderr).toContain(`--journal ${journal} --resume`);
    // Nor with another input.
    const other = file('other.csv', csvRows(1_000, 'x'));
    const wrong = await batchInProcess([other, '--journal', journal, '--resume']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('was made for another input');
    expect(server.requests.length).toBe(firstRun);

    const resumed = await batch([input, '--journal', journal, '--resume', '--failed', at('failed.csv')]);
    expect(resumed.code).toBe(1); // the rows of unknown outcome are not accepted
    const users = server.requests.map((r) => userOf(r.url));
    expect(new Set(users).size).toBe(users.length); // nothing twice
    const kept = keptIn('failed.csv');
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(16); // about the concurrency (8) in flight at the kill
    expect(kept.every((k) => /^"?line \d+: outcome unknown: in flight when an earlier run/.test(k.error))).toBe(true);
    // Written down as "about to be sent" before the kill: each may or may not have reached the server,
    // and the resumed run never sends them.
    const resumedUsers = users.slice(firstRun);
    expect(kept.filter((k) => resumedUsers.includes(k.user))).toEqual([]);
    // Every row was received exactly once, or kept: the kept ones were received once too.
    expect(new Set([...users, ...kept.map((k) => k.user)]).size).toBe(1_000);
    expect(resumed.stdout).toMatch(/accepted in an earlier run/);

    // A completed batch guards against sending the backfill twice; and the replay the summary prints
    // sends nothing twice: it skips the unknown rows. Neither sends nor changes what the other reads.
    // (One of the two in-process: a second at once would swap process.stdout under the first.)
    const before = server.requests.length;
    const [twice, replay] = await Promise.all([batchInProcess([input, '--journal', journal]), batch([at('failed.csv')])]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('already records a completed batch');
    expect(server.requests.length).toBe(before);
    expect(replay.stdout + replay.stderr).toContain('outcome unknown');
    expectNoKey(resumed);
  }, 600_000);

  // Refusals that check only a message and an exit code run in-process: test/commands/batch-usage.test.ts.
  it('refuses a journal for stdin, and --resume without --journal', async () => {
    const stdin = await batch(['-', '--journal', at('j')], csvRows(3));
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain('--journal needs the input as a regular file');
    const alone = await batchInProcess([file('a.csv', csvRows(3)), '--resume']);
    expect(alone.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});

describe('signals', () => {
  it('the first signal ends a Retry-After wait: the row is unsent, nothing new goes out', async () => {
    // Retry-After: 50 s, and the run is killed after 30: a batch that waited it out would not exit 130.
    server.handle((_req, res) => json(res, 503, { error: 'busy' }, { 'retry-after': '50' }));
    const input = file('busy.csv', csvRows(20));
    let signalledAt = 0;
    const result = await run(['batch', input, '--failed', at('kept.csv'), '--concurrency', '4'], {
      env: box.env,
      timeoutMs: 30_000,
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (server.requests.length >= 4) {
            clearInterval(poll);
            setTimeout(() => {
              signalledAt = server.requests.length;
              child.kill('SIGINT');
            }, 200);
          }
        }, 5);
      },
    });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(130);
    expect(server.requests.length).toBe(signalledAt);
    const kept = keptIn('kept.csv');
    expect(kept).toHaveLength(20);
    expect(kept.every((k) => k.error.includes('not sent: the batch was interrupted (SIGINT)'))).toBe(true);
  }, 40_000);

  it('a double Ctrl-C, then the replay command the summary prints: no event is sent twice', async () => {
    server.handle(async (req, res) => {
      if (userOf(req.url).startsWith('u')) return; // the first rows hang until cancelled
      json(res, 200, { success: true });
    });
    const input = file('cc.csv', csvRows(40));
    const result = await run(['batch', input, '--failed', at('cc-failed.csv'), '--concurrency', '8'], {
      env: box.env,
      onSpawn: killAfter(server, 8, 'SIGINT', 'SIGTERM'),
    });
    expect(result.code).toBe(130); // the first signal decides the exit code
    const command = /send them later with: (trigger batch \S+)/.exec(result.stderr)?.[1];
    expect(command).toBe(`trigger batch ${at('cc-failed.csv')}`);
    const firstRun = server.requests.map((r) => userOf(r.url));
    expect(firstRun).toHaveLength(8);

    server.handle((_req, res) => json(res, 200, { success: true }));
    const replay = await batchInProcess([at('cc-failed.csv'), '--failed', at('cc-again.csv')]);
    const sent = server.requests.slice(8).map((r) => userOf(r.url));
    expect(sent).toHaveLength(32);
    expect(sent.filter((u) => firstRun.includes(u))).toEqual([]);
    expect(replay.code).toBe(1); // the 8 skipped rows are still not accepted
    expect(replay.stdout).toMatch(/32 accepted · 0 failed · 0 invalid · 8 outcome unknown of 40 rows/);
    expect(replay.stderr).toContain('skipped: an earlier run could not tell whether it was recorded');
    // The skipped rows stay marked, so the next replay skips them too; --retry-unknown sends them.
    const retry = await batchInProcess([at('cc-again.csv'), '--retry-unknown']);
    expect(retry.code).toBe(0);
    expect(
      server.requests
        .slice(40)
        .map((r) => userOf(r.url))
        .sort(),
    ).toEqual([...firstRun].sort());
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('fire under %s prints its JSON object and exits %i', async (signal, code) => {
    server.handle(() => undefined); // never answers
    const result = await run(['fire', 'deploy', 'alice', '--json'], { env: box.env, onSpawn: killAfter(server, 1, signal) });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(code);
    const object = JSON.parse(result.stdout) as { ok: boolean; error: { kind: string; exitCode: number } };
    expect(object).toMatchObject({ ok: false, triggerId: 'deploy', userId: 'alice', error: { kind: 'interrupted', exitCode: code } });
    expect(result.stderr).toContain('may or may not have been recorded');
  });
});

// Broken input, a journal with nothing in it yet, a leftover temporary file and --rate run in-process:
// test/in-process/batch-durability.test.ts.

describe('the failed file', () => {
  it('is refused when it is the file behind stdin, and the input is untouched', async () => {
    const input = file('in.csv', csvRows(5));
    const child = spawn(process.execPath, [BIN, 'batch', '-', '--failed', input], {
      env: box.env,
      stdio: [fs.openSync(input, 'r'), 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const status = await new Promise((resolve) => child.on('close', resolve));
    const result = { status, stderr };
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('is the file behind standard input; it would be overwritten');
    expect(read('in.csv')).toBe(csvRows(5));
    expect(server.requests).toHaveLength(0);
  });

  it('is written in place when it is not a regular file (a FIFO)', async () => {
    const fifo = at('fifo');
    execFileSync('mkfifo', [fifo]);
    server.handle((_req, res) => json(res, 500, { error: 'boom' }));
    const reader = new Promise<string>((resolve) => {
      let text = '';
      fs.createReadStream(fifo, 'utf8')
        .on('data', (d) => (text += String(d)))
        .on('end', () => resolve(text));
    });
    const result = await batch([file('f.csv', csvRows(3)), '--failed', fifo]);
    expect(result.code).toBe(1);
    expect((await reader).trim().split('\n')).toHaveLength(4);
    expect(fs.statSync(fifo).isFIFO()).toBe(true);
  });

  it('on a full disk: sending stops, the summary counts the rows that could not be kept, exit 1', async () => {
    const dir = at('small-disk');
    fs.mkdirSync(dir);
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir]).status === 0;
    const target = mounted ? path.join(dir, 'failed.csv') : '/dev/full';
    try {
      if (mounted) fs.writeFileSync(path.join(dir, 'filler'), Buffer.alloc(256 * 1024 - 100 * 1024)); // room for one 64 KiB write, not two
      const reason = 'r'.repeat(200);
      server.handle((_req, res) => json(res, 400, { error: reason }));
      const result = await batch([file('many.csv', csvRows(5000)), '--failed', target, '--concurrency', '2']);
      expect(result.code).toBe(1);
      expect(result.stderr).not.toContain('a bug in trigger');
      expect(result.stderr).toMatch(/stopping: .* could not be written \(no space left on the disk\)/);
      const line = /could not be written \(no space left on the disk\): ([\d,]+) rows? could not be kept; it holds ([\d,]+) rows?/.exec(
        result.stdout + result.stderr,
      );
      expect(line).not.toBeNull();
      const notKept = Number(line![1]!.replaceAll(',', ''));
      const kept = Number(line![2]!.replaceAll(',', ''));
      expect(server.requests.length).toBeLessThan(5000); // sending stopped
      expect(kept + notKept).toBe(5000);
      if (mounted) {
        const rows = read('small-disk/failed.csv').split('\n');
        expect(rows.at(-1)).toBe(''); // whole rows only
        expect(rows.length - 2).toBe(kept);
      }
    } finally {
      if (mounted) spawnSync('umount', [dir]);
    }
  });
});

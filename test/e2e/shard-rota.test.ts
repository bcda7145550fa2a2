/**
 * `trigger batch --shard i/n` on a strict rate takes turns with the other shards on the wall clock
 * (the pace's rota, wired in src/commands/batch.ts: `rota: shardRota(options.shard)`). Two shards of
 * the real binary at once against a real server on 127.0.0.1 with a strict 20/s limit (no burst, no
 * Retry-After): once on the rota, the service's acceptances in each 2 s turn are (nearly all) the turn owner's.
 * What the rota decides is pinned on the simulated clock in test/unit/pace-*.test.ts; this file shows
 * only that the binary uses it. It reads the server's wall clock (Date.now, the rota's own clock),
 * never a process's time: under load a turn still goes to its owner, only fuller or emptier, but for one whose shard's process
 * did not run for part of it (see OWNED).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, sandbox, type RunResult, type Sandbox } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { csvRows, keptRows, userOf, users } from '../helpers/batch.js';

/** The limit: one request accepted every SPACING_MS at most, the others refused (503, no Retry-After). */
const SPACING_MS = 50;
/** Every answer, accepted or refused, after this: a round trip the pace sees, the same for both (a rate, not slots). */
const ANSWER_MS = 15;
/** Rows in the file, about half for each shard: 18-24 s in all (both shards at 20/s between them, and the last one's end alone). */
const ROWS = 320;
/** The rota's turns: turn k of the wall clock is shard (k mod 2) + 1's. */
const TURN_MS = 2_000;
/** The pace learns the limit is a rate (10 accepted, 10 refused) and starts the rota: turns judged from this long after the start. */
const SETTLED_MS = 5_000;
/**
 * At least FEW whole turns judged, and the owner's share of a turn at least OWNED on average over them, the lowest left out.
 * Measured (2026-11-28, 2 cores, 27 runs with the rota, 21 of them beside two busy loops): 4-7 turns judged (5-7 with these
 * settings), the owner's share 1.00 in most turns, the lowest 0.70, the mean per run 0.91-1.00. Without it (`rota` left out of
 * batch.ts, 17 runs): 0.00-0.97 a turn, the mean per run 0.06-0.63, one shard often done seconds before the other (1-6 turns
 * judged). "90% of a turn's in 70% of the turns" failed 2 runs of 16 with the rota.
 * The lowest turn is left out (flake26, 2026-11-29): a shard whose process does not run for part of its turn has the rest of it
 * taken over, as the rota means (the other's probes find the limit free, and five accepted say that shard is gone). Shard 1
 * stopped (SIGSTOP) for 700 ms in one of its turns, 4 runs: that turn 0.53-0.71, the mean 0.83-0.95. One of 63 CI runs failed
 * so, with four turns judged: 1.00 0.73 1.00 0.41, mean 0.78. With the lowest left out, 21 runs with the rota (8 beside a busy
 * loop on one core, 6 beside two other e2e files, the 4 stopped): 0.93-1.00, and that CI run 0.91; without the rota, 9 runs:
 * 0.49-0.72.
 */
const [OWNED, FEW, MOSTLY] = [0.8, 4, 0.9];

const KEYS = ['tk_test_shardOne_Abc123xyz789', 'tk_test_shardTwo_Abc123xyz789'];

interface Accepted {
  shard: number;
  user: string;
  at: number;
}

let server: TestServer | undefined;
const boxes: Sandbox[] = [];
afterEach(async () => {
  await server?.close();
  boxes.splice(0).forEach((box) => box.cleanup());
});

/** A strict 20/s service that records each acceptance with the shard whose key sent it, on the wall clock. */
async function strictService(accepted: Accepted[]): Promise<TestServer> {
  let last = -Infinity;
  const started = await startServer();
  started.handle(async (req, res) => {
    const at = Date.now();
    const ok = at - last >= SPACING_MS;
    if (ok) {
      last = at;
      const shard = KEYS.findIndex((key) => req.headers.authorization === `Bearer ${key}`) + 1;
      accepted.push({ shard, user: userOf(req.url), at });
    }
    await new Promise((resolve) => setTimeout(resolve, ANSWER_MS));
    if (ok) json(res, 200, { success: true });
    else json(res, 503, { success: false });
  });
  return started;
}

/** Runs shard `index` of 2 over the whole file in its own sandbox (its own key, home and failed file). */
function shard(index: number, url: string): { result: Promise<RunResult>; failed: () => string[] } {
  const box = sandbox({ TRIGGER_API_KEY: KEYS[index - 1], TRIGGER_BASE_URL: url });
  boxes.push(box);
  const input = path.join(box.home, 'rows.csv');
  const failedFile = path.join(box.home, 'failed.csv');
  fs.writeFileSync(input, csvRows(ROWS));
  const args = ['batch', input, '--shard', `${index}/2`, '--concurrency', 'auto', '--failed', failedFile, '--quiet'];
  return {
    result: run(args, { env: box.env, timeoutMs: 50_000 }),
    failed: () => (fs.existsSync(failedFile) ? keptRows(fs.readFileSync(failedFile, 'utf8')).map((row) => row.user) : []),
  };
}

/** For each whole turn from `from` to `to` (wall clock), the share of its acceptances that were its owner's (0 for none). */
function ownerShares(accepted: Accepted[], from: number, to: number): number[] {
  const shares: number[] = [];
  for (let turn = Math.ceil(from / TURN_MS); (turn + 1) * TURN_MS <= to; turn++) {
    const inTurn = accepted.filter(({ at }) => Math.floor(at / TURN_MS) === turn);
    const owner = (turn % 2) + 1;
    shares.push(inTurn.length ? inTurn.filter((a) => a.shard === owner).length / inTurn.length : 0);
  }
  return shares;
}

describe('--shard on a strict rate', () => {
  it('two shards at once take turns: the service accepts (nearly) only the owner of each 2 s turn', async () => {
    const accepted: Accepted[] = [];
    server = await strictService(accepted);
    const start = Date.now();
    const shards = [shard(1, server.url), shard(2, server.url)];
    const results = await Promise.all(shards.map((s) => s.result));
    for (const result of results) expect(result.code, result.stderr).toBe(0);

    // Every row accepted exactly once, or kept in a failed file.
    const sent = accepted.map((a) => a.user);
    expect(new Set(sent).size).toBe(sent.length);
    expect([...sent, ...shards.flatMap((s) => s.failed())].sort()).toEqual(users(ROWS).sort());

    // Judged while both send: up to the earlier shard's last acceptance (then the other takes over its turns).
    const last = Math.min(...[1, 2].map((i) => Math.max(...accepted.filter((a) => a.shard === i).map((a) => a.at))));
    const shares = ownerShares(accepted, start + SETTLED_MS, last);
    const counted = [...shares].sort((a, b) => a - b).slice(1); // the lowest left out (see OWNED)
    const mean = counted.reduce((sum, share) => sum + share, 0) / counted.length;
    const seen = shares.map((share) => share.toFixed(2)).join(' ');
    expect(mean, `the owner's share of each turn (the lowest left out): ${seen}`).toBeGreaterThanOrEqual(OWNED);
    // And most turns the owner's (review26: without the rota the mean of all but the lowest reached 0.74-0.76 against 0.8).
    expect(counted[counted.length >> 1], `the owner's share of the middle turn: ${seen}`).toBeGreaterThanOrEqual(MOSTLY);
    expect(shares.length, `turns judged (both shards sending): ${seen}`).toBeGreaterThanOrEqual(FEW);
  }, 55_000);
});

/**
 * Nothing twice, nothing lost (issue 19), the cases that need no process: the replay printed after
 * time-outs, 5xx and a closed connection, and --failed naming standard output with --json. In-process (main() with an explicit environment) against a real
 * node:http server on 127.0.0.1 that records what it received; moved from test/e2e/batch-once.test.ts
 * with their assertions unchanged. That file keeps the signals, locks, pipes, terminal and full disks.
 */
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RunResult, type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { json, type TestServer, useServer } from '../helpers/server.js';
import { keptRows, printedCommand, userOf, users, csvRows } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const at = (name: string) => path.join(box.home, name);
const file = (name: string, text: string | Buffer) => {
  fs.writeFileSync(at(name), text);
  return at(name);
};
// A fixed concurrency unless a test names one, as in test/e2e/batch-once.test.ts.
const batch = (args: string[]) =>
  run(['batch', ...args, ...(args.includes('--concurrency') ? [] : ['--concurrency', '4'])], {
    env: box.env,
    timeoutMs: 240_000,
  });
const received = () => server.requests.map((r) => userOf(r.url));
const kept = (name: string) => keptRows(fs.readFileSync(path.isAbsolute(name) ? name : at(name), 'utf8'));
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

describe('the printed commands, followed', () => {
  it('after time-outs, 500, 502, 504 and a connection closed after reading, following the printed replay sends no row twice', async () => {
    // Each answer below comes after the server recorded the event: a replay of any of them would double it.
    const broken: Record<string, (res: ServerResponse) => void> = {
      u1: (res) => setTimeout(() => json(res, 200, { success: true }), 2500), // after --timeout 1
      u2: (res) => json(res, 500, { error: 'boom' }),
      u3: (res) => json(res, 502, { error: 'bad gateway' }),
      u4: (res) => json(res, 504, { error: 'gateway timeout' }),
      u5: (res) => res.socket?.destroy(),
    };
    server.handle((req, res) => (broken[userOf(req.url)] ?? ((r) => json(r, 200, { success: true })))(res));
    const first = await batch([file('in.csv', csvRows(20)), '--timeout', '1', '--retries', '2']);
    expect(first.code).toBe(1);
    const next = printed(first)!;
    expect(next).toContain('--failed');
    const failedFile = next[1]!;
    const marked = kept(failedFile);
    expect(marked.map((k) => k.user).sort()).toEqual(Object.keys(broken).sort());
    expect(marked.every((k) => k.error.includes('outcome unknown'))).toBe(true);

    server.handle((_req, res) => json(res, 200, { success: true }));
    const replay = await run(next, { env: box.env, cwd: box.home });
    expect(replay.code).toBe(1); // the skipped rows are still not known to be accepted
    expect(replay.stdout + replay.stderr).toContain('skipped');
    expectEachOnce(users(20));
  }, 300_000);
});

describe('input and paths that are not what they should be', () => {
  // Refusals that check only a message and an exit code run in-process: test/commands/batch-usage.test.ts.
  it('--failed naming standard output is refused with --json (the NDJSON stream is there)', async () => {
    const result = await batch([file('in.csv', csvRows(2)), '--json', '--failed', '/dev/stdout']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is standard output, where --json writes one result per row');
    expect(result.stdout).toContain('"ok":false'); // the --json error object, and no CSV
    expect(server.requests).toHaveLength(0);
  });
});

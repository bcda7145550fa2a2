/**
 * `trigger batch --shard i/n` tells its pace that other shards send to the same service (Pace's
 * `shared`, the one expression in src/commands/batch.ts), and a batch without --shard does not: what
 * a shared pace then does differently is pinned on the simulated clock in test/unit/pace-*.test.ts.
 * Pace is replaced by a subclass that records its options (vi.mock), so this file runs isolated
 * (vitest.config.ts, MOCKING); the batches are real, in-process, against a server on 127.0.0.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type * as PaceModule from '../../src/batch/pace.js';
import type { PaceOptions } from '../../src/batch/pace.js';
import { csvRows } from '../helpers/batch.js';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import type { TestServer } from '../helpers/server.js';

const made = vi.hoisted(() => [] as PaceOptions[]);

vi.mock('../../src/batch/pace.js', async (importOriginal) => {
  const real = await importOriginal<typeof PaceModule>();
  class RecordedPace extends real.Pace {
    constructor(options: PaceOptions) {
      super(options);
      made.push(options);
    }
  }
  return { ...real, Pace: RecordedPace };
});

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

/** Runs a batch of 20 rows with `args`; the options of the paces it made, and the users the server was sent. */
async function batchWith(args: string[]) {
  made.length = 0;
  const input = path.join(sandbox.home, 'rows.csv');
  fs.writeFileSync(input, csvRows(20));
  const result = await runCommand(['batch', input, '--quiet', ...args], sandbox.env);
  expect(result.code, result.stderr).toBe(0);
  return { paces: [...made], sent: server.requests.length };
}

describe('--shard and the pace', () => {
  it('with --shard i/n, the pace (--concurrency auto) is shared', async () => {
    const { paces, sent } = await batchWith(['--shard', '1/2']);
    expect(paces).toHaveLength(1);
    expect(paces[0]!.shared).toBe(true);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(20); // the other shard's rows are not sent
  });

  it('without --shard, the pace is not shared', async () => {
    const { paces, sent } = await batchWith([]);
    expect(paces.map((options) => options.shared)).toEqual([false]);
    expect(sent).toBe(20);
  });

  it('with a fixed --concurrency, there is no pace', async () => {
    const { paces } = await batchWith(['--shard', '1/2', '--concurrency', '4']);
    expect(paces).toHaveLength(0);
  });
});

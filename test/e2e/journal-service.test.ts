/**
 * fix27a (review26b F2, "a --resume typed with another --profile"): a journal records where its rows went, the service's base URL
 * and a salted fingerprint of the key, and a run that would carry it on elsewhere or under another key is refused (exit 2), with
 * nothing sent and the journal as it was. Built binary; two counting services on 127.0.0.1: the default profile's (`prod`) and
 * staging's. A batch of 400 rows is stopped by SIGINT after 40 answers, then carried on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { killAfter } from '../helpers/server.js';
import { countingService, csvOf, printedNext, users, type CountingService } from '../helpers/batch.js';

const OTHER_KEY = 'tk_live_0therAccount_Key456';
let prod: CountingService;
let staging: CountingService;
let box: Sandbox;
beforeEach(async () => {
  prod = await countingService();
  staging = await countingService();
  box = sandbox();
});
afterEach(async () => {
  await prod.server.close();
  await staging.server.close();
  box.cleanup();
});
const trigger = (args: string[], env: NodeJS.ProcessEnv = box.env, options: Partial<Parameters<typeof run>[1]> = {}) =>
  run(args, { env, cwd: box.home, timeoutMs: 30_000, ...options });
const journal = () => fs.readFileSync(path.join(box.home, 'j'));

/** Profiles default (prod) and staging, both under TEST_KEY; a 400-row batch to prod stopped after 40 answers. Returns its --resume. */
async function stoppedBatch(): Promise<string[]> {
  for (const [service, named] of [
    [prod, []],
    [staging, ['--profile', 'staging']],
  ] as const) {
    expect((await trigger(['config', 'set-key', ...named], box.env, { input: TEST_KEY })).code).toBe(0);
    expect((await trigger(['config', 'set-base-url', service.server.url, ...named])).code).toBe(0);
  }
  fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(users(400)));
  prod.delayMs = 20;
  const args = ['batch', 'in.csv', '--journal', 'j', '--concurrency', '4', '--failed', 'f.csv'];
  const stopped = await trigger(args, box.env, { onSpawn: killAfter(prod.server, 40, 'SIGINT') });
  expect(stopped.code).toBe(130);
  prod.delayMs = 0;
  expect(prod.received().size).toBeLessThan(400);
  return printedNext(stopped);
}

/** A refused carry-on: exit 2, one error line naming `what`, no key shown, nothing sent to either service, the journal unchanged. */
async function refused(args: string[], env: NodeJS.ProcessEnv, what: RegExp): Promise<void> {
  const [before, sent] = [journal(), prod.server.requests.length];
  const result = await trigger(args, env);
  expect([result.code, result.stdout]).toEqual([2, '']);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(what);
  expect(lines[0]).toContain('nothing was sent');
  for (const key of [TEST_KEY, OTHER_KEY]) expect(result.stderr).not.toContain(key);
  expect([prod.server.requests.length - sent, staging.server.requests.length]).toEqual([0, 0]);
  expect(journal().equals(before)).toBe(true);
}

/** The printed --resume, run: every row of the 400 reached prod exactly once. */
async function resumedOnce(resume: string[]): Promise<void> {
  expect((await trigger(resume)).code).toBe(0);
  const counts = prod.received();
  expect([counts.size, Math.max(...counts.values()), staging.server.requests.length]).toEqual([400, 1, 0]);
}

describe('fix27a: a journal is carried on only by the service and key it began with', () => {
  it('another key (TRIGGER_API_KEY, or --api-key) is refused, sends nothing; the same key then sends every row once', async () => {
    const resume = await stoppedBatch();
    await refused(
      resume,
      { ...box.env, TRIGGER_API_KEY: OTHER_KEY },
      // A rotated key is the same account: the hint is how to carry the journal on, not a new --journal that sends every row again.
      /^(?!.*new --journal).*made under another API key than this run's \(from TRIGGER_API_KEY\).*if that key was rotated, .* with: sed -i\.bak '1s\/,"key":"\[0-9a-f\]\*"\/\/' \S+$/m,
    );
    await refused([...resume, '--api-key', OTHER_KEY], box.env, /another API key than this run's \(from --api-key\)/);
    expect(prod.server.requests.some((r) => (r.headers.authorization ?? '').includes(OTHER_KEY))).toBe(false);
    await resumedOnce(resume);
  }, 90_000);

  it('another --profile or --base-url is refused, naming both services; the key the journal began with, from the flag, is not', async () => {
    await stoppedBatch();
    const other = (from: string) =>
      new RegExp(
        `service at ${prod.server.url} \\(from profile "default"\\), not ${staging.server.url} \\(from ${from}\\).*` +
          'resume with the base URL it began with \\(profile "default"\\)', // review27 F4: not "the profile or --base-url"
      );
    const base = ['batch', 'in.csv', '--journal', 'j', '--resume', '--failed', 'f.csv'];
    await refused([...base, '--profile', 'staging'], box.env, other('profile "staging"'));
    await refused([...base, '--base-url', staging.server.url], box.env, other('--base-url'));
    // The same service and key, given by flags instead of the profile: carried on.
    await resumedOnce([...base, '--base-url', prod.server.url, '--api-key', TEST_KEY]);
  }, 90_000);

  it('a journal from before this record (no service in its header) still resumes', async () => {
    const resume = await stoppedBatch();
    const [header, ...records] = journal().toString('utf8').split('\n');
    const old = JSON.parse(header!) as Record<string, unknown>;
    expect(Object.keys(old)).toContain('service');
    expect(JSON.stringify(old.service)).not.toContain(TEST_KEY);
    delete old.service;
    fs.writeFileSync(path.join(box.home, 'j'), [JSON.stringify(old), ...records].join('\n'));
    await resumedOnce(resume);
  }, 90_000);
});

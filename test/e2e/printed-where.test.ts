/**
 * audit26b: the commands a batch summary prints ("carry the batch on with", "send them later with",
 * "once the cause is fixed, send them with") dropped the flags that say WHERE the rows go: --profile,
 * --base-url and --catalog. Pasted as printed, the rest of a backfill went to another service (the
 * active profile's) or to another trigger id (the one the catalog did not map), and exited 0.
 * Built binary; two counting services on 127.0.0.1: `staging` (the one the user named) and `other`
 * (the default profile's base URL).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, paste, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { killAfter } from '../helpers/server.js';
import { countingService, csvOf, printedNext, users, type CountingService } from '../helpers/batch.js';

let staging: CountingService;
let other: CountingService;
let box: Sandbox;
beforeEach(async () => {
  staging = await countingService();
  other = await countingService();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY }); // no TRIGGER_BASE_URL: the profiles say where
});
afterEach(async () => {
  await staging.server.close();
  await other.server.close();
  box.cleanup();
});
const trigger = (args: string[], options: { onSpawn?: Parameters<typeof run>[1]['onSpawn'] } = {}) =>
  run(args, { env: box.env, cwd: box.home, timeoutMs: 30_000, ...options });

describe('audit26b: a printed command sends the rest where the batch sent the start', () => {
  it('--profile staging, stopped by SIGINT: the printed --resume sends the rest to staging, not to the default profile', async () => {
    expect((await trigger(['config', 'set-base-url', other.server.url])).code).toBe(0);
    expect((await trigger(['config', 'set-base-url', staging.server.url, '--profile', 'staging'])).code).toBe(0);
    const all = users(400);
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
    staging.delayMs = 20;
    const stopped = await trigger(['batch', 'in.csv', '--profile', 'staging', '--journal', 'j', '--concurrency', '4'], {
      onSpawn: killAfter(staging.server, 40, 'SIGINT'),
    });
    expect(stopped.code).toBe(130);
    staging.delayMs = 0;
    const next = printedNext(stopped);
    expect((await trigger(next)).code).toBe(0);
    expect(other.server.requests.length).toBe(0); // was: every row not sent before the stop went to the default profile's service
    expect(staging.received().size).toBe(400);
  }, 60_000);

  it('--base-url, rows refused: the printed replay sends them to that base URL, not to the configured one', async () => {
    expect((await trigger(['config', 'set-base-url', other.server.url])).code).toBe(0);
    const all = users(20);
    staging.refused = new Set(all.slice(0, 5));
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
    const first = await trigger(['batch', 'in.csv', '--base-url', staging.server.url, '--failed', 'f.csv']);
    expect(first.code).toBe(1);
    staging.refused = new Set();
    const replay = printedNext(first);
    expect((await trigger(replay)).code).toBe(0);
    expect(other.server.requests.length).toBe(0); // was: the 5 rows went to the configured base URL
    for (const user of all) expect([user, staging.received().has(user)]).toEqual([user, true]);
  }, 60_000);

  it('--catalog: the printed replay sends the trigger id the catalog maps to, not the catalog key', async () => {
    expect((await trigger(['config', 'set-base-url', staging.server.url])).code).toBe(0);
    fs.mkdirSync(path.join(box.home, 'shared'));
    const catalog = { triggers: { t: { name: 'T', ids: { default: 'trg_live_t' } } } };
    fs.writeFileSync(path.join(box.home, 'shared', 'triggers.json'), JSON.stringify(catalog));
    const all = users(20);
    staging.refused = new Set(all.slice(0, 5));
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
    const first = await trigger(['batch', 'in.csv', '--catalog', 'shared/triggers.json', '--failed', 'f.csv']);
    expect(first.code).toBe(1);
    staging.refused = new Set();
    staging.server.requests.length = 0;
    expect((await trigger(printedNext(first))).code).toBe(0);
    const triggers = new Set(staging.server.requests.map(({ url }) => decodeURIComponent(url.split('/')[3] ?? '')));
    expect([...triggers]).toEqual(['trg_live_t']); // was: ['t'], the catalog's key, an id the service does not know
  }, 60_000);

  it('--api-key: the printed replay reads the key from $TRIGGER_API_KEY, never shows it, and sends nothing while that is unset', async () => {
    const all = users(6);
    staging.refused = new Set(all.slice(0, 2));
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
    const env = { ...box.env, TRIGGER_API_KEY: undefined };
    const args = ['batch', 'in.csv', '--api-key', TEST_KEY, '--base-url', staging.server.url, '--allow-http', '--failed', 'f.csv'];
    const first = await run(args, { env, cwd: box.home, timeoutMs: 30_000 });
    expect(first.code).toBe(1);
    expect(`${first.stdout}${first.stderr}`).not.toContain(TEST_KEY);
    const replay = /send (?:them|it) with: (trigger batch .*)$/m.exec(first.stdout)?.[1] ?? '';
    expect(replay).toContain(`--base-url ${staging.server.url} --allow-http --api-key "$TRIGGER_API_KEY"`);
    staging.refused = new Set();
    const sent = staging.server.requests.length;
    const unset = await paste(`cd ${box.home} && ${replay}`, env);
    expect([unset.code, staging.server.requests.length - sent]).toEqual([2, 0]); // an empty --api-key is refused
    const withKey = await paste(`cd ${box.home} && ${replay}`, { ...env, TRIGGER_API_KEY: TEST_KEY });
    expect(withKey.code).toBe(0);
    expect(staging.received().size).toBe(6);
  }, 60_000);
});

/**
 * review26b (eed83f2, "a printed command carries where the rows go"): pasted as printed, in the cases below the kept rows
 * went to another service, or under another key. Built binary; two counting services on 127.0.0.1. Each failed on 801293e.
 * A key given with --api-key while TRIGGER_API_KEY holds another: the summary says so beside the command (fix27a, last describe).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, paste, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { countingService, csvOf, users, type CountingService } from '../helpers/batch.js';

const OTHER_KEY = 'tk_live_0therAccount_Key456';
let staging: CountingService;
let other: CountingService;
let box: Sandbox;
beforeEach(async () => {
  staging = await countingService();
  other = await countingService();
  box = sandbox();
});
afterEach(async () => {
  await staging.server.close();
  await other.server.close();
  box.cleanup();
});
const trigger = (args: string[], env: NodeJS.ProcessEnv = box.env, input?: string) =>
  run(args, { env, cwd: box.home, timeoutMs: 30_000, ...(input === undefined ? {} : { input }) });
const printed = (result: { stdout: string; stderr: string }) =>
  /(?:send (?:them|it) with|carry the batch on with): (trigger batch .*)$/m.exec(`${result.stdout}\n${result.stderr}`)?.[1] ?? 'none';

/** default -> `other`, staging -> `staging`, both with TEST_KEY. */
async function twoProfiles(): Promise<void> {
  expect((await trigger(['config', 'set-key'], box.env, TEST_KEY)).code).toBe(0);
  expect((await trigger(['config', 'set-base-url', other.server.url])).code).toBe(0);
  expect((await trigger(['config', 'set-key', '--profile', 'staging'], box.env, TEST_KEY)).code).toBe(0);
  expect((await trigger(['config', 'set-base-url', staging.server.url, '--profile', 'staging'])).code).toBe(0);
}

/** A batch of 20 rows, 3 refused by whichever service gets them; returns the printed replay. */
async function refusedThree(args: string[], env: NodeJS.ProcessEnv = box.env): Promise<string> {
  const all = users(20);
  for (const service of [staging, other]) service.refused = new Set(all.slice(0, 3));
  fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
  const first = await trigger(['batch', 'in.csv', '--failed', 'f.csv', ...args], env);
  expect(first.code).toBe(1);
  for (const service of [staging, other]) {
    service.refused = new Set();
    service.server.requests.length = 0;
  }
  return printed(first);
}

describe('review26b: a printed replay still sends elsewhere', () => {
  it('--profile default while `config use staging` is active: the replay goes to default, not staging', async () => {
    await twoProfiles();
    expect((await trigger(['config', 'use', 'staging'])).code).toBe(0);
    const replay = await refusedThree(['--profile', 'default']);
    expect((await paste(`cd ${box.home} && ${replay}`, box.env)).code).toBe(0);
    // 801293e: the replay carries no --profile, so the 3 rows go to the active profile, staging.
    expect([other.server.requests.length, staging.server.requests.length]).toEqual([3, 0]);
  }, 60_000);

  it('the default profile in effect, then `config use staging` before the paste: the replay still goes to default', async () => {
    await twoProfiles();
    const replay = await refusedThree([]);
    expect((await trigger(['config', 'use', 'staging'])).code).toBe(0);
    expect((await paste(`cd ${box.home} && ${replay}`, box.env)).code).toBe(0);
    // 801293e: 3 rows to staging (choices.md says a later `config use` does not move the rest; it does for "default").
    expect([other.server.requests.length, staging.server.requests.length]).toEqual([3, 0]);
  }, 60_000);

  it('key from TRIGGER_API_KEY, --base-url as a flag: a paste in a shell without the variable does not send the profile key there', async () => {
    expect((await trigger(['config', 'set-key'], box.env, OTHER_KEY)).code).toBe(0);
    expect((await trigger(['config', 'set-base-url', other.server.url])).code).toBe(0);
    const replay = await refusedThree(['--base-url', staging.server.url], { ...box.env, TRIGGER_API_KEY: TEST_KEY });
    const pasted = await paste(`cd ${box.home} && ${replay}`, box.env);
    const keys = staging.server.requests.map((r) => r.headers.authorization ?? '');
    // 801293e: exit 0, the default profile's key sent to the flag's base URL (what choices.md keeps TRIGGER_BASE_URL out for).
    expect([pasted.code, keys.some((k) => k.includes(OTHER_KEY))]).toEqual([2, false]);
  }, 60_000);

  it('--allow-http with the base URL in TRIGGER_BASE_URL: the replay runs as printed in the same shell', async () => {
    // 192.0.2.1 (TEST-NET): not loopback, so plain http needs --allow-http; nothing listens, every row is kept.
    const env = { ...box.env, TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: 'http://192.0.2.1:9' };
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(users(2)));
    const first = await trigger(['batch', 'in.csv', '--failed', 'f.csv', '--allow-http', '--timeout', '1', '--retries', '0'], env);
    const replay = printed(first);
    const pasted = await paste(`cd ${box.home} && ${replay} --dry-run`, env);
    // 801293e: exit 2, "uses plain http ... pass --allow-http": the flag is dropped with the base URL left to the variable.
    expect([pasted.code, pasted.stderr.includes('plain http')]).toEqual([0, false]);
  }, 60_000);
});

describe('fix27a (review26b F2): a key given with --api-key is printed as "$TRIGGER_API_KEY", and the summary says when that is not it', () => {
  const NOTE =
    /^note: each command above reads the API key from \$TRIGGER_API_KEY, which (here holds another key|is not set here): set it to the key this batch was given with --api-key \(in CI, that same secret\) before running it$/m;
  /** 6 rows, 2 refused, sent with --api-key TEST_KEY to staging, in a shell whose TRIGGER_API_KEY is `shellKey`: the whole output. */
  async function twoRefused(shellKey: string | undefined, keyArgs = ['--api-key', TEST_KEY]) {
    const all = users(6);
    staging.refused = new Set(all.slice(0, 2));
    fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(all));
    const env = { ...box.env, TRIGGER_API_KEY: shellKey };
    const first = await trigger(['batch', 'in.csv', '--base-url', staging.server.url, '--failed', 'f.csv', ...keyArgs], env);
    expect(first.code).toBe(1);
    staging.refused = new Set();
    const output = `${first.stdout}\n${first.stderr}`;
    for (const key of [TEST_KEY, OTHER_KEY]) expect(output).not.toContain(key);
    return { output, replay: printed(first), note: NOTE.exec(first.stdout)?.[1] ?? 'none' };
  }

  it('TRIGGER_API_KEY holds another key: the note says so, and the replay run as it says sends under the batch key only', async () => {
    const { output, replay, note } = await twoRefused(OTHER_KEY);
    expect(note).toBe('here holds another key'); // 801293e..ae48731: no word, and the paste went under OTHER_KEY
    expect(output.indexOf(replay)).toBeLessThan(output.search(NOTE)); // beside the command, after it
    const sent = staging.server.requests.length;
    expect((await paste(`cd ${box.home} && ${replay}`, { ...box.env, TRIGGER_API_KEY: TEST_KEY })).code).toBe(0);
    const keys = staging.server.requests.slice(sent).map((r) => r.headers.authorization ?? '');
    expect([keys.length, keys.every((k) => k === `Bearer ${TEST_KEY}`)]).toEqual([2, true]);
  }, 60_000);

  it('unset: the note says so; the same key in both, or the key only in TRIGGER_API_KEY: no note', async () => {
    expect((await twoRefused(undefined)).note).toBe('is not set here');
    expect((await twoRefused(TEST_KEY)).note).toBe('none');
    const fromEnv = await twoRefused(TEST_KEY, []);
    expect([fromEnv.note, fromEnv.replay.includes('--api-key "$TRIGGER_API_KEY"')]).toEqual(['none', true]);
  }, 60_000);
});

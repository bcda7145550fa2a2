/**
 * The batch journal read back: what an earlier run recorded, a record torn by a kill, and the
 * journals it refuses (another input, another shard, not a journal, one that exists without --resume).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal, journalInput, type InputFingerprint } from '../../src/batch/journal.js';
import { UsageError } from '../../src/errors.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-journal-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const input: InputFingerprint = { path: '/data/big.csv', size: 1234, sha256: 'a'.repeat(64) };
const options = (over: Partial<Parameters<typeof Journal.open>[1]> = {}) => ({
  resume: false,
  inputs: [input],
  format: 'csv' as const,
  resumeCommand: 'trigger batch big.csv --journal j --resume',
  ...over,
});
const refusal = async (fn: () => Promise<unknown>): Promise<string> => {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
  throw new Error('expected a refusal');
};

describe('the journal', () => {
  it('records what a run did, and a resumed run reads it back; a torn last record is cut off', async () => {
    const file = path.join(dir, 'j');
    const first = await Journal.open(file, options());
    for (const line of [2, 3, 4, 5, 6]) first.starting(line);
    first.settled(2, 'accepted');
    first.settled(3, 'failed', 'line 3: 500 boom');
    first.settled(4, 'unsent');
    first.settled(5, 'unknown');
    first.close(false); // line 6 stays "about to be sent": in flight when it ended
    fs.appendFileSync(file, 'a 6'); // a record torn by the kill: no newline

    const resumed = await Journal.open(file, options({ resume: true }));
    expect([2, 3, 4, 5, 6, 7].map((line) => resumed.prior(line))).toEqual([
      { kind: 'earlier' },
      { kind: 'failed', reason: 'line 3: 500 boom' },
      undefined,
      { kind: 'unknown', reason: expect.stringMatching(/^in flight when an earlier run/) },
      { kind: 'unknown', reason: expect.stringMatching(/^in flight when an earlier run/) },
      undefined,
    ]);
    expect(resumed.resumed).toBe(true);
    resumed.starting(7);
    resumed.close(true);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain('a 6');
    expect(text.split('\n').slice(-3, -1)).toEqual(['s 7', expect.stringMatching(/^done \{/)]);
  });

  it('keeps the cause of a row of unknown outcome (a 500 and its request id) for the resumed run, unless it was sent again since', async () => {
    const file = path.join(dir, 'j');
    const first = await Journal.open(file, options());
    for (const line of [2, 3]) first.starting(line);
    first.settled(2, 'unknown', 'outcome unknown: no definitive answer: 500 Internal Server Error: boom (request id req-42)');
    first.settled(3, 'unknown', 'outcome unknown: no definitive answer: 500 Internal Server Error: boom');
    first.close(false);
    const second = await Journal.open(file, options({ resume: true }));
    expect(second.prior(2)).toEqual({
      kind: 'unknown',
      reason: 'no definitive answer: 500 Internal Server Error: boom (request id req-42)',
    });
    second.starting(3); // --retry-unknown sends it again, and the run is killed with it in flight
    second.close(false);
    const third = await Journal.open(file, options({ resume: true }));
    expect(third.prior(2)).toEqual(second.prior(2));
    expect(third.prior(3)).toEqual({ kind: 'unknown', reason: expect.stringMatching(/^in flight when an earlier run/) });
    third.close(false);
  });

  it('refuses to be ignored, and refuses another input, another shard, or a file that is not a journal', async () => {
    const file = path.join(dir, 'j');
    (await Journal.open(file, options({ shard: '1/2' }))).close(false);
    expect(await refusal(() => Journal.open(file, options({ shard: '1/2' })))).toMatch(
      /already records a batch of \/data\/big\.csv that did not finish/,
    );
    expect(
      await refusal(() => Journal.open(file, options({ resume: true, shard: '1/2', inputs: [{ ...input, sha256: 'b'.repeat(64) }] }))),
    ).toContain('was made for another input');
    expect(await refusal(() => Journal.open(file, options({ resume: true, shard: '2/2' })))).toContain('is for shard 1/2, not shard 2/2');
    expect(await refusal(() => Journal.open(file, options({ resume: true })))).toContain('is for shard 1/2, not the whole input');
    const other = path.join(dir, 'notes.txt');
    fs.writeFileSync(other, 'hello\n');
    expect(await refusal(() => Journal.open(other, options({ resume: true })))).toContain('is not a trigger batch journal');
  });

  it('refuses a FIFO put in its place after the command checked the path: opened without waiting for a writer (audit27 #6)', async () => {
    const file = path.join(dir, 'j');
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    expect(await refusal(() => Journal.open(file, options({ resume: true })))).toBe(
      `--journal ${file} is a device or a FIFO, not a regular file; nothing was sent`,
    );
  });

  it('never holds the key: only line numbers, outcomes and the reasons it is given', async () => {
    const file = path.join(dir, 'j');
    const journal = await Journal.open(file, options());
    journal.starting(2);
    journal.settled(2, 'failed', 'line 2: 401 ••••WXYZ refused');
    journal.close(true);
    expect(fs.readFileSync(file, 'utf8')).toMatch(
      /^\{"journal":"trigger batch journal","version":1,.*\}\ns 2\nf 2 "line 2: 401 ••••WXYZ refused"\ndone /,
    );
  });

  it('records the service and a salted print of the key, never the key; refuses another base URL or key, not a dry run without one', async () => {
    const key = 'tk_live_Abcdef0123456789';
    const service = { url: 'https://api.example.com', urlFrom: 'profile "default"', keyFrom: 'TRIGGER_API_KEY', key };
    const [a, b] = [path.join(dir, 'a'), path.join(dir, 'b')];
    for (const file of [a, b]) (await Journal.open(file, options({ service }))).close(false);
    const recorded = [a, b].map(
      (file) => (JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]!) as { service: { key: string } }).service,
    );
    for (const text of [key, Buffer.from(key).toString('hex'), Buffer.from(key).toString('base64')])
      expect(fs.readFileSync(a, 'utf8').toLowerCase()).not.toContain(text.toLowerCase());
    expect(recorded[0]!.key).toMatch(/^[0-9a-f]{16}$/);
    expect(recorded[0]!.key).not.toBe(recorded[1]!.key); // each journal its own salt: two journals do not show they share a key
    const resume = async (over: Partial<typeof service> & { key?: string | undefined }) =>
      (await Journal.open(a, options({ resume: true, service: { ...service, ...over } }))).close(false);
    expect(await refusal(() => resume({ key: 'tk_live_Abcdef0123456780', keyFrom: '--api-key' }))).toBe(
      `the journal ${a} was made under another API key than this run's (from --api-key); nothing was sent`,
    );
    // review27 F1: a key changed where it came from (a second `config set-key`) says so, not "(from X)" twice.
    expect(await refusal(() => resume({ key: 'tk_live_Abcdef0123456780' }))).toContain(
      `another API key than this run's (from TRIGGER_API_KEY, which holds another key now)`,
    );
    expect(await refusal(() => resume({ url: 'https://staging.example.com', urlFrom: '--base-url' }))).toContain(
      'made for the service at https://api.example.com (from profile "default"), not https://staging.example.com (from --base-url)',
    );
    await expect(resume({ key: undefined })).resolves.toBeUndefined(); // a dry run with no key: nothing is sent, the URL alone is matched
    await expect(resume({})).resolves.toBeUndefined();
  });

  it('after a key rotation, the command its hint prints drops the key print alone: the new key resumes, another base URL is still refused', async () => {
    const service = { url: 'https://api.example.com', urlFrom: 'profile "default"', keyFrom: 'TRIGGER_API_KEY', key: 'tk_live_old0123' };
    const file = path.join(dir, "it's a journal"); // quoted for the shell in the hint
    const first = await Journal.open(file, options({ service }));
    first.starting(2);
    first.settled(2, 'accepted');
    first.close(false);
    const before = fs.readFileSync(file, 'utf8');
    const rotated = options({ resume: true, service: { ...service, key: 'tk_live_new4567' } });
    const hint = await Journal.open(file, rotated).then(
      () => '',
      (error: UsageError) => error.hint ?? '',
    );
    // Before (fix27a): 'delete "service" from the journal's first line', by hand, which dropped the base URL's check too (review27b).
    const command = /with: (sed .*)$/.exec(hint)?.[1] ?? 'false';
    expect(spawnSync('sh', ['-c', command], { cwd: dir }).status).toBe(0);
    expect(fs.readFileSync(`${file}.bak`, 'utf8')).toBe(before);
    expect(fs.readFileSync(file, 'utf8')).toBe(before.replace(/,"key":"[0-9a-f]{16}"/, '')); // that field alone, the records kept
    const resumed = await Journal.open(file, rotated);
    expect(resumed.prior(2)).toEqual({ kind: 'earlier' });
    resumed.close(false);
    const elsewhere = { ...service, key: 'tk_live_new4567', url: 'https://staging.example.com', urlFrom: '--base-url' };
    expect(await refusal(() => Journal.open(file, { ...rotated, service: elsewhere }))).toContain('made for the service at');
  });

  it('is read a MiB at a time: a header of many MiB, then records and reasons across the edges of the pieces, a torn tail cut off', async () => {
    const file = path.join(dir, 'j');
    const parts = Array.from({ length: 30_000 }, (_, i) => ({ ...input, path: `/data/export/part-${String(i).padStart(5, '0')}.csv.gz` }));
    const first = await Journal.open(file, options({ inputs: parts }));
    first.close(false);
    expect(fs.statSync(file).size).toBeGreaterThan(3 * 1024 * 1024); // the header alone: the first piece grows to hold it
    const records = Array.from({ length: 200_000 }, (_, i) => {
      const line = i + 2;
      return line % 3 === 0 ? `s ${line}\na ${line}\n` : line % 3 === 1 ? `f ${line} "refused ${line} ✔"\n` : `s ${line}\n`;
    });
    fs.appendFileSync(file, `${records.join('')}a 200002`); // the last one torn by a kill
    const whole = fs.statSync(file).size - 'a 200002'.length;
    const resumed = await Journal.open(file, options({ inputs: parts, resume: true }));
    const expected = (line: number) =>
      line % 3 === 0
        ? { kind: 'earlier' }
        : line % 3 === 1
          ? { kind: 'failed', reason: `refused ${line} ✔` }
          : { kind: 'unknown', reason: expect.stringMatching(/^in flight when an earlier run/) };
    for (let line = 2; line <= 200_001; line++) if (!(line % 997)) expect(resumed.prior(line)).toEqual(expected(line));
    expect(Array.from({ length: 200_000 }, (_, i) => resumed.prior(i + 2)?.kind).filter((kind) => kind === 'earlier')).toHaveLength(66_667);
    expect(resumed.prior(200_002)).toBeUndefined();
    resumed.close(false);
    expect(fs.statSync(file).size).toBe(whole);
  });

  it("names the input from the header line alone: past a large journal's records, and a header of many files", async () => {
    const file = path.join(dir, 'j');
    const parts = Array.from({ length: 1_000 }, (_, i) => ({ ...input, path: `/data/export/part-${String(i).padStart(5, '0')}.csv.gz` }));
    const journal = await Journal.open(file, options({ inputs: parts }));
    journal.close(true);
    expect(fs.statSync(file).size).toBeGreaterThan(64 * 1024); // the header alone
    fs.appendFileSync(file, 's 2\n'.repeat(100_000));
    expect(journalInput(file)).toEqual(parts[0]);
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'hello\n');
    expect(journalInput(path.join(dir, 'notes.txt'))).toBeUndefined();
    expect(journalInput(path.join(dir, 'missing'))).toBeUndefined();
  });
});

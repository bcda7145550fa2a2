/**
 * A folder of parts stopped by SIGTERM (from23): the rest command named every later part one by one (300 parts of 1,000 rows:
 * 200 names, 4,523 characters; thousands of long names would pass what a shell takes). It now names the folder and the part
 * it stopped in, `--from`, whatever the number of parts. The built binary against a real node:http server, pasted as a user
 * pastes it, asserting what the server received. The runs stopped without a journal let the 250 ms of reading after the signal
 * pass at once (signalClock), and answer slowly until the signal, so it lands in the chunk the test means on any machine: the
 * stop falls where the test puts it in 6,000 rows, not somewhere in 120,000 (sent twice: 16-24 s a test on three Node versions).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { paste as pasteIn, run, type Sandbox } from '../helpers/cli.js';
import { json, killAfter, type TestServer, useServer } from '../helpers/server.js';
import { answerSlowly, csvRows, keptRows, signalClock, userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const at = (name: string) => path.join(box.home, name);
const paste = (command: string) => pasteIn(command, box.env);
const sent = () => server.requests.map((r) => userOf(r.url));

/**
 * Runs `batch <folder>` and stops it with SIGTERM after its `after`th request (answered slowly till then; at once after, for the
 * pasted rest), its clock past the 250 ms at once: the rest command it printed, and the rows it kept.
 */
async function stopped(folder: string, after = 1): Promise<{ rest: string; kept: string[]; stderr: string }> {
  const args = ['batch', folder, '--concurrency', '4', '--failed', `${folder}-kept.csv`];
  answerSlowly(server, 20);
  const onSpawn = killAfter(server, server.requests.length + after, 'SIGTERM');
  const result = await run(args, { env: signalClock(box, 'over'), timeoutMs: 120_000, onSpawn });
  server.handle((_req, res) => json(res, 200, { success: true }));
  expect(result.code).toBe(143);
  const rest = /send them with: (.*)$/m.exec(result.stderr)?.[1] ?? '';
  return { rest, kept: keptRows(fs.readFileSync(at(`${folder}-kept.csv`), 'utf8')).map((k) => k.user), stderr: result.stderr };
}

describe('a folder stopped by a signal prints its rest as the folder --from the part it stopped in', () => {
  it('at a part boundary: the folder, --from the part, no line; pasted twice, every row once; a part added later is refused', async () => {
    fs.mkdirSync(at('export'));
    // 60 parts of 100 rows, each read in one piece: the stop falls between two parts.
    const [parts, rows] = [60, 6_000];
    const part = (p: number) => `export/part-${String(p).padStart(5, '0')}.csv`;
    for (let p = 0; p < parts; p++) fs.writeFileSync(at(part(p)), csvRows(100, `p${p}-`));
    fs.writeFileSync(at('export/_SUCCESS'), '');
    const { rest, kept, stderr } = await stopped('export');
    const cut = /the rows after line 1 of (export\/part-\d{5}\.csv) \(and ([\d,]+) later files\) were not read/.exec(stderr);
    expect(cut).not.toBeNull();
    const name = cut![1]!.replace('/', '-').replace('.csv', '');
    // Was: `trigger batch <that part> <every later part> --journal ...`, a name for each of the 100 or more parts left.
    expect(rest).toBe(`trigger batch export --from ${cut![1]} --journal ${name}-rest.journal --resume --failed ${name}-rest-failed.csv`);
    expect(Number(cut![2]!.replace(',', ''))).toBeGreaterThan(10);

    for (const _ of [1, 2]) expect((await paste(rest)).code).toBe(0);
    const all = [...sent(), ...kept];
    expect(new Set(all).size).toBe(rows);
    expect(all).toHaveLength(rows);

    // A part that came after the rest was sent: its journal covers the parts it read, so the rest is refused, nothing sent.
    fs.writeFileSync(at(part(parts)), csvRows(100, 'late-'));
    const late = await paste(rest);
    expect(late.code).toBe(2);
    expect(late.stderr).toContain(`the journal ${name}-rest.journal was made for`);
    expect(late.stderr).toContain('nothing was sent');
    expect(sent().length + kept.length).toBe(rows);
  }, 240_000);

  it('inside a part, plain and .gz: --from the part and --after-line its line (gzip -t first); pasted twice, every row once', async () => {
    const sizes = [10, 6_000, 10, 10, 10];
    for (const [folder, gz] of [
      ['plain', ''],
      ['gz', '.gz'],
    ] as const) {
      fs.mkdirSync(at(folder));
      // Part 1 holds more rows than a stop keeps, so the stop falls inside it, with parts after it.
      for (const [p, n] of sizes.entries()) {
        const text = csvRows(n, `${folder}${p}-`);
        fs.writeFileSync(at(`${folder}/part-${p}.csv${gz}`), gz ? zlib.gzipSync(text) : text);
      }
      const { rest, kept } = await stopped(folder, sizes[0]! + 1); // in part 1's first chunk: its next is cut
      const rows = sizes.reduce((a, b) => a + b);
      const file = `${folder}/part-1.csv${gz}`;
      const test = gz ? `gzip -t ${file} && ` : '';
      const shape = `${test}trigger batch ${folder} --from ${file} --after-line (\\d+):[0-9a-f]{8} --journal ${folder}-part-1-rest.journal --resume --failed ${folder}-part-1-rest-failed.csv`;
      const line = Number(new RegExp(`^${shape.replaceAll('.', '\\.')}$`).exec(rest)?.[1]);
      expect(line).toBeGreaterThan(1);
      expect(line).toBeLessThan(sizes[1]! + 1);
      for (const _ of [1, 2]) expect((await paste(rest)).code).toBe(0);
      const mine = [...sent(), ...kept].filter((u) => u.startsWith(folder));
      expect(new Set(mine).size).toBe(rows);
      expect(mine).toHaveLength(rows);
    }
  }, 240_000);

  it('with a journal, a part added after the stop makes the printed --resume refuse (exit 2, nothing sent)', async () => {
    answerSlowly(server, 20); // the signal lands in the first chunks
    fs.mkdirSync(at('j'));
    for (const p of [0, 1, 2]) fs.writeFileSync(at(`j/part-${p}.csv`), csvRows(1_000, `j${p}-`));
    const args = ['batch', 'j', '--concurrency', '4', '--journal', 'j.journal', '--failed', 'j-kept.csv'];
    const result = await run(args, { env: box.env, timeoutMs: 120_000, onSpawn: killAfter(server, 1, 'SIGTERM') });
    expect(result.code).toBe(143);
    const carry = /carry the batch on with: (.*)$/m.exec(result.stderr)![1]!;
    expect(carry).toBe('trigger batch j --journal j.journal --resume --failed j-kept.csv');
    fs.writeFileSync(at('j/part-3.csv'), csvRows(10, 'late-'));
    const before = server.requests.length;
    const refused = await paste(carry);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the journal j.journal was made for 3 files');
    expect(server.requests).toHaveLength(before);
  }, 120_000);
});

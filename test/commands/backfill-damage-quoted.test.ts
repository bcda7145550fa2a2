/**
 * A .gz cut short where the last text read is inside a CSV record quoted over several lines (a note with line breaks): the
 * record is not sent cut short, "damaged after line N" names the start of the last whole record, and the printed command
 * for the rest, run on the file copied whole (twice), sends that open record and every one after it: each row goes once.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const at = (name: string) => path.join(sandbox.home, name);
const COUNT = 400;
/** Each record over three lines: its note quoted, with two line breaks in it (and text that does not compress to nothing). */
const noise = (i: number) => Array.from({ length: 20 }, (_, k) => ((i * 7919 + k * 104729) % 1_000_003).toString(36)).join('');
const text = `triggerId,userId,value,note\n${Array.from({ length: COUNT }, (_, i) => `t,u${i},${i},"first ${noise(i)}\nsecond ${noise(i + 1)}\nthird"\n`).join('')}`;
const whole = zlib.gzipSync(text);
/** The longest cut (from the middle down) whose readable text ends inside a quoted note, after a line break in it. */
function cutInsideQuote(): Buffer {
  for (let size = whole.length >> 1; size > 100; size--) {
    const read = zlib.gunzipSync(whole.subarray(0, size), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString();
    if ((read.match(/"/g) ?? []).length % 2 === 1 && read.slice(read.lastIndexOf('"')).includes('\n')) return whole.subarray(0, size);
  }
  throw new Error('no cut inside a quoted note');
}

it.each([
  ['one at a time', '1'],
  ['several at once', '8'],
])(
  'a cut inside a record quoted over lines (%s): every row sent or kept once, the rest sent once by the printed command',
  async (_what, concurrency) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const file = at('notes.csv.gz');
    fs.writeFileSync(file, cutInsideQuote());
    const first = await runCommand(['batch', file, '--concurrency', concurrency, '--failed', at('failed.csv')], sandbox.env, sandbox.home);
    expect(first.code).toBe(2);
    const line = Number(/is damaged after line (\d+)/.exec(first.stdout)?.[1]);
    const rest = /then send them with: gzip -t \S+ && trigger (.*)$/m.exec(first.stdout)![1]!.split(' ');
    // Records start on lines 2, 5, 8...: the line named is the start of the last whole record read, never inside one.
    expect((line - 2) % 3).toBe(0);
    expect(line).toBeGreaterThan(100);
    const kept = (fs.existsSync(at('failed.csv')) ? fs.readFileSync(at('failed.csv'), 'utf8') : '').match(/^t,u\d+/gm) ?? [];
    const sent = server.requests.length;
    fs.writeFileSync(file, whole); // copied whole again
    for (const _twice of [1, 2]) expect((await runCommand(rest, sandbox.env, sandbox.home)).code).toBe(0);
    const users = server.requests.map((r) => decodeURIComponent(r.url.split('/')[5] ?? ''));
    const all = [...users, ...kept.map((k) => k.slice(2))];
    expect(all.sort()).toEqual(Array.from({ length: COUNT }, (_, i) => `u${i}`).sort());
    expect(users.length - sent).toBe(COUNT - ((line - 2) / 3 + 1)); // the rest: the records after the one at line N
  },
);

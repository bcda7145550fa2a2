/**
 * With --journal every input is read whole for its fingerprint before the first row is sent; fix25a said how far on a terminal only,
 * so in CI a 50 GB export was about a minute without a word before the batch's own plain line every 10 s began. Off a terminal the
 * read now says so in one plain line once it has taken 2 s, naming the file it is in; not with --quiet. The built binary, its read
 * for the fingerprint slowed by a preload (each piece of that read handed on late: no CPU spent), stderr a pipe. The same preload
 * gives the child a clock on which those 2 s (SLOW_HASH_MS in src/commands/batch.ts) pass in 200 ms, so that a read of 600 ms at
 * the least is one of over 2 s (flake28: each test waited 2.8 s for it on the real clock, 13 s a file in CI).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const at = (name: string) => path.join(box.home, name);
/**
 * Slows the one read that passes an AbortSignal (the fingerprint's, journal.ts): its pieces come 150 ms apart. And the child's
 * 2 s timer (SLOW_HASH_MS) fires after 200 ms: its 2 s are over a third of the way through a read of four pieces.
 */
const SLOW = `
const fs = require('node:fs');
const [create, set] = [fs.createReadStream, setTimeout];
const read = (...args) => set(() => fs.read(...args), 150);
fs.createReadStream = (file, options) =>
  create(file, options && options.signal ? { ...options, fs: { open: fs.open, close: fs.close, read } } : options);
globalThis.setTimeout = (fn, ms, ...rest) => set(fn, ms === 2000 ? 200 : ms, ...rest);`;

it.each([
  ['off a terminal', 1, []],
  ['with --quiet', 0, ['--quiet']],
] as const)('a read for --journal that takes over 2 s says so %s: %i line', async (_how, lines, extra) => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  // Three rows, then blank lines past 3 MiB: four pieces of the read, handed on in 600 ms at the least (the child's 6 s).
  fs.writeFileSync(at('big.csv'), `triggerId,userId\nt,a\nt,b\nt,c\n${'\n'.repeat(3 * 2 ** 20)}`);
  fs.writeFileSync(at('slow.cjs'), SLOW);
  const env = { ...box.env, NODE_OPTIONS: `--require ${at('slow.cjs')}` };
  const result = await run(['batch', 'big.csv', '--journal', 'big.journal', ...extra], { env });
  expect(result.code).toBe(0);
  expect(server.requests).toHaveLength(3);
  const said = result.stderr.split('\n').filter((line) => line.startsWith('reading the input for --journal: '));
  expect(said).toHaveLength(lines);
  if (lines)
    expect(said[0]).toMatch(/^reading the input for --journal: [\d,]+ of 3 MB so far \(.*big\.csv\); sending starts once it is read$/);
});

it('a dry run of a batch whose journal exists reads the input for it too, and does not say that sending starts (review26 F6)', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  fs.writeFileSync(at('big.csv'), `triggerId,userId\nt,a\nt,b\nt,c\n${'\n'.repeat(3 * 2 ** 20)}`);
  expect((await run(['batch', 'big.csv', '--journal', 'big.journal', '--quiet'], { env: box.env })).code).toBe(0);
  fs.writeFileSync(at('slow.cjs'), SLOW);
  const env = { ...box.env, NODE_OPTIONS: `--require ${at('slow.cjs')}` };
  const result = await run(['batch', 'big.csv', '--journal', 'big.journal', '--resume', '--dry-run'], { env });
  expect(result.code).toBe(0);
  expect(server.requests).toHaveLength(3); // the first run's
  const said = result.stderr.split('\n').filter((line) => line.startsWith('reading the input for --journal: '));
  expect(said).toEqual([expect.stringMatching(/ so far \(.*big\.csv\); its rows are checked once it is read; a dry run sends nothing$/)]);
});

/**
 * A Parquet file damaged twice (review24b). Its first rest, run on a copy damaged later on, prints a rest that names the same journal
 * (p-rest.journal); run on the whole file, that journal refuses it as "another input", and the refusal's hint is the same command again:
 * a loop, its last rows never sent. What should hold: following the printed commands sends every row once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { damagedAt, uidParquet } from '../helpers/parquet.js';
import { keptRows, userOf } from '../helpers/batch.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

/** The arguments of the last `trigger batch ...` command printed (plain names only: no quoting in this test). */
const restOf = (text: string): string[] => {
  const found = [...text.matchAll(/trigger batch (\S+\.parquet --after-line \S+ [^\n]*)/g)].at(-1);
  if (!found) throw new Error(`no rest command in: ${text}`);
  return ['batch', ...found[1]!.trim().split(' ')];
};

it('the rest of a rest of a Parquet file damaged twice sends every row once, when followed as printed', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const home = sandbox.home;
  const file = path.join(home, 'p.parquet');
  const whole = uidParquet(file, 5000, 500);
  const damaged = (share: number) => damagedAt(whole, share);
  const run = (args: string[]) => runCommand(args, sandbox.env, home);

  fs.writeFileSync(file, damaged(0.4));
  const first = await run(['batch', 'p.parquet', '--trigger', 'p', '--columns', 'userId=uid', '--failed', 'f.csv']);
  fs.writeFileSync(file, damaged(0.8)); // copied again, damaged later on
  const second = await run(restOf(first.stdout + first.stderr));
  fs.writeFileSync(file, whole); // copied whole at last
  const third = await run(restOf(second.stdout + second.stderr));
  const again = await run(restOf(second.stdout + second.stderr)); // pasted twice

  // Rows read and not sent when the damage stopped a run are kept in its failed file (how many depends on the machine's timing).
  const failed = fs.readdirSync(home).filter((f) => f.endsWith('.csv'));
  const kept = failed.flatMap((f) => keptRows(fs.readFileSync(path.join(home, f), 'utf8')).map((k) => k.user));
  const all = [...server.requests.map((r) => userOf(r.url)), ...kept];
  expect({ third: third.code, again: again.code, rows: all.length, distinct: new Set(all).size }).toEqual({
    third: 0,
    again: 0,
    rows: 5000,
    distinct: 5000,
  });
});

/**
 * A damaged .gz under --journal (sig22's item 5): the batch stops at the damage and prints the command for the rows after it.
 * Copied whole again, the file is another input: the journal's refusal told the user to "name a new --journal for this one",
 * which sends every row again. The journal now keeps that command, and its refusals point to it; followed, every row goes once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { halfGzip, userOf } from '../helpers/batch.js';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const at = (name: string) => path.join(sandbox.home, name);

it('copied whole again: --resume and a rerun are refused with the rest command, which sends the rows after the damage, once', async () => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const file = at('part.csv.gz');
  const whole = halfGzip(file);
  const args = ['batch', file, '--journal', at('part.journal'), '--failed', at('failed.csv')];
  const first = await runCommand(args, sandbox.env, sandbox.home);
  expect(first.code).toBe(2);
  const rest = /then send them with: (gzip -t .*)$/m.exec(first.stdout)![1]!;

  fs.writeFileSync(file, whole); // copied whole again
  for (const again of [[...args, '--resume'], args]) {
    const refused = await runCommand(again, sandbox.env, sandbox.home);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`send the rows after the damage with: ${rest}`);
    expect(refused.stderr).not.toContain('name a new --journal'); // what sent every row again
  }
  // Followed as printed (the test is gzip's; the rest is trigger's), twice: the rows after the damage, once.
  const batch = rest.split(' && ')[1]!.split(' ').slice(1);
  for (const _ of [1, 2]) expect((await runCommand(batch, sandbox.env, sandbox.home)).code).toBe(0);
  const kept = (fs.readFileSync(at('failed.csv'), 'utf8').match(/^t,u\d+/gm) ?? []).map((k) => k.slice(2));
  const sent = server.requests.map((r) => userOf(r.url).split('-')[0]!);
  expect(sent.length + kept.length).toBe(500);
  expect(new Set([...sent, ...kept]).size).toBe(500);
});

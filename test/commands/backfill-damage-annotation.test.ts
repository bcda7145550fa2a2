/**
 * Damage found midway in GitHub Actions (fixfiles20): the batch exits 2 with its summary, and the job's annotations say
 * which file is damaged, as they say when rows were not accepted. Before, a damage stop left no ::error:: at all, and the
 * step summary said nothing of the rows not read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { checkOf, halfGzip } from '../helpers/batch.js';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

/** A .gz of 500 rows cut in half, run as a batch in a GitHub Actions job: the result and the line the damage was found after. */
async function damagedRun(name: string, env: NodeJS.ProcessEnv = {}) {
  server.handle((_req, res) => json(res, 200, { success: true }));
  const cut = path.join(sandbox.home, name);
  halfGzip(cut);
  const args = ['batch', cut, '--concurrency', '2', '--failed', path.join(sandbox.home, `${name}-failed.csv`)];
  const result = await runCommand(args, { ...sandbox.env, GITHUB_ACTIONS: 'true', ...env }, sandbox.home); // the rest named as here
  expect(result.code).toBe(2);
  return { result, cut, line: Number(/is damaged after line (\d+)/.exec(result.stdout)?.[1]) };
}

it('a .gz cut short in a GitHub Actions job: an ::error:: annotation names the file and the line', async () => {
  const { result, line } = await damagedRun('cut.csv.gz');
  expect(result.stderr).toMatch(new RegExp(`^::error[^:]*::trigger batch .*cut\\.csv\\.gz is damaged after line ${line}$`, 'm'));
});

it("the job's step summary says which rows were not read and the command that sends them", async () => {
  const summary = path.join(sandbox.home, 'step-summary.md');
  const { result, cut, line } = await damagedRun('cut2.csv.gz', { GITHUB_STEP_SUMMARY: summary });
  const check = checkOf(result.stdout + result.stderr);
  expect(fs.readFileSync(summary, 'utf8')).toContain(
    `The rows after line ${line} of \`${cut}\` were not read; send them with: \`gzip -t ${cut} && trigger batch ${cut} --after-line ${line}:${check} --journal cut2-rest.journal`,
  );
});

/**
 * The sed a --resume refused for another key prints (fix28b) edits the journal itself, whatever name it was given by (review28):
 * R2 through a symbolic link, GNU `sed -i` replaced the link with a copy: the real journal kept the old key's print and its old
 *    progress, and a retry naming it by its real path with the old key sent ~100 rows twice.
 * R3 for a journal whose name begins with '-', sed read the name as options: "invalid option -- 'j'", nothing changed.
 * The sed names the journal's real path (absolute: never an option).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox, TEST_KEY } from '../helpers/cli.js';
import { json, killAfter, type TestServer, useServer } from '../helpers/server.js';
import { answerSlowly, csvRows, userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));
const OTHER_KEY = 'tk_test_rotated_Def456uvw000';
const at = (name: string) => path.join(box.home, name);
const sentCounts = () => {
  const counts = new Map<string, number>();
  for (const { url } of server.requests) counts.set(userOf(url), (counts.get(userOf(url)) ?? 0) + 1);
  return counts;
};
/** The sed the key refusal printed, run as a user pastes it: in bash, in the sandbox's home. */
const pasteSed = (stderr: string) => {
  const sed = / with: (sed .*)$/m.exec(stderr)?.[1];
  if (!sed) throw new Error(`no sed printed:\n${stderr}`);
  return run(['-c', sed], { env: box.env, command: 'bash' });
};

describe('the sed a key refusal prints', () => {
  it('R2: run on a journal named through a link, it edits the journal itself: no row is sent twice', async () => {
    fs.writeFileSync(at('rows.csv'), csvRows(120));
    fs.mkdirSync(at('vol'));
    answerSlowly(server, 40);
    const first = await run(['batch', 'rows.csv', '--journal', 'vol/real.journal', '--concurrency', '2', '--failed', at('f1.csv')], {
      env: box.env,
      onSpawn: killAfter(server, 20, 'SIGKILL'),
    });
    expect(first.signal).toBe('SIGKILL');
    fs.symlinkSync('vol/real.journal', at('j.journal'));
    const other = { ...box.env, TRIGGER_API_KEY: OTHER_KEY };
    const refused = await run(['batch', 'rows.csv', '--journal', 'j.journal', '--resume', '--failed', at('f2.csv')], { env: other });
    expect(refused.code).toBe(2);
    expect((await pasteSed(refused.stderr)).code).toBe(0);
    // The rotated key carries the batch on through the name it was given.
    const resumed = await run(['batch', 'rows.csv', '--journal', 'j.journal', '--resume', '--failed', at('f3.csv')], { env: other });
    expect(resumed.code, resumed.stderr).not.toBe(2); // 1: the two rows in flight at the kill are kept as of unknown outcome
    // A CI retry of the step that names the journal by its real path, with the key it had (both keys work while one is rotated).
    await run(['batch', 'rows.csv', '--journal', 'vol/real.journal', '--resume', '--failed', at('f4.csv')], {
      env: { ...box.env, TRIGGER_API_KEY: TEST_KEY },
    });
    // Before: j.journal became a regular copy (j.journal.bak is the link), vol/real.journal kept its old progress, and ~100 rows went twice.
    expect([...sentCounts()].filter(([, n]) => n > 1).length).toBe(0);
  });

  it("R3: for a journal whose name begins with '-', the printed sed works", async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    fs.writeFileSync(at('rows.csv'), csvRows(5));
    expect((await run(['batch', 'rows.csv', '--journal=-j.journal', '--failed', at('f1.csv')], { env: box.env })).code).toBe(0);
    const other = { ...box.env, TRIGGER_API_KEY: OTHER_KEY };
    const refused = await run(['batch', 'rows.csv', '--journal=-j.journal', '--resume', '--failed', at('f2.csv')], { env: other });
    expect(refused.code).toBe(2);
    const sed = await pasteSed(refused.stderr);
    // Before: `sed -i.bak '1s/…//' -j.journal` → "sed: invalid option -- 'j'", exit 1, the key's print still there.
    expect(sed.code, sed.stderr.split('\n')[0]).toBe(0);
    expect(fs.readFileSync(at('-j.journal'), 'utf8').split('\n')[0]).not.toMatch(/"key":/);
  });
});

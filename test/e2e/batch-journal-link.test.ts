/**
 * "One batch at a time per journal and per failed file: a run that names a journal or failed file that
 * a running batch holds is refused (exit 2)" (audit23). The lock was `.<name>.lock` beside the name
 * given (src/lock.ts FileLock.pathFor), so a second run naming the same journal through a symbolic link
 * took a lock of its own and sent the rows the first was sending (36 of 40 twice); a failed file named
 * through a link was not refused either, and its link was replaced by the rows (a plain file). Locks
 * now go by the file named, through links. A hard link is another name of the same file, and took the same way round the lock
 * (rsync --link-dest and cp -al backups give every file one, so a file with two names cannot be refused): a file that exists has
 * a second lock, by its device and inode, that every name finds; a journal the run made is locked so once it exists (trust24).
 * A relative link named through a symlinked folder (a -> x/y, x/y/jl -> ../j) was read from the folder it was named in, not the
 * one it is in (review23): the same 20 of 40 rows went twice, and a failed file named so went beside the folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { type TestServer, useServer } from '../helpers/server.js';
import { csvRows, holdAnswers, until, userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));
const at = (name: string) => path.join(box.home, name);
const batch = (args: string[]) => run(['batch', ...args, '--concurrency', '4'], { env: box.env, timeoutMs: 240_000 });

/**
 * A first run holds the journal as `held` (its answers held until the 9th request, so it surely does), a second names it as
 * `other` with --resume: that one must be refused (exit 2), and no row reach the server twice.
 */
async function secondRunRefused(held: string, other: string, between = () => {}): Promise<void> {
  const answers = holdAnswers(server, 0, { releaseAt: 9 });
  fs.writeFileSync(at('in.csv'), csvRows(40));
  const first = batch([at('in.csv'), '--journal', held, '--failed', at('failed-a.csv')]);
  await until(() => server.requests.length > 0);
  between();
  const second = await batch([at('in.csv'), '--journal', other, '--resume', '--failed', at('failed-b.csv')]).finally(() =>
    answers.release(),
  );
  await first;
  const got = server.requests.map((r) => userOf(r.url));
  expect(
    got.filter((u, i) => got.indexOf(u) !== i),
    'rows the server received twice',
  ).toEqual([]);
  expect(second.code).toBe(2);
}

const linkedFolder = () => {
  fs.mkdirSync(at('x/y'), { recursive: true });
  fs.symlinkSync('x/y', at('a')); // a -> x/y
};

describe('one batch at a time per journal, whatever name reaches it', () => {
  it('a second --resume run naming the held journal through a symlink is refused, and no row goes twice', async () => {
    fs.symlinkSync(at('j'), at('j-link'));
    await secondRunRefused(at('j'), at('j-link'));
  }, 300_000);

  it('a second run naming the journal by its own name while the first holds it through a relative link in a linked folder is refused', async () => {
    linkedFolder();
    fs.symlinkSync('../j', at('x/y/jl')); // a/jl -> x/j
    await secondRunRefused(at('x/j'), at('a/jl'));
  }, 300_000);

  it('a second --resume run naming the held journal by a hard link (made once the first run had made it) is refused, and no row goes twice', async () => {
    await secondRunRefused(at('j'), at('j-hard'), () => fs.linkSync(at('j'), at('j-hard')));
  }, 300_000);

  it('a failed file named by a hard link to the one a running batch holds is refused, and no row goes twice', async () => {
    const held = holdAnswers(server, 0, { releaseAt: 5 });
    fs.writeFileSync(at('in.csv'), `${csvRows(8)}t,\n`);
    fs.writeFileSync(at('failed.csv'), ''); // there before the run, as an earlier run's is
    fs.linkSync(at('failed.csv'), at('failed-hard.csv'));
    const first = batch([at('in.csv'), '--failed', at('failed.csv')]);
    await until(() => server.requests.length > 0);
    const second = await batch([at('in.csv'), '--failed', at('failed-hard.csv')]).finally(() => held.release());
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/the failed file .*failed-hard\.csv is in use by another batch \(pid \d+/);
    expect((await first).code).toBe(1);
    const got = server.requests.map((r) => userOf(r.url));
    expect(
      got.filter((u, i) => got.indexOf(u) !== i),
      'rows the server received twice',
    ).toEqual([]);
  }, 300_000);

  it('a failed file named through a dangling symlink is refused while held, and the link is kept, its file written', async () => {
    const held = holdAnswers(server, 0, { releaseAt: 5 });
    fs.writeFileSync(at('in.csv'), `${csvRows(8)}t,\n`); // the last row has no user id: kept in the failed file
    fs.mkdirSync(at('out'));
    fs.symlinkSync(path.join('out', 'failed.csv'), at('failed-link')); // dangling until the first run writes it
    const first = batch([at('in.csv'), '--failed', at('failed-link')]);
    await until(() => server.requests.length > 0);
    const second = await batch([at('in.csv'), '--failed', at('out/failed.csv')]).finally(() => held.release());
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('failed file');
    expect((await first).code).toBe(1);
    expect(fs.lstatSync(at('failed-link')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(at('out/failed.csv'), 'utf8')).toContain('line 10');
  }, 300_000);

  it('a failed file named through a relative link in a linked folder is written where the link points, not beside the folder', async () => {
    linkedFolder();
    fs.symlinkSync('../failed.csv', at('x/y/flink')); // a/flink -> x/y/../failed.csv = x/failed.csv
    fs.writeFileSync(at('in.csv'), `${csvRows(3)}t,\n`);
    const result = await batch([at('in.csv'), '--failed', at('a/flink')]);
    expect(result.code).toBe(1);
    expect(fs.existsSync(at('failed.csv')), 'a file the link does not name').toBe(false);
    expect(fs.readFileSync(at('a/flink'), 'utf8')).toContain('line 5');
  }, 300_000);
});

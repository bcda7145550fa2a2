/**
 * lock.ts throughLinks resolved a relative link's target against the folder the link was *named* in, not the folder it *is* in
 * (review23; now from the folder's real path, as the kernel does). Through a symlinked folder (a -> x/y) a link x/y/f -> ../f names x/f, but throughLinks says f:
 * the failed file's rows go to ./f (the printed replay `trigger batch a/f` finds no file), and a journal named a/jl takes the lock of
 * ./j, not x/j's, so a second run naming x/j sends the rows the first is sending.
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
const linkedFolder = () => {
  fs.mkdirSync(at('x/y'), { recursive: true });
  fs.symlinkSync('x/y', at('a')); // a -> x/y
};

describe('a link with a relative target, named through a symlinked folder', () => {
  it('the failed file is written where the link points (x/failed.csv), not beside the symlinked folder', async () => {
    linkedFolder();
    fs.symlinkSync('../failed.csv', at('x/y/flink')); // a/flink -> x/y/../failed.csv = x/failed.csv
    fs.writeFileSync(at('in.csv'), `${csvRows(3)}t,\n`);
    const result = await batch([at('in.csv'), '--failed', at('a/flink')]);
    expect(result.code).toBe(1);
    expect(fs.existsSync(at('failed.csv')), 'a file the link does not name').toBe(false);
    expect(fs.readFileSync(at('a/flink'), 'utf8')).toContain('line 5');
  }, 300_000);

  it('a second run naming the journal by its own name while the first holds it through such a link is refused', async () => {
    linkedFolder();
    fs.symlinkSync('../j', at('x/y/jl')); // a/jl -> x/j
    const held = holdAnswers(server, 0, { releaseAt: 9 });
    fs.writeFileSync(at('in.csv'), csvRows(40));
    const first = batch([at('in.csv'), '--journal', at('x/j'), '--failed', at('failed-a.csv')]);
    await until(() => server.requests.length > 0);
    const second = await batch([at('in.csv'), '--journal', at('a/jl'), '--resume', '--failed', at('failed-b.csv')]).finally(() =>
      held.release(),
    );
    await first;
    const got = server.requests.map((r) => userOf(r.url));
    expect(
      got.filter((u, i) => got.indexOf(u) !== i),
      'rows the server received twice',
    ).toEqual([]);
    expect(second.code).toBe(2);
  }, 300_000);
});

/**
 * review27b repro: the failed file's folder removed while the batch runs is made again (fix27c, audit27 #5), and the rows are written
 * with open(…, 'w') at the named path. Whoever made the folder again first (another user, in a shared place where the folder was cleaned
 * up) can leave a link at the failed file's name: the rows are written through it, over the file it points to. The normal end renames
 * the temporary file over the name, which replaces a link and never follows it.
 * Also: a journal in the same folder goes with it, unsaid; the same command with --resume (a CI retry) then sends every row again.
 * Fails on 701cc62 at the assertions that name the bug.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';
import { csvRows, userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

describe("the failed file's folder removed while the batch runs", () => {
  it('a link planted at the failed file name in the folder made again is not written through', async () => {
    const [out, victim] = [path.join(box.home, 'out'), path.join(box.home, 'victim.txt')];
    fs.mkdirSync(out);
    fs.writeFileSync(victim, 'precious\n');
    server.handle((_req, res, index) => {
      if (index === 0) {
        fs.rmSync(out, { recursive: true }); // cleaned up, then made again by someone else, with a link at the name
        fs.mkdirSync(out);
        fs.symlinkSync(victim, path.join(out, 'failed.csv'));
      }
      json(res, 422, { error: 'value out of range' });
    });
    const input = path.join(box.home, 'in.csv');
    fs.writeFileSync(input, csvRows(50));
    await run(['batch', input, '--failed', path.join(out, 'failed.csv')], { env: box.env });
    expect(server.requests).toHaveLength(50);
    // On 701cc62: victim.txt now holds the 50 rows ("triggerId,userId,error …"), its content gone.
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('a journal in that folder: the same command with --resume sends no accepted row again', async () => {
    const out = path.join(box.home, 'out');
    fs.mkdirSync(out);
    server.handle((_req, res, index) => {
      if (index === 0) fs.rmSync(out, { recursive: true }); // a workspace clean-up
      json(res, 200, { success: true });
    });
    const input = path.join(box.home, 'in.csv');
    fs.writeFileSync(input, csvRows(50));
    const args = ['batch', input, '--failed', path.join(out, 'failed.csv'), '--journal', path.join(out, 'b.journal')];
    const first = await run(args, { env: box.env });
    expect(first.code).toBe(0);
    await run([...args, '--resume'], { env: box.env }); // a CI retry of the step
    const sent = server.requests.map((r) => userOf(r.url));
    // On 701cc62: the journal went with the folder, unsaid (exit 0); the retry sends the 50 accepted rows again (100 requests).
    expect(sent.length - new Set(sent).size).toBe(0);
  });
});

/**
 * The Action's `file` input naming a folder of warehouse part files, run as a runner runs it
 * (test/helpers/action.ts: the committed bundle in a plain clone, INPUT_* variables, GITHUB_OUTPUT)
 * against a real server on 127.0.0.1: every part's rows arrive once, in name order, the marker and
 * hidden files are skipped, and a refused row is kept in the failed file with the part it came from.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { cloneWorkingTree, runAction } from '../helpers/action.js';

let server: TestServer;
let box: Sandbox;
let clone: { dir: string; cleanup: () => void };
beforeAll(() => {
  clone = cloneWorkingTree();
});
afterAll(() => clone.cleanup());
beforeEach(async () => {
  server = await startServer((req, res) =>
    req.url.includes('/users/refused/') ? json(res, 400, { success: false, message: 'no such user' }) : json(res, 200, { success: true }),
  );
  box = sandbox();
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const userOf = (url: string) => decodeURIComponent(url.split('/')[5] ?? '');

/** A warehouse export: two gzip parts (written out of name order), a _SUCCESS marker, a hidden file. */
function exportFolder(): string {
  const folder = path.join(box.home, 'export');
  fs.mkdirSync(folder);
  const part = (rows: string[]) => zlib.gzipSync(`user_id,event_name,amount\n${rows.join('\n')}\n`);
  fs.writeFileSync(path.join(folder, 'part-00001.csv.gz'), part(['carol,purchase,3', 'refused,purchase,4']));
  fs.writeFileSync(path.join(folder, 'part-00000.csv.gz'), part(['alice,purchase,1.10', 'bob,signup,']));
  fs.writeFileSync(path.join(folder, '_SUCCESS'), '');
  fs.writeFileSync(path.join(folder, '.part-00000.csv.gz.crc'), 'not rows');
  return folder;
}

describe("the Action's file input naming a folder", () => {
  it("sends every part's rows once, in name order, and keeps a refused row with its part", async () => {
    const folder = exportFolder();
    const failed = path.join(box.home, 'failed.csv');
    const result = await runAction(
      {
        'api-key': TEST_KEY,
        'base-url': server.url,
        file: folder,
        failed,
        args: '--columns userId=user_id,triggerId=event_name,value=amount --concurrency 1 --retries 0',
      },
      { env: box.env, actionDir: clone.dir },
    );
    expect(result.code).toBe(1); // one row refused
    expect(server.requests.map((r) => `${r.url.split('/')[3]} ${userOf(r.url)} ${r.body}`)).toEqual([
      'purchase alice {"value":1.10}',
      'signup bob {}',
      'purchase carol {"value":3}',
      'purchase refused {"value":4}',
    ]);
    expect(server.requests.every((r) => r.headers.authorization === `Bearer ${TEST_KEY}`)).toBe(true);
    expect(result.outputs.ok).toBe('false');
    expect(result.outputs.accepted).toBe('3');
    expect(result.outputs.invalid).toBe('0');
    const kept = fs.readFileSync(failed, 'utf8').trim().split('\n');
    expect(kept).toHaveLength(2);
    expect(kept[0]).toContain('file');
    expect(kept[1]).toContain(path.join(folder, 'part-00001.csv.gz'));
    expect(kept[1]).toContain('refused');
    expectNoKey(result);
    expect(result.outputFile).not.toContain(TEST_KEY);
  });
});

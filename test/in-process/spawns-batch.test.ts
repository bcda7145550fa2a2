/**
 * Cases of the spawned batch files that need no process, run in-process (main() with an explicit
 * environment) against a real node:http server on 127.0.0.1, with their assertions unchanged: a batch
 * row whose id is not valid UTF-8, from test/e2e/batch-once.test.ts (fire's refusal of the bytes in
 * argv stays there: only a process gets them from a shell).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { homeFile, type Sandbox } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { type TestServer, useServer } from '../helpers/server.js';
import { keptRows, userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const file = (name: string, text: string) => homeFile(box, name, text);
const batch = (args: string[]) => runInProcess(['batch', ...args], { env: box.env });

describe('input that is not what it should be', () => {
  it('ids that are not valid UTF-8 are refused in batch (an invalid row), never sent as U+FFFD', async () => {
    const failed = path.join(box.home, 'failed.csv');
    const rows = await batch([file('in.csv', 'triggerId,userId\nt,ok\nt,a\uFFFDb\n'), '--failed', failed, '--concurrency', '4']);
    expect(rows.code).toBe(1);
    expect(server.requests.map((r) => userOf(r.url))).toEqual(['ok']);
    expect(keptRows(fs.readFileSync(failed, 'utf8'))[0]!.error).toContain('userId is not valid UTF-8 text');
  });
});

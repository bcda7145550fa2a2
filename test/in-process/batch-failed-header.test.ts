/**
 * The failed file of a run in which nothing failed replays as zero rows, whatever the input's format:
 * --format lines rows are CSV rows of triggerId,userId, so their failed file has that header even
 * when it keeps no row. In-process against a real node:http server on 127.0.0.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

it('--format lines with every row accepted leaves a failed file of its header, which replays as zero rows', async () => {
  const at = (name: string) => path.join(box.home, name);
  fs.writeFileSync(at('ids.txt'), 'u1\nu2\n');
  const first = await run(['batch', at('ids.txt'), '--format', 'lines', '--trigger', 'visit', '--failed', at('f.csv')], { env: box.env });
  expect(first.code).toBe(0);
  expect(server.requests).toHaveLength(2);
  expect(fs.readFileSync(at('f.csv'), 'utf8')).toBe('triggerId,userId,error\n');
  const replay = await run(['batch', at('f.csv'), '--failed', at('f-2.csv')], { env: box.env });
  expect(replay.code).toBe(0);
  expect(replay.stdout).toMatch(/0 accepted · 0 failed · 0 invalid of 0 rows/);
  expect(server.requests).toHaveLength(2);
});

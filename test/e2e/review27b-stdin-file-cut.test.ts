/**
 * review27b repro: audit27 #1 through standard input. A CSV redirected to standard input (`trigger batch - < export.csv`, a file the
 * batch knows is one: --failed naming it is refused) and cut short while it is read still sends its torn last line as a user and ends
 * as a success (exit 0): fix27c checks only files it opens by name.
 * Fails on 701cc62: the torn "u1500-xxx…" is sent, exit 0.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';
import { userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const ids = Array.from({ length: 3000 }, (_, i) => `u${i}-${'x'.repeat(1000)}`); // 3 MB: the reader is mid-file at the first request

describe('a file behind standard input cut short while it is read', () => {
  it('its torn last line is not sent, and the run is no success', async () => {
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, `triggerId,userId\n${ids.map((u) => `t,${u}\n`).join('')}`);
    server.handle((_req, res, index) => {
      if (index === 0) fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2)); // an export run again, a sync
      json(res, 200, { success: true });
    });
    const fd = fs.openSync(file, 'r');
    const child = spawn(process.execPath, [BIN, 'batch', '-', '--failed', path.join(box.home, 'failed.csv')], {
      env: box.env,
      cwd: box.home,
      stdio: [fd, 'pipe', 'pipe'],
    });
    fs.closeSync(fd);
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const listed = new Set(ids);
    // On 701cc62: "u1500-xxx…" cut to the truncation point was sent, and "✔ 1,501 accepted of 1,501 rows", exit 0.
    expect(server.requests.map((r) => userOf(r.url)).filter((user) => !listed.has(user))).toEqual([]);
    expect(stdout).not.toMatch(/^✔/m);
    expect(code).not.toBe(0);
  });
});

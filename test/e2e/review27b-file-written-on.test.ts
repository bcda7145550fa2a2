/**
 * review27b F2, F4: fix27c's check of a file while it is read stopped a file still written at its end (a log, `tee`) before any row
 * (ae48731 sent them all), and read a file that says it is empty (/proc) as no rows. A file written on at its end sends the rows it had
 * when the batch began, each once, exit 0; one whose last line was still being written then stops as damage before that line goes out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';
import { userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const ids = Array.from({ length: 3000 }, (_, i) => `u${i}-${'x'.repeat(300)}`); // 0.9 MB: the reader is mid-file at the first request

describe('a file written on while it is read', () => {
  it('at its end, as a log is: the rows it had when the batch began are sent once each, exit 0', async () => {
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, `triggerId,userId\n${ids.map((u) => `t,${u}\n`).join('')}`);
    server.handle((_req, res, index) => {
      if (index === 0) fs.appendFileSync(file, 't,late-row\n');
      json(res, 200, { success: true });
    });
    const result = await run(['batch', file, '--failed', path.join(box.home, 'failed.csv')], { env: box.env });
    expect(result.code).toBe(0);
    const users = server.requests.map((r) => userOf(r.url));
    expect([users.length, new Set(users).size, users.includes('late-row')]).toEqual([3000, 3000, false]);
  });

  it('whose last line was still being written when the batch began: a damage stop before that line is sent', async () => {
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, `triggerId,userId\n${ids.map((u) => `t,${u}\n`).join('')}t,u3000-half`);
    server.handle((_req, res, index) => {
      if (index === 0) fs.appendFileSync(file, '-of-it\n');
      json(res, 200, { success: true });
    });
    const result = await run(['batch', file, '--failed', path.join(box.home, 'failed.csv')], { env: box.env });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('its last line was still being written when the batch began');
    expect(server.requests.map((r) => userOf(r.url))).not.toContain('u3000-half');
  });

  it.runIf(fs.existsSync('/proc/self/mounts'))('a file that says it is empty (/proc) is read as it comes', async () => {
    const result = await run(['batch', '/proc/self/mounts', '--format', 'lines', '--trigger', 't', '--dry-run'], { env: box.env });
    expect(result.stdout).toMatch(/dry run: [1-9][\d,]* of [1-9][\d,]* rows? can be sent/);
  });
});

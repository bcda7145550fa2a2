/**
 * A stderr that cannot be written (`2>/dev/full`, `2>>log` on a full disk, `2>&1 | head`): nobody can be told any more, but what
 * is done stands. Without a listener the first failed write was thrown from the event loop (audit25): a batch died with no
 * failed file (its sent rows recorded nowhere: run again, they went twice), `fire --verbose` sent nothing and exited 1.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, type Sandbox } from '../helpers/cli.js';
import { type TestServer, useServer } from '../helpers/server.js';

let box: Sandbox;
let server: TestServer;
useServer((s, b) => ([server, box] = [s, b]));

/** The built binary with stderr on /dev/full, or on a pipe whose reader goes away after its first line (`2>&1 | head -1`). */
async function runWithLostStderr(args: string[], to: 'full' | 'head', env = box.env): Promise<number | null> {
  const err = to === 'full' ? fs.openSync('/dev/full', 'w') : 'pipe';
  try {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: box.home, stdio: ['ignore', 'ignore', err] });
    child.stderr?.once('data', () => child.stderr!.destroy());
    return await new Promise((resolve) => child.on('close', (code) => resolve(code)));
  } finally {
    if (typeof err === 'number') fs.closeSync(err);
  }
}

/** 2,000 rows that are sent and 500 invalid ones (each reported on stderr as it is read). */
function mixed(): void {
  const rows = ['triggerId,userId,value'];
  for (let i = 0; i < 2000; i++) rows.push(`p,ok${i},1`);
  for (let i = 0; i < 500; i++) rows.push(`p,bad${i},abc`);
  fs.writeFileSync(path.join(box.home, 'in.csv'), `${rows.join('\n')}\n`);
}

describe('a stderr that cannot be written', () => {
  it.each(['full', 'head'] as const)('to %s: a batch sends every valid row once and keeps the invalid ones, exit 1', async (to) => {
    mixed();
    const code = await runWithLostStderr(['batch', 'in.csv', '--failed', 'failed.csv'], to);
    const kept = fs.readFileSync(path.join(box.home, 'failed.csv'), 'utf8').trimEnd().split('\n').slice(1);
    expect(code).toBe(1);
    expect(new Set(server.requests.map((r) => r.url)).size).toBe(2000);
    expect(server.requests).toHaveLength(2000);
    expect(kept).toHaveLength(500);
    expect(kept.every((line) => line.startsWith('p,bad'))).toBe(true);
    expect(fs.readdirSync(box.home).filter((name) => name.endsWith('.tmp') || name.endsWith('.lock'))).toEqual([]);
  });

  it('fire --verbose sends the event and exits 0; the exit codes still say what happened', async () => {
    expect(await runWithLostStderr(['fire', 'p', 'u1', '--verbose'], 'full')).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(await runWithLostStderr(['fire', 'p', 'u1', '--value', 'abc'], 'full')).toBe(2);
    expect(await runWithLostStderr(['fire', 'p', 'u1'], 'full', { ...box.env, TRIGGER_BASE_URL: 'http://127.0.0.1:9' })).toBe(3);
    expect(server.requests).toHaveLength(1);
  });
});

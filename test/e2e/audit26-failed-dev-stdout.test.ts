/**
 * audit26 repro: `trigger batch ... --failed /dev/stdout >> job.log`. /dev/stdout leads to a regular file there, so the failed file
 * was written beside it and renamed over it: what job.log held before was gone, and the summary (printed to stdout after the rename)
 * went to the old, unlinked file. Refused now (docs/choices.md): exit 2, nothing sent, the log as it was. Through a pipe or a terminal
 * /dev/stdout is no regular file and is still written in place.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

describe('--failed naming the log file that stdout or stderr is appended to', () => {
  for (const [name, fd] of [
    ['/dev/stdout', 1],
    ['/dev/stderr', 2],
  ] as const) {
    it(`--failed ${name}: refused, exit 2, nothing sent, and the log keeps what it held`, async () => {
      server.handle((req, res) => (req.url.includes('/users/bob/') ? json(res, 400, { error: 'no' }) : json(res, 200, { success: true })));
      const log = path.join(box.home, 'job.log');
      fs.writeFileSync(log, 'EARLIER STEP: done\n');
      const out = fs.openSync(log, 'a');
      let other = '';
      try {
        const stdio = fd === 1 ? (['pipe', out, 'pipe'] as const) : (['pipe', 'pipe', out] as const);
        const args = [BIN, 'batch', '-', '--trigger', 'p', '--format', 'lines', '--failed', name];
        const child = spawn(process.execPath, args, { env: box.env, cwd: box.home, stdio: [...stdio] });
        (fd === 1 ? child.stderr! : child.stdout!).setEncoding('utf8').on('data', (d: string) => (other += d));
        child.stdin!.end('alice\nbob\n');
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        expect(code).toBe(2);
      } finally {
        fs.closeSync(out);
      }
      // On 6b80cdd (stdout): exit 1, job.log replaced by the failed rows, "EARLIER STEP: done" and the summary gone.
      const text = fs.readFileSync(log, 'utf8');
      expect(text.startsWith('EARLIER STEP: done\n')).toBe(true);
      expect(fd === 1 ? other : text).toContain(`error: --failed ${name} is the file behind standard ${fd === 1 ? 'output' : 'error'}`);
      expect(server.requests).toHaveLength(0);
    });
  }
});

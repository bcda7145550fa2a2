/**
 * CR-only CSV (an old Mac's "CSV (Macintosh)") through a real pipe whose first write is the header line alone, its CR last
 * (inputs22, left item 5): the reader could not tell a CR-only line end from half a CRLF, so line 1 kept its CR and ran on into
 * row 2 ("no userId column (its columns: triggerId, userId\rt, a)", exit 2). The built binary reads a FIFO; the second write
 * waits until the child has read the first (its read count grew by it and it is back waiting), so the pipe splits there.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BIN, TEST_KEY, sandbox, type Sandbox } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
beforeEach(async () => {
  server = await startServer();
  server.handle((_req, res) => json(res, 200, { success: true }));
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const pause = () => new Promise((resolve) => setTimeout(resolve, 10));

it.runIf(fs.existsSync('/proc/self/io'))('a header written alone, its CR last, is line 1; the rows after it are sent', async () => {
  const fifo = path.join(box.home, 'rows');
  execFileSync('mkfifo', [fifo]);
  // The read end first, without waiting for a writer, so that the write end opens at once.
  const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const writer = fs.openSync(fifo, 'w');
  const child = spawn(process.execPath, [BIN, 'batch', '-', '--concurrency', '1'], {
    env: box.env,
    cwd: box.home,
    stdio: [reader, 'pipe', 'pipe'],
  });
  fs.closeSync(reader);
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.setEncoding('utf8').on('data', (d: string) => (output += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const proc = (file: string) => fs.readFileSync(`/proc/${child.pid}/${file}`, 'utf8');
  const rchar = () => Number(/^rchar: (\d+)/m.exec(proc('io'))![1]);
  // Started and waiting (its modules read), then the header alone, then waiting again once it has read it.
  const idle = async () => {
    for (let [was, calm] = [-1, 0]; calm < 3; await pause())
      [was, calm] = [rchar(), rchar() === was && /epoll|^0$/.test(proc('wchan')) ? calm + 1 : 0];
  };
  await idle();
  const before = rchar();
  const header = 'triggerId,userId\r';
  fs.writeSync(writer, header);
  while (rchar() < before + header.length) await pause();
  await idle();
  fs.writeSync(writer, 't,a\rt,b\r');
  fs.closeSync(writer);
  expect(await closed, output).toBe(0);
  expect(server.requests.map((r) => r.url).sort()).toEqual(['/v1/triggers/t/users/a/events', '/v1/triggers/t/users/b/events']);
});

/**
 * What comes back over the wire, where users meet it: fire and batch in-process against a raw TCP
 * server on 127.0.0.1 that answers with a 100 Continue first, a compressed body, or an nginx HTML
 * page. (test/client/wire.test.ts has the client's side of it.)
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, sandbox, type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { rawAnswer, startRawServer, type RawResponder, type RawServer } from '../helpers/raw-server.js';

let server: RawServer | undefined;
let box: Sandbox | undefined;
afterEach(async () => {
  await server?.close();
  box?.cleanup();
  server = box = undefined;
});

async function serve(respond: RawResponder): Promise<NodeJS.ProcessEnv> {
  server = await startRawServer(respond);
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
  return box.env;
}

const NGINX_403 =
  '<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

describe('trigger fire', () => {
  it('an accepted event after an unasked-for 100 Continue is accepted (exit 0), not "outcome unknown"', async () => {
    const env = await serve((socket) => {
      socket.write('HTTP/1.1 100 Continue\r\n\r\n');
      socket.write(rawAnswer('200 OK', { 'Content-Type': 'application/json' }, '{"success":true}'));
    });
    const result = await run(['fire', 't', 'u', '--json'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, status: 200, attempts: 1 });
    expect(server!.requests).toHaveLength(1);
  });

  it('a gzip-encoded "success": false is a refusal (exit 1) with its message in words, not accepted', async () => {
    const body = zlib.gzipSync('{"success":false,"message":"trigger is paused"}');
    const env = await serve((socket) =>
      socket.write(rawAnswer('200 OK', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body)),
    );
    const result = await run(['fire', 't', 'u'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: the service answered 200 OK but said "success": false: trigger is paused/);
    expectNoKey(result);
  });

  it('a 200 whose body is cut short is outcome unknown (exit 3), said as no whole answer, not "cannot reach" (audit23)', async () => {
    const env = await serve((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"succ');
      socket.end();
    });
    const result = await run(['fire', 't', 'u', '--retries', '0'], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: no whole answer came from http:\/\/127\.0\.0\.1:\d+/);
    // It began to answer: not "before it answered" (review23).
    expect(result.stderr).toContain('connection closed by the other side in the middle of its answer (200 OK)');
    expect(result.stderr).toContain('the outcome is unknown');
    expect(result.stderr).not.toContain('cannot reach');
  });

  it.each([
    ['503 Service Unavailable', 2, 3], // not recorded: sent again (--retries 1), then exit 3 (try again later), as a whole 503
    ['404 Not Found', 1, 1], // refused: exit 1, not sent again
    ['408 Request Timeout', 1, 3], // not recorded (the service gave up waiting), exit 3, as a whole 408
  ])('a %s whose body is cut short is that refusal, not "outcome unknown" (review24)', async (status, sends, code) => {
    let requests = 0;
    const env = await serve((socket) => {
      requests++;
      socket.write(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"err`);
      socket.end();
    });
    const result = await run(['fire', 't', 'u', '--retries', '1'], { env });
    expect([result.code, requests]).toEqual([code, sends]); // was: exit 3, "the outcome is unknown", not sent again
    expect(result.stderr).not.toContain('outcome is unknown');
  });

  it('an nginx 403 page is shown as its words, never markup', async () => {
    const env = await serve((socket) => socket.write(rawAnswer('403 Forbidden', { 'Content-Type': 'text/html' }, NGINX_403)));
    const result = await run(['fire', 't', 'u'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: the service refused the event: 403 Forbidden: nginx/);
    expect(result.stderr).not.toMatch(/[<>]/);
  });
  it('a Location in raw UTF-8 is read as UTF-8, what is invisible in it escaped: not latin1 with its C1 bytes stripped (audit25)', async () => {
    const location = 'https://evil.example/caf\u00e9/\u202e/x';
    const env = await serve((socket) => {
      socket.write('HTTP/1.1 302 Found\r\nLocation: ');
      socket.write(Buffer.from(location, 'utf8')); // the bytes as they are, as a server sends them
      socket.write('\r\nContent-Length: 0\r\n\r\n');
    });
    const result = await run(['fire', 't', 'u', '--retries', '0'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: the service redirected \(302 Found\) to https:\/\/evil\.example\/caf\u00e9\/\\u202e\/x —/);
    const json = await run(['fire', 't', 'u', '--retries', '0', '--json'], { env });
    expect((JSON.parse(json.stdout) as { error: { location: string } }).error.location).toBe(location);
  });
});

describe('trigger batch', () => {
  it("an HTML page's words go to the failed file's error column, never its markup", async () => {
    const env = await serve((socket) =>
      socket.write(rawAnswer('403 Forbidden', { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' }, zlib.gzipSync(NGINX_403))),
    );
    const input = path.join(box!.home, 'rows.csv');
    const failed = path.join(box!.home, 'failed.csv');
    fs.writeFileSync(input, 'triggerId,userId\nt,alice\nt,bob\n');
    const result = await run(['batch', input, '--failed', failed], { env, cwd: box!.home });
    expect(result.code).toBe(1);
    const kept = fs.readFileSync(failed, 'utf8').trim().split('\n');
    expect(kept).toHaveLength(3);
    for (const row of kept.slice(1)) {
      expect(row).toMatch(/403 Forbidden: nginx/);
      expect(row).not.toMatch(/[<>]/);
    }
    expect(result.stderr).not.toMatch(/<html|<center/);
  });
});

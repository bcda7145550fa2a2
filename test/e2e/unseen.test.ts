/**
 * What a person reads is what is sent, with the built binary against a real server on 127.0.0.1:
 * invisible and direction-changing characters reach the server as they are and the terminal
 * escaped; echoed input is cut to an excerpt and its length.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const UNSEEN = /[\u00ad\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2069\ufeff]/;

describe('invisible and direction-changing characters', () => {
  it('fire: the server gets the real characters, the success line shows them escaped', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }, { 'x-request-id': 'req\u00adevil' }));
    const user = 'alice\u202egnp.exe\u200b\u2028x';
    const result = await run(['fire', 'purchase\ufeff', user], { env: box.env });
    expect(result.code).toBe(0);
    expect(server.requests[0]?.url).toBe(`/v1/triggers/purchase%EF%BB%BF/users/${encodeURIComponent(user)}/events`);
    expect(decodeURIComponent(server.requests[0]!.url.split('/')[5]!)).toBe(user);
    expect(result.stdout).toContain('"purchase\\ufeff" · "alice\\u202egnp.exe\\u200b\\u2028x"'); // quoted: an escape, not typed text
    expect(result.stdout).toMatch(/request id req\S?\\u00adevil/); // a soft hyphen: headers carry Latin-1 only
    expect(result.stdout).not.toMatch(UNSEEN);
    expect(result.stderr).not.toMatch(UNSEEN);
  });

  it('fire --json keeps the real characters (JSON is data for programs)', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const result = await run(['fire', 't', 'bob\u202e', '--json'], { env: box.env });
    expect((JSON.parse(result.stdout) as { userId: string }).userId).toBe('bob\u202e');
  });

  it('a refusal: the error line and the GitHub annotation show them escaped', async () => {
    server.handle((_req, res) => json(res, 404, { error: 'no trigger \u202eesahcrup\u2029::warning::x' }));
    const result = await run(['fire', 't\u202e', 'u'], { env: { ...box.env, GITHUB_ACTIONS: 'true' } });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(UNSEEN);
    expect(result.stderr).toContain('no trigger \\u202eesahcrup');
    for (const line of result.stderr.split('\n')) expect(line).not.toMatch(/^::warning/);
  });

  it('batch: rows with them are sent as they are; the row errors show them escaped', async () => {
    server.handle((req, res) =>
      req.url.includes('refused') ? json(res, 400, { error: 'bad \u202euser' }) : json(res, 200, { success: true }),
    );
    const input = path.join(box.home, 'in.csv');
    fs.writeFileSync(input, 'triggerId,userId,value\nt,ok\u202e,1\nt,refused\u200b,2\nt\u2066,bad,1x\u202e\n');
    const result = await run(['batch', input, '--failed', path.join(box.home, 'failed.csv')], { env: box.env });
    expect(result.code).toBe(1);
    expect(server.requests.map((r) => decodeURIComponent(r.url.split('/')[5]!)).sort()).toEqual(['ok\u202e', 'refused\u200b']);
    expect(result.stderr).not.toMatch(UNSEEN);
    expect(result.stderr).toContain('bad \\u202euser');
    expect(result.stderr).toContain('"1x\\u202e"');
    // The failed file keeps the rows as given, so that they replay as they are.
    expect(fs.readFileSync(path.join(box.home, 'failed.csv'), 'utf8')).toContain('t\u2066,bad,1x\u202e');
  });
});

describe('input echoed in an error', () => {
  it('a 10,000-digit --value: exit 2, nothing sent, one short line with an excerpt and the length', async () => {
    const result = await run(['fire', 't', 'u', '--value', `1${'0'.repeat(9_999)}`], { env: box.env });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.length).toBeLessThan(200);
    expect(result.stderr).toMatch(/^error: --value 10{39}…0{12} \(10,000 characters\) is beyond the range of a double-precision number/);
  });

  it('a batch row with a 10,000-character value: the row error is short', async () => {
    const input = path.join(box.home, 'in.csv');
    fs.writeFileSync(input, `triggerId,userId,value\nt,u,${'9'.repeat(10_000)}x\n`);
    const result = await run(['batch', input, '--json', '--failed', path.join(box.home, 'failed.csv')], { env: box.env });
    expect(server.requests).toHaveLength(0);
    const row = JSON.parse(result.stdout.trim().split('\n')[0]!) as { error: { message: string } };
    expect(row.error.message).toMatch(/"9{40}…9{11}x" \(10,001 characters\)/);
    expect(row.error.message.length).toBeLessThan(200);
  });

  it("a 300-character --retries: commander's echo is cut", async () => {
    const result = await run(['fire', 't', 'u', '--retries', '9'.repeat(300)], { env: box.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--retries '9{40}…9{12}' \(300 characters\)/);
    expect(server.requests).toHaveLength(0);
  });
});

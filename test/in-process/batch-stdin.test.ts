/**
 * `trigger batch -` reads the rows from the command context's stdin (main()'s `stdin`), never from
 * process.stdin: fed here through a Readable, checked against what a real server on 127.0.0.1 received.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { TEST_KEY } from '../helpers/cli.js';
import { capturingOutput, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

async function batchFrom(stdin: Readable, ...args: string[]) {
  const { io, stdout, stderr } = capturingOutput();
  const code = await main(['node', 'trigger', 'batch', '-', ...args], { io, env: sandbox.env, cwd: sandbox.home, stdin });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const sent = () => server.requests.map((r) => `${r.url} ${r.body}`).sort();

describe('trigger batch - reads the context stdin', () => {
  it('sends the CSV rows given as the context stdin, in chunks that split a row', async () => {
    const stdin = Readable.from([Buffer.from('triggerId,userId,value\npurchase,al'), Buffer.from('ice,9.99\nsignup,bob,\n')]);
    const result = await batchFrom(stdin);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(sent()).toEqual(['/v1/triggers/purchase/users/alice/events {"value":9.99}', '/v1/triggers/signup/users/bob/events {}']);
    expect(server.requests.every((r) => r.headers.authorization === `Bearer ${TEST_KEY}`)).toBe(true);
    expect(result.stdout).toMatch(/2 accepted of 2 rows/);
  });

  it('detects NDJSON on the context stdin', async () => {
    const stdin = Readable.from([Buffer.from('{"triggerId":"t","userId":"u1"}\n{"triggerId":"t","userId":"u2","value":3}\n')]);
    const result = await batchFrom(stdin, '--json');
    expect(result.code).toBe(0);
    expect(sent()).toEqual(['/v1/triggers/t/users/u1/events {}', '/v1/triggers/t/users/u2/events {"value":3}']);
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toMatchObject({ ok: true });
  });

  it('reads --format lines from the context stdin with --trigger', async () => {
    const stdin = Readable.from(['u1\nu2\n\nu3\n']);
    const result = await batchFrom(stdin, '--format', 'lines', '--trigger', 'visit');
    expect(result.code).toBe(0);
    expect(sent()).toEqual([
      '/v1/triggers/visit/users/u1/events {}',
      '/v1/triggers/visit/users/u2/events {}',
      '/v1/triggers/visit/users/u3/events {}',
    ]);
  });

  it('a bad row on the context stdin is reported with its line and is not sent', async () => {
    const stdin = Readable.from(['triggerId,userId,value\nt,u1,1\nt,u2,notanumber\n']);
    const result = await batchFrom(stdin);
    expect(result.code).not.toBe(0);
    expect(sent()).toEqual(['/v1/triggers/t/users/u1/events {"value":1}']);
    expect(result.stderr).toMatch(/line 3|row 2/);
  });

  it('--format parquet with a pipe: exit 2 saying the flag asks for a file by name, whatever the pipe holds; nothing sent', async () => {
    const result = await batchFrom(Readable.from(['triggerId,userId\nt,u1\n']), '--format', 'parquet');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'error: --format parquet reads a Parquet file, which is read from its footer and cannot come through a pipe',
    );
    expect(result.stderr).not.toContain('standard input is a Parquet file');
    expect(sent()).toEqual([]);
  });
});

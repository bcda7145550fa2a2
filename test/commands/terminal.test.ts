/**
 * What only a terminal shows (a batch's progress line, fire's spinner), in-process: the Output is given
 * a stderr that says it is a terminal of 80 columns, so no pseudo-terminal is needed to see them.
 * test/e2e/terminal.test.ts keeps the real pseudo-terminal runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { Output } from '../../src/output/io.js';
import { TEST_KEY } from '../helpers/cli.js';
import { Captured, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

class FakeTerminal extends Captured {
  isTTY = true;
  columns = 80;
}

async function inTerminal(args: string[], columns = 80) {
  const stdout = new Captured();
  const stderr = new FakeTerminal();
  stderr.columns = columns;
  const code = await main(['node', 'trigger', ...args], { io: new Output({ stdout, stderr }), env: sandbox.env });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('a terminal on stderr, in-process', () => {
  it('a batch draws its progress line in place, clears it before the summary, and masks the key in it', async () => {
    server.handle((_req, res) => void setTimeout(() => json(res, 200, { success: true }), 150));
    const input = path.join(sandbox.home, 'in.csv');
    fs.writeFileSync(input, `triggerId,userId\n${[1, 2, 3, 4].map((i) => `t,${TEST_KEY}-${i}`).join('\n')}\n`);
    const result = await inTerminal(['batch', input, '--concurrency', '1']);
    expect(result.code).toBe(0);
    const draws = result.stderr.split('\r\x1b[K').filter(Boolean);
    expect(draws.length).toBeGreaterThan(1);
    expect(draws.some((d) => /\d+\/4 rows · 0 failed/.test(d))).toBe(true);
    expect(result.stderr.endsWith('\r\x1b[K')).toBe(true); // cleared when done
    expect(result.stdout).toMatch(/4 accepted/);
    expect(result.stderr.includes(TEST_KEY) || result.stdout.includes(TEST_KEY)).toBe(false);
  });

  it('a terminal that reports no size gets no progress line (a pty nobody sized)', async () => {
    server.handle((_req, res) => void setTimeout(() => json(res, 200, { success: true }), 150));
    const input = path.join(sandbox.home, 'in.csv');
    fs.writeFileSync(input, 'triggerId,userId\nt,a\nt,b\nt,c\n');
    const result = await inTerminal(['batch', input, '--concurrency', '1'], 0);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('\r\x1b[K');
  });
});

describe('a batch with --journal reads its input whole first (audit24 item 11: a 4 GB export took seconds without a word)', () => {
  it('says so on a terminal, cleared before the batch goes on; not with --quiet or --json, nor off a terminal', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const input = path.join(sandbox.home, 'in.csv');
    fs.writeFileSync(input, 'triggerId,userId\nt,a\nt,b\n');
    const args = (n: number) => [
      'batch',
      input,
      '--journal',
      path.join(sandbox.home, `${n}.journal`),
      '--failed',
      path.join(sandbox.home, `${n}-f.csv`),
    ];
    const shown = await inTerminal(args(1));
    expect(shown.code).toBe(0);
    expect(shown.stderr).toContain('\r\x1b[Kreading the input for --journal: 0 of 0 MB\r\x1b[K');
    for (const [n, extra] of [
      [2, '--quiet'],
      [3, '--json'],
    ] as const) {
      const quiet = await inTerminal([...args(n), extra]);
      expect(quiet.code).toBe(0);
      expect(quiet.stderr).not.toContain('--journal');
    }
    const stderr = new Captured();
    const plain = await main(['node', 'trigger', ...args(4)], { io: new Output({ stdout: new Captured(), stderr }), env: sandbox.env });
    expect(plain).toBe(0);
    expect(stderr.text).not.toContain('--journal');
    expect(server.requests).toHaveLength(8);
  });
});

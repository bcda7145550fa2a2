/**
 * trigger in a real terminal (a pseudo-terminal from python3's pty module, sized with TIOCSWINSZ):
 * spinners, progress lines, colours and Ctrl-C as a person meets them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { TERMINAL, inTerminal } from '../helpers/pty.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TERM: 'xterm-256color' });
  box.env.TRIGGER_BASE_URL = server.url;
  delete box.env.FORCE_COLOR; // colours as the terminal decides
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const slow = (ms: number) =>
  server.handle(async (_req, res) => {
    await new Promise((r) => setTimeout(r, ms));
    json(res, 200, { success: true });
  });
// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]/g;

describe('in a terminal', () => {
  needs(...TERMINAL);

  it('Ctrl-C during fire: the message, the JSON object, exit 130 (not death by the signal)', async () => {
    for (const json of [false, true]) {
      // Ctrl-C once the spinner shows, or with --json (no spinner) once the request is at the server
      // (never answered): the binary has taken its signals by then, however loaded the machine.
      const sent = new Promise<void>((resolve) => server.handle(() => resolve()));
      const run = await inTerminal(['fire', 'deploy', 'alice', ...(json ? ['--json'] : [])], {
        env: box.env,
        ...(json ? { startWhen: sent } : { waitFor: 'firing' }),
        input: [[0.5, '\x03']],
      });
      expect(run.status).toBe(130);
      expect(run.output).toContain('interrupted before the service answered');
      if (json) expect(run.output).toMatch(/\{"ok":false,.*"kind":"interrupted","exitCode":130/);
    }
  });

  it('the spinner says when it waits to retry', async () => {
    server.handle((_req, res, index) =>
      index === 0 ? json(res, 503, { error: 'busy' }, { 'retry-after': '1' }) : json(res, 200, { success: true }),
    );
    const run = await inTerminal(['fire', 'deploy', 'alice'], { env: box.env });
    expect(run.status).toBe(0);
    expect(run.output).toContain('503 Service Unavailable: waiting 1.00 s to retry deploy for alice');
    expect(server.requests).toHaveLength(2);
  });

  it('a terminal that reports 0 columns gets no spinner, not an endless stream of escapes', async () => {
    slow(1500);
    const run = await inTerminal(['fire', 'deploy', 'alice'], { env: box.env, rows: 0, cols: 0 });
    expect(run.status).toBe(0);
    expect(run.output.length).toBeLessThan(2000);
    expect(run.output).not.toContain('\u001b[1A');
    expect(run.output.replace(ESCAPES, '')).toContain('✔ deploy · alice');
  });

  it('NO_COLOR: the spinner has no colour either', async () => {
    slow(600);
    const run = await inTerminal(['fire', 'deploy', 'alice'], { env: { ...box.env, NO_COLOR: '1' } });
    expect(run.status).toBe(0);
    expect(run.output).toContain('firing deploy for alice'); // the spinner was there
    // eslint-disable-next-line no-control-regex
    expect(run.output).not.toMatch(/\u001b\[3\dm/);
  });

  it('batch --json on a terminal: JSON lines are never mixed with the progress line', async () => {
    slow(3);
    fs.writeFileSync(path.join(box.home, 'rows.csv'), `triggerId,userId\n${Array.from({ length: 400 }, (_, i) => `t,u${i}`).join('\n')}\n`);
    const run = await inTerminal(['batch', path.join(box.home, 'rows.csv'), '--json', '--concurrency', '2'], {
      env: box.env,
      timeoutMs: 30_000,
    });
    expect(run.status).toBe(0);
    const lines = run.output
      .replace(ESCAPES, '')
      .split(/\r?\n|\r/)
      .filter((l) => l.includes('"line"'));
    expect(lines).toHaveLength(400);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it('TERM=dumb: no spinner line left behind, no progress drawn with escapes', async () => {
    slow(400);
    const env = { ...box.env, TERM: 'dumb' };
    const fired = await inTerminal(['fire', 'deploy', 'alice'], { env });
    expect(fired.status).toBe(0);
    expect(fired.output).not.toContain('firing');
    fs.writeFileSync(path.join(box.home, 'rows.csv'), 'triggerId,userId\nt,a\nt,b\n');
    const batch = await inTerminal(['batch', path.join(box.home, 'rows.csv')], { env });
    expect(batch.status).toBe(0);
    expect(batch.output).not.toContain('\u001b[K');
  });
});

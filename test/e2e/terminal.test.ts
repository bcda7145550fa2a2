/**
 * trigger in a real terminal (a pseudo-terminal from python3's pty module, sized with TIOCSWINSZ):
 * spinners, progress lines, colours and Ctrl-C as a person meets them. Where a test needs the request
 * to be pending while something is drawn, the server holds its answer until the terminal shows it (or,
 * for what must not be drawn, until a run beside it that can draw has drawn), never for a fixed time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { TERMINAL, inTerminal, startTerminal, type TerminalRun } from '../helpers/pty.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

/** A server on 127.0.0.1 and a sandbox pointing at it, with a terminal's TERM and its own colours. */
async function setUp(): Promise<{ server: TestServer; box: Sandbox }> {
  const server = await startServer();
  const box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TERM: 'xterm-256color' });
  box.env.TRIGGER_BASE_URL = server.url;
  delete box.env.FORCE_COLOR; // colours as the terminal decides
  return { server, box };
}

let server: TestServer;
let box: Sandbox;
beforeEach(async () => {
  ({ server, box } = await setUp());
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]/g;

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

describe('in a terminal', () => {
  needs(...TERMINAL);

  it('Ctrl-C during fire: the message, the JSON object, exit 130 (not death by the signal)', async () => {
    for (const json of [false, true]) {
      // Ctrl-C once the spinner shows, or with --json (no spinner) once the request is at the server
      // (never answered): fire takes its signals before it starts the spinner and before it sends.
      const sent = new Promise<void>((resolve) => server.handle(() => resolve()));
      const terminal = startTerminal(['fire', 'deploy', 'alice', ...(json ? ['--json'] : [])], { env: box.env });
      await (json ? sent : terminal.waitFor('firing'));
      terminal.type('\x03');
      const run = await terminal.done;
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

  it('batch --json on a terminal: JSON lines are never mixed with the progress line', async () => {
    fs.writeFileSync(path.join(box.home, 'rows.csv'), `triggerId,userId\n${Array.from({ length: 400 }, (_, i) => `t,u${i}`).join('\n')}\n`);
    const terminal = startTerminal(['batch', path.join(box.home, 'rows.csv'), '--json', '--concurrency', '2'], {
      env: box.env,
      timeoutMs: 30_000,
    });
    // The answers from the 150th and from the 300th request on wait until the progress line is drawn
    // again, so that it is drawn between JSON lines, with lines written before and after it.
    const progress = /\d rows/g;
    const holds = new Map<number, Promise<string>>();
    server.handle(async (_req, res, index) => {
      const at = index >= 300 ? 300 : index >= 150 ? 150 : undefined;
      if (at !== undefined) {
        if (!holds.has(at)) {
          const drawn = count(terminal.output(), progress);
          holds.set(
            at,
            terminal.waitFor((output) => count(output, progress) > drawn),
          );
        }
        await holds.get(at);
      }
      json(res, 200, { success: true });
    });
    const run = await terminal.done;
    expect(run.status).toBe(0);
    const lines = run.output
      .replace(ESCAPES, '')
      .split(/\r?\n|\r/)
      .filter((l) => l.includes('"line"'));
    expect(lines).toHaveLength(400);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});

/**
 * What must not be drawn cannot be waited for. These runs go side by side, and every answer waits
 * until each has sent its request and then the NO_COLOR run, whose terminal can draw, has drawn three
 * more spinner frames (240 ms of ora's, more than the progress line's 200): by then a run that wrongly
 * drew a spinner or a progress line would have drawn.
 */
describe('in a terminal, side by side with one that draws', () => {
  const available = needs(...TERMINAL);
  let setup: { server: TestServer; box: Sandbox } | undefined;
  const runs: Partial<Record<'noColor' | 'noColumns' | 'dumbFire' | 'dumbBatch', TerminalRun>> = {};
  beforeAll(async () => {
    if (!available) return;
    setup = await setUp();
    const env = setup.box.env;
    const dumb = { ...env, TERM: 'dumb' };
    fs.writeFileSync(path.join(setup.box.home, 'rows.csv'), 'triggerId,userId\nt,a\nt,b\n');
    const noColor = startTerminal(['fire', 'deploy', 'alice'], { env: { ...env, NO_COLOR: '1' } });
    const frames = /firing deploy for alice/g;
    let fires = 0;
    let rows = 0;
    let allSent!: () => void;
    const sent = new Promise<void>((resolve) => (allSent = resolve));
    const released = sent.then(() => {
      const drawn = count(noColor.output(), frames);
      return noColor.waitFor((output) => count(output, frames) >= drawn + 3);
    });
    setup.server.handle(async (req, res) => {
      if (req.url.includes('/deploy/')) fires++;
      else rows++;
      if (fires === 3 && rows >= 1) allSent();
      await released;
      json(res, 200, { success: true });
    });
    const [noColorRun, noColumns, dumbFire, dumbBatch] = await Promise.all([
      noColor.done,
      startTerminal(['fire', 'deploy', 'alice'], { env, rows: 0, cols: 0 }).done,
      startTerminal(['fire', 'deploy', 'alice'], { env: dumb }).done,
      startTerminal(['batch', path.join(setup.box.home, 'rows.csv')], { env: dumb }).done,
    ]);
    Object.assign(runs, { noColor: noColorRun, noColumns, dumbFire, dumbBatch });
  });
  afterAll(async () => {
    await setup?.server.close();
    setup?.box.cleanup();
  });

  it('a terminal that reports 0 columns gets no spinner, not an endless stream of escapes', () => {
    const run = runs.noColumns!;
    expect(run.status).toBe(0);
    expect(run.output.length).toBeLessThan(2000);
    expect(run.output).not.toContain('\u001b[1A');
    expect(run.output.replace(ESCAPES, '')).toContain('✔ deploy · alice');
  });

  it('NO_COLOR: the spinner has no colour either', () => {
    const run = runs.noColor!;
    expect(run.status).toBe(0);
    expect(run.output).toContain('firing deploy for alice'); // the spinner was there
    // eslint-disable-next-line no-control-regex
    expect(run.output).not.toMatch(/\u001b\[3\dm/);
  });

  it('TERM=dumb: no spinner line left behind, no progress drawn with escapes', () => {
    const fired = runs.dumbFire!;
    expect(fired.status).toBe(0);
    expect(fired.output).not.toContain('firing');
    const batch = runs.dumbBatch!;
    expect(batch.status).toBe(0);
    expect(batch.output).not.toContain('\u001b[K');
  });
});

/**
 * The batch progress line on a terminal narrower than the line. It is redrawn with `\r` and `ESC[K`,
 * which clear only the row the cursor is on: a line wider than the terminal wraps, and every redraw
 * then leaves the rows it wrapped onto behind (and the summary is written under a stale one). The
 * contract: progress lines appear only on a terminal that reports a size, and are cleared before
 * anything else is written to the same terminal; so what is drawn must fit the size it reports, with room for the
 * terminal's own echo of ^C, and a line the terminal wrapped when it was made narrower is cleared whole (audit25 #8).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, homeFile, sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { TERMINAL, startTerminal } from '../helpers/pty.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import type http from 'node:http';

// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]/g;
const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;
/** The progress lines drawn in place, as shown (escapes left out). */
const frames = (output: string) =>
  output
    .split('\r\u001b[K')
    .map((piece) => piece.split(/[\r\n]/)[0]!.replace(ESCAPES, ''))
    .filter((text) => /^batch \d+\/\d+ rows/.test(text));
const held: http.ServerResponse[] = [];

let server: TestServer;
let box: Sandbox;
beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TERM: 'xterm-256color' });
  box.env.TRIGGER_BASE_URL = server.url;
  delete box.env.FORCE_COLOR;
});
afterEach(async () => {
  for (const res of held.splice(0)) res.destroy();
  await server.close();
  box.cleanup();
});

describe('the batch progress line on a narrow terminal', () => {
  needs(...TERMINAL);

  it('every redraw fits the 40 columns the terminal reports, so nothing is left behind', async () => {
    const rows = Array.from({ length: 6 }, (_, i) => `purchase,user${i},${i}`).join('\n');
    const file = homeFile(box, 'rows.csv', `triggerId,userId,value\n${rows}\n`);
    const cols = 40;
    const terminal = startTerminal(['batch', file, '--concurrency', '2'], { env: box.env, cols, timeoutMs: 30_000 });
    // Each answer waits until the progress line has been drawn once more, so that it is drawn mid-run.
    server.handle(async (_req, res) => {
      const drawn = count(terminal.output(), /\d+\/6 rows/g);
      await terminal.waitFor((output) => count(output, /\d+\/6 rows/g) > drawn);
      json(res, 200, { success: true });
    });
    const run = await terminal.done;
    expect(run.status).toBe(0);
    const draws = run.output
      .split('\r\u001b[K')
      .map((piece) => piece.split(/[\r\n]/)[0]!.replace(ESCAPES, ''))
      .filter((text) => /\d+\/6 rows/.test(text));
    expect(draws.length).toBeGreaterThan(0);
    for (const text of draws) expect([...text].length, `drawn: ${JSON.stringify(text)}`).toBeLessThanOrEqual(cols);
    expect(run.output).not.toContain(TEST_KEY);
  });

  it("at 80 columns leaves room for the terminal's ^C echo, and after it shows the stop whole (it read `stopping: nothing more is s`)", async () => {
    const file = homeFile(box, 'rows.csv', `triggerId,userId\n${Array.from({ length: 300 }, (_, i) => `t,u${i}`).join('\n')}\n`);
    server.handle((_req, res) => void (server.requests.length <= 20 ? json(res, 200, { success: true }) : held.push(res)));
    const cols = 80;
    const terminal = startTerminal(['batch', file, '--concurrency', '8', '--retries', '0', '--failed', `${file}.failed`], {
      env: box.env,
      cols,
      timeoutMs: 30_000,
    });
    await terminal.waitFor((output) => server.requests.length === 28 && frames(output).some((f) => f.startsWith('batch 20/300 rows')));
    terminal.type('\x03');
    await terminal.waitFor((output) => count(output, /stopping: nothing/g) >= 2);
    for (const res of held.splice(0)) json(res, 200, { success: true });
    const run = await terminal.done;
    expect(run.status).toBe(130);
    const shown = frames(run.output);
    for (const text of shown) expect([...text].length + '^C'.length, `drawn: ${JSON.stringify(text)}`).toBeLessThan(cols);
    const stopping = shown.filter((text) => text.includes('stopping'));
    expect(stopping.length).toBeGreaterThan(0);
    for (const text of stopping) expect(text).toMatch(/^batch \d+\/300 rows · .* · stopping: nothing more is sent$/);
  });

  it('made narrower while the line is shown, redraws it on one row of the new width, and clears no row above it', async () => {
    const file = homeFile(box, 'rows.csv', `triggerId,userId\n${Array.from({ length: 4 }, (_, i) => `t,u${i}`).join('\n')}\n`);
    server.handle((_req, res) => void held.push(res));
    const terminal = startTerminal(['batch', file, '--concurrency', '2', '--failed', `${file}.failed`], {
      env: box.env,
      cols: 40,
      timeoutMs: 30_000,
    });
    await terminal.waitFor((output) => server.requests.length === 2 && frames(output).length >= 2);
    expect([...frames(terminal.output()).at(-1)!].length).toBeGreaterThan(25);
    terminal.resize(24, 25);
    const resizedAt = terminal.output().length;
    await terminal.waitFor((output) => frames(output.slice(resizedAt)).length >= 3);
    for (const res of held.splice(0)) json(res, 200, { success: true });
    server.handle((_req, res) => json(res, 200, { success: true }));
    const run = await terminal.done;
    expect(run.status).toBe(0);
    // The first may have been drawn before the program heard of the resize.
    for (const text of frames(run.output.slice(resizedAt)).slice(1)) expect([...text].length).toBeLessThanOrEqual(25 - 3);
    // xterm.js (VS Code) and xterm leave the cursor's row unwrapped when made narrower: the row above it is earlier output.
    // eslint-disable-next-line no-control-regex
    expect(run.output).not.toMatch(/\u001b\[\d*[AF]/);
  });

  it("fire's spinner is one row, cut to the terminal, and cut again when it is made narrower (a long id's rows were left behind)", async () => {
    const user = `u${'-with-a-very-long-user-name'.repeat(4)}`;
    server.handle((_req, res) => void held.push(res));
    const terminal = startTerminal(['fire', 'purchase', user], { env: box.env, cols: 40, timeoutMs: 20_000 });
    /** What each of the spinner's frames shows (ora starts each at the first column). */
    const spun = (output: string) =>
      output
        .split('\u001b[1G')
        .map((piece) => piece.replace(ESCAPES, ''))
        .filter((text) => text.includes('firing'));
    await terminal.waitFor((output) => spun(output).length >= 2);
    terminal.resize(24, 25);
    const resizedAt = terminal.output().length;
    await terminal.waitFor((output) => spun(output.slice(resizedAt)).length >= 3);
    for (const res of held.splice(0)) json(res, 200, { success: true });
    const run = await terminal.done;
    expect(run.status).toBe(0);
    const before = spun(run.output.slice(0, resizedAt));
    for (const text of before) expect([...text].length, `drawn: ${JSON.stringify(text)}`).toBeLessThanOrEqual(40 - 3);
    expect(before[0]).toBe('⠋ firing purchase for…');
    for (const text of spun(run.output.slice(resizedAt)).slice(1)) expect([...text].length).toBeLessThanOrEqual(25 - 3);
  });
});

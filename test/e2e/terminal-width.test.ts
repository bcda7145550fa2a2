/**
 * The batch progress line on a terminal narrower than the line. It is redrawn with `\r` and `ESC[K`,
 * which clear only the row the cursor is on: a line wider than the terminal wraps, and every redraw
 * then leaves the rows it wrapped onto behind (and the summary is written under a stale one). The
 * contract: progress lines appear only on a terminal that reports a size, and are cleared before
 * anything else is written to the same terminal; so what is drawn must fit the size it reports.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, homeFile, sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { TERMINAL, startTerminal } from '../helpers/pty.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]/g;
const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

let server: TestServer;
let box: Sandbox;
beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TERM: 'xterm-256color' });
  box.env.TRIGGER_BASE_URL = server.url;
  delete box.env.FORCE_COLOR;
});
afterEach(async () => {
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
});

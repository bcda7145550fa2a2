/**
 * `trigger batch -` on a terminal reads the rows a person types there ("press Ctrl-D on a new line to
 * end them"), and meanwhile redraws its progress line every 200 ms with `\r ESC[K` on the very line
 * the person is typing on: the echo of what they typed is appended to "... 0 in flight", and each
 * redraw erases it, so a half-typed user id vanishes from the screen (the terminal still holds it).
 * Contract: progress lines are cleared before anything else is written to the same terminal.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { TERMINAL, inTerminal } from '../helpers/pty.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
beforeEach(async () => {
  server = await startServer();
  server.handle((_req, res) => json(res, 200, { success: true }));
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TERM: 'xterm-256color', TRIGGER_BASE_URL: server.url });
  delete box.env.FORCE_COLOR;
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

describe('batch - reading rows typed on the terminal', () => {
  needs(...TERMINAL);

  it('never erases the line being typed: what was typed stays on the screen until Enter', async () => {
    const run = await inTerminal(['batch', '-', '--format', 'lines', '--trigger', 't'], {
      env: box.env,
      waitFor: 'Ctrl-D',
      input: [
        [0.2, 'typed-us'],
        [1.2, 'er\n'],
        [1.6, '\x04'],
      ],
    });
    expect(run.status).toBe(0);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/triggers/t/users/typed-user/events']);
    // Between the echo of the first keys and that of the rest, nothing clears the line they are on.
    const between = run.output.slice(run.output.indexOf('typed-us'), run.output.indexOf('er\r\n'));
    expect(between, JSON.stringify(between)).not.toContain('\u001b[K');
    expect(run.output).not.toContain(TEST_KEY);
  }, 30_000);
});

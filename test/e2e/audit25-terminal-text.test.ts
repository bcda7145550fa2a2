/**
 * audit25 repro, two ways what reaches the terminal is not what the contract says:
 * - invisible characters that are not of category Cf pass unescaped (default-ignorable code points:
 *   U+034F COMBINING GRAPHEME JOINER, U+3164 HANGUL FILLER, U+FE0F, U+17B4): user `a\u034fb` is shown
 *   as `ab`, so what a person reads is not what is sent ("the invisible ... characters ... are escaped").
 * - a long input echoed whole in an error: a 5,000-character profile name fills the screen ("A piece of input echoed in an error is cut to a readable length (an excerpt and the full
 *   length)"); --value and --timeout are cut.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';

let box: Sandbox;
let server: TestServer;
beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY });
  box.env.TRIGGER_BASE_URL = server.url;
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

describe('what reaches the terminal', () => {
  it.each([
    ['034F', '\u034f'],
    ['3164', '\u3164'],
    ['FE0F', '\ufe0f'],
    ['17B4', '\u17b4'],
    ['115F', '\u115f'],
  ])('an invisible U+%s in a user id is shown escaped', async (_name, invisible) => {
    const result = await run(['fire', 'p', `a${invisible}b`], { env: box.env });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(result.stdout.includes(invisible)).toBe(false);
  });

  it.each([
    [['config', 'set-key', TEST_KEY, '--profile']],
    [['config', 'use']],
    [['fire', 'p', 'u', '--profile']],
    [['status', '--profile']],
  ])('a 5,000-character profile name is cut in the error of %j', async (args: string[]) => {
    const result = await run([...args, 'x'.repeat(5000)], { env: box.env });
    expect(result.code).toBe(2);
    // Today: 5,089 characters, the whole name.
    expect(result.stderr.length).toBeLessThan(1000);
    expect(result.stderr).toContain(`profile name "${'x'.repeat(40)}…${'x'.repeat(12)}" (5,000 characters) is not valid`);
  });
});

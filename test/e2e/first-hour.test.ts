/**
 * The rough edges a newcomer meets in the first hour that only a process shows: the hidden prompt
 * and ^C in a terminal, a batch on standard input. The rest runs in-process:
 * test/in-process/first-hour.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { TEST_KEY, run, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { TERMINAL, hiddenPrompt, startTerminal } from '../helpers/pty.js';
import { useServer } from '../helpers/server.js';

let box: Sandbox;
useServer((_s, b) => (box = b));

describe('wording', () => {
  it('a bad --concurrency says it once', async () => {
    const result = await run(['batch', '-', '--concurrency', '0'], { env: box.env, input: '' });
    expect(result.stderr.split('\n')[0]).toBe("error: --concurrency '0' is not valid: expected auto, or a whole number from 1 to 256");
  });
});

describe('wording, in a terminal', () => {
  needs(...TERMINAL);

  it('an empty answer at the hidden prompt asks again', async () => {
    const env: NodeJS.ProcessEnv = { ...box.env };
    delete env.TRIGGER_API_KEY;
    // Each answer is typed once the prompt is on the screen and the terminal no longer echoes.
    const terminal = startTerminal(['config', 'set-key', '--insecure-storage'], { env });
    await terminal.waitFor(hiddenPrompt('API key:'));
    terminal.type('\r');
    await terminal.waitFor(hiddenPrompt('nothing was entered; API key:'));
    terminal.type(`${TEST_KEY}\r`);
    const result = await terminal.done;
    expect(result.status).toBe(0);
    expect(result.output).toContain('nothing was entered; API key:');
    expect(result.output).toContain('saved to profile "default"');
    expect(result.output).not.toContain(TEST_KEY);
  });
});

describe('file errors in words', () => {
  needs(...TERMINAL);

  // Ctrl-C typed the moment the banner shows: the emulator takes its signals before it prints it (Node
  // itself catches SIGINT from its start, to reset the terminal, so the signal mask cannot tell).
  it('the emulator starts a new line after the ^C the terminal echoed', async () => {
    const terminal = startTerminal(['emulator', '--port', '0'], { env: box.env });
    await terminal.waitFor('Ctrl-C stops it');
    terminal.type('\x03');
    const run = await terminal.done;
    expect(run.status).toBe(0);
    expect(run.output).toMatch(/\nstopped: 0 recorded/);
    expect(run.output).not.toMatch(/\^Cstopped/);
  });
});

/**
 * The hidden prompt of `config set-key` in a real terminal: what is typed is not shown, a key erased
 * with Backspace is not saved, Ctrl-D on nothing asks again, and Ctrl-C cancels with nothing saved (exit 130).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_KEY, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { TERMINAL, hiddenPrompt, startTerminal } from '../helpers/pty.js';
import { useServer } from '../helpers/server.js';

let box: Sandbox;
useServer((_s, b) => (box = b));

function withoutKey(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...box.env };
  delete env.TRIGGER_API_KEY;
  return env;
}

const configFile = () => path.join(box.configDir, 'config.json');

describe('the hidden prompt', () => {
  needs(...TERMINAL);

  it('saves the line typed, Backspace taking off what it erased, and shows none of it; Ctrl-D on nothing asks again', async () => {
    const terminal = startTerminal(['config', 'set-key', '--insecure-storage'], { env: withoutKey() });
    await terminal.waitFor(hiddenPrompt('API key:'));
    terminal.type('\x04');
    await terminal.waitFor(hiddenPrompt('nothing was entered; API key:'));
    terminal.type(`${TEST_KEY}xy\x7f\x7f\r`);
    const result = await terminal.done;
    expect(result.status).toBe(0);
    expect(result.output).toContain('saved to profile "default"');
    expect(result.output).not.toContain(TEST_KEY);
    expect(fs.readFileSync(configFile(), 'utf8')).toContain(`"${TEST_KEY}"`);
  });

  it('Ctrl-C cancels: exit 130, nothing saved', async () => {
    fs.rmSync(configFile(), { force: true });
    const terminal = startTerminal(['config', 'set-key', '--insecure-storage'], { env: withoutKey() });
    await terminal.waitFor(hiddenPrompt('API key:'));
    terminal.type('tk_half\x03');
    const result = await terminal.done;
    expect(result.status).toBe(130);
    expect(result.output).toContain('cancelled; no key was saved');
    expect(result.output).not.toContain('tk_half');
    expect(fs.existsSync(configFile())).toBe(false);
  });
});

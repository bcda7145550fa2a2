/**
 * Commands whose whole result is what they print. README's fish line writes the completion script
 * with a redirect (`trigger completion fish > ~/.config/fish/completions/trigger.fish`); on a full
 * disk nothing reaches the file, stderr says the output is lost, and the command still exits 0, so
 * `trigger completion fish > f && echo installed` reports success over an empty file. `fire` keeps
 * exit 0 on a lost stdout because the event was recorded (contract); these commands did nothing else.
 * (cat and curl exit non-zero when they cannot write their output.)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

describe('a command whose only result is its output, on a stdout that cannot be written', () => {
  it.each([[['completion', 'fish']], [['completion', 'bash']], [['config', 'path']]])('%j does not exit 0', (args) => {
    const out = fs.openSync('/dev/full', 'w');
    try {
      const result = spawnSync(process.execPath, [BIN, ...args], {
        env: box.env,
        cwd: box.home,
        stdio: ['ignore', out, 'pipe'],
        encoding: 'utf8',
      });
      // Nothing was done but printing: "what was done stands" (fire's words, whose event was recorded) would not be true.
      expect(result.stderr.trim()).toBe('error: cannot write to standard output (no space left on the device); the output is lost');
      expect(result.status).not.toBe(0);
    } finally {
      fs.closeSync(out);
    }
  });
});

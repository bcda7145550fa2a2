/**
 * The emulator's banner names the triggers it knows: catalog text and --trigger ids reach the
 * terminal escaped, as every human line shows ids (no escape sequence, no line break of their own).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, sandbox, type Sandbox } from '../helpers/cli.js';
import { startEmulatorInProcess, type InProcessEmulator } from '../helpers/in-process.js';

let box: Sandbox;
let emu: InProcessEmulator | undefined;

beforeEach(() => {
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY });
});
afterEach(async () => {
  await emu?.stop('SIGKILL');
  emu = undefined;
  box.cleanup();
});

const triggersLine = (stderr: string) => stderr.split('\n').find((line) => line.startsWith('  triggers: '));

describe('the triggers line of the banner', () => {
  it("escapes the catalog's ids and its path", async () => {
    const project = path.join(box.home, 'odd\u001b[2Jfolder');
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(
      path.join(project, 'triggers.json'),
      JSON.stringify({ triggers: { 'red\u001b[31m': {}, 'two\nlines': {}, plain: {} } }),
    );
    emu = await startEmulatorInProcess([], box.env, project);
    const line = triggersLine(emu.stderr());
    expect(line).toBe(
      `  triggers: "red\\u001b[31m", "two\\nlines", plain from ${path.join(box.home, 'odd\\x1b[2Jfolder', 'triggers.json')} (any other answers 404)`,
    );
    expect(emu.stderr()).not.toContain('\u001b');
  });

  it('escapes --trigger ids', async () => {
    emu = await startEmulatorInProcess(['--trigger', 'a\u0007b', 'ok'], box.env);
    expect(triggersLine(emu.stderr())).toBe('  triggers: "a\\u0007b", ok (any other answers 404)');
    expect(emu.stderr()).not.toContain('\u0007');
  });
});

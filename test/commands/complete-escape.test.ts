/**
 * trigger __complete with catalog keys a terminal must not receive raw: a newline, an escape or an
 * invisible (Cf) character in an id never reaches the shell, and a name with one is shown escaped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commandEnv, runCommand, type CommandSandbox } from '../helpers/in-process.js';

let box: CommandSandbox;
beforeAll(() => {
  box = commandEnv();
  const triggers = {
    'plain-id': { name: 'Plain \u202egnp.exe' },
    'p-new\nline': { name: 'newline' },
    'p-esc\u001b[31m': { name: 'escape' },
    'p-rlo\u202eexe': { name: 'right-to-left override' },
    'p-zwsp\u200b': { name: 'zero-width space' },
    'p-bom\ufeff': { name: 'byte order mark' },
  };
  fs.writeFileSync(path.join(box.home, 'triggers.json'), JSON.stringify({ triggers }));
});
afterAll(() => box.cleanup());

it('offers only the ids a terminal shows as they are, and escapes the names it describes them with', async () => {
  const result = await runCommand(['__complete', 'fire', 'p'], box.env, box.home);
  expect(result).toEqual({ code: 0, stdout: 'plain-id\tPlain \\u202egnp.exe\n:plain\n', stderr: '' });
  // eslint-disable-next-line no-control-regex
  expect(result.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u200b\u202e\ufeff]/);
});

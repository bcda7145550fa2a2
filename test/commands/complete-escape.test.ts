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
    'p-nel\u0085': { name: 'a C1 control' },
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

it("bash's script is offered an id with an invisible character as $'...', that character as its bytes (fix26b)", async () => {
  const result = await runCommand(['__complete', 'fire', 'p'], { ...box.env, TRIGGER_COMPLETE_SHELL: 'bash' }, box.home);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(
    [
      'plain-id\tPlain \\u202egnp.exe',
      "\t$'p-rlo\\xe2\\x80\\xaeexe'\tright-to-left override",
      "\t$'p-zwsp\\xe2\\x80\\x8b'\tzero-width space",
      "\t$'p-bom\\xef\\xbb\\xbf'\tbyte order mark",
      ':plain',
      '',
    ].join('\n'),
  ); // a control (newline, escape, U+0085) is still not offered
  // eslint-disable-next-line no-control-regex
  expect(result.stdout).not.toMatch(/[\u001b\u200b\u202e\ufeff]/);
});

it("in $'...', a backslash, a quote and a ! are bytes too, so nothing in it ends the quote or expands history (fix26b)", async () => {
  const home = path.join(box.home, 'marks');
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(home, 'triggers.json'), JSON.stringify({ triggers: { "it's!\\\u2060": {} } }));
  const result = await runCommand(['__complete', 'fire', 'it'], { ...box.env, TRIGGER_COMPLETE_SHELL: 'bash' }, home);
  expect(result.stdout).toBe("\t$'it\\x27s\\x21\\x5c\\xe2\\x81\\xa0'\n:plain\n");
});

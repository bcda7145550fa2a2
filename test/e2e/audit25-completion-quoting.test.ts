/**
 * audit25 repro: a catalog trigger completed in bash is put on the command line unquoted, so the line
 * is not the id: `trigger fire sig<Tab>` gives `trigger fire sign up` (trigger "sign", user "up"),
 * `it's` opens a quote, `semi;colon` runs a second command, and an id `$(touch file)` runs when Enter
 * is pressed. zsh and fish quote (`sign\ up`), but zsh drops a backslash: `a\b` is offered and
 * inserted as `ab`, another id. The catalog's trust check (owner, mode) does not help: a repository
 * the user cloned is theirs. Contract: completion "offers the catalog's triggers"; a catalog is data.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { SHELL_NEEDS, ShellSession, type ShellName } from '../helpers/shell.js';

let box: Sandbox;
let work: string;
beforeAll(() => {
  box = sandbox();
  work = path.join(box.home, 'repo');
  fs.mkdirSync(work);
  const ids = ['sign up', 'a\\b', "it's", '$(touch pwned)', 'purchase'];
  fs.writeFileSync(path.join(work, 'triggers.json'), JSON.stringify({ triggers: Object.fromEntries(ids.map((id) => [id, {}])) }));
});
afterAll(() => box.cleanup());

/** What is typed before the Tab, and the line the shell must show after it: the same id, one word. */
const CASES: Record<ShellName, Array<[string, RegExp]>> = {
  bash: [
    ['trigger fire sig', /^\$ trigger fire sign\\ up\s*$/m],
    ['trigger fire it', /^\$ trigger fire it\\'s\s*$/m],
    // A word opened with a quote is completed inside it, and the quote closed.
    ["trigger fire 'sig", /^\$ trigger fire 'sign up'\s*$/m],
    ['trigger fire "it', /^\$ trigger fire "it's"\s*$/m],
    ['trigger fire sign\\ ', /^\$ trigger fire sign\\ up\s*$/m],
  ],
  zsh: [['trigger fire a', /^\$ trigger fire a\\\\b\s*$/m]],
  fish: [
    ["trigger fire 'sig", /^\$ trigger fire 'sign up'\s*$/m],
    ['trigger fire sign\\ ', /^\$ trigger fire sign\\ up\s*$/m],
  ],
};

describe.each<ShellName>(['bash', 'zsh', 'fish'])('in a real %s', (shell) => {
  const available = needs(...SHELL_NEEDS[shell]);
  let session: ShellSession;
  beforeAll(async () => {
    if (available) session = await ShellSession.start(shell, box, { cwd: work, install: shell === 'zsh' ? 'source' : undefined });
  }, 60_000);
  afterAll(() => session?.close());

  // Before the fix bash showed `$ trigger fire sign up` (two words), `it's` (an open quote) and nothing after a quote; zsh `ab`; fish
  // nothing after a quote or a backslash.
  it.each(CASES[shell])('%s<Tab> puts the completed id on the line as one word, the same id', async (line, wanted) => {
    await session.tab(line, wanted);
  });

  if (shell === 'bash') {
    it('an id $(touch pwned) is put on the line quoted: Enter runs no command', async () => {
      await session.type('trigger fire $', 'Tab');
      await session.waitFor(/^\$ trigger fire \\\$\\\(touch\\ pwned\\\)\s*$/m);
      await session.type('', 'Enter');
      await session.waitFor(/^\$\s*$/m); // the usage error (no user given), then the prompt
      await session.type('', 'C-l');
      expect(fs.existsSync(path.join(work, 'pwned'))).toBe(false);
    });
  }
});

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
import { afterAll, beforeAll, describe, it } from 'vitest';
import { sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { SHELL_NEEDS, ShellSession, type ShellName } from '../helpers/shell.js';

let box: Sandbox;
let work: string;
beforeAll(() => {
  box = sandbox();
  work = path.join(box.home, 'repo');
  fs.mkdirSync(work);
  const triggers = { 'sign up': { name: 'Signed up' }, 'a\\b': { name: 'Backslash' }, purchase: { name: 'Purchase' } };
  fs.writeFileSync(path.join(work, 'triggers.json'), JSON.stringify({ triggers }, null, 2));
});
afterAll(() => box.cleanup());

describe.each<[ShellName, string, RegExp]>([
  ['bash', 'trigger fire sig', /^\$ trigger fire (sign\\ up|'sign up'|"sign up")\s*$/m],
  ['zsh', 'trigger fire a', /^\$ trigger fire (a\\\\b|'a\\b'|"a\\\\b")\s*$/m],
])('in a real %s', (shell, line, wanted) => {
  const available = needs(...SHELL_NEEDS[shell]);
  let session: ShellSession;
  beforeAll(async () => {
    if (available) session = await ShellSession.start(shell, box, { cwd: work, install: shell === 'zsh' ? 'source' : undefined });
  }, 60_000);
  afterAll(() => session?.close());

  // Today bash shows `$ trigger fire sign up`, zsh `$ trigger fire ab`.
  it('puts the completed id on the line as one word, the same id', async () => {
    await session.tab(line, wanted);
  });
});

/**
 * A catalog id completed inside double quotes: an interactive bash expands history there, so an id's `!` went in as is and Enter said
 * `bash: !ls: event not found` (or fired an id made of a command in the history; review25). Inside double quotes the `!` is put
 * outside them, escaped (`"hi"\!"ls"`): the id as it is, nothing expanded. Unquoted (printf %q: hi\!ls) and in single quotes it was safe.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { SHELL_NEEDS, ShellSession } from '../helpers/shell.js';

let box: Sandbox;
let work: string;
beforeAll(() => {
  box = sandbox();
  work = path.join(box.home, 'repo');
  fs.mkdirSync(work);
  const ids = ['hi!ls', 'purchase'];
  fs.writeFileSync(path.join(work, 'triggers.json'), JSON.stringify({ triggers: Object.fromEntries(ids.map((id) => [id, {}])) }));
});
afterAll(() => box.cleanup());

describe.runIf(needs(...SHELL_NEEDS.bash))('in a real bash', () => {
  let session: ShellSession;
  beforeAll(async () => {
    session = await ShellSession.start('bash', box, { cwd: work });
  }, 60_000);
  afterAll(() => session?.close());

  it('an id with ! completed inside double quotes goes in as that id: no history expansion', async () => {
    await session.type('trigger fire "hi', 'Tab');
    await session.waitFor(/^\$ trigger fire "hi"\\!"ls"\s*$/m);
    // Run as `echo ...`: what bash makes of the line, word by word, with nothing sent.
    await session.type(' u1', 'C-a');
    await session.type('echo ', 'Enter');
    const screen = await session.waitFor(/^trigger fire hi!ls u1\s*$/m);
    expect(screen).not.toMatch(/event not found/);
  });
});

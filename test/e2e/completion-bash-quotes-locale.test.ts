/**
 * bash completion in two corners (fix26b): a quote opened in the middle of the word being completed (`sign"u`), and the C locale
 * (LC_ALL=C), where bash's printf %q writes a character past ASCII as $'\303\251'. Either way the line must hold the id, or a part of it
 * from its start, as bash reads it: never another id. Each line is run as `printf '<%q>\n' ...` (nothing sent) to see the words bash made.
 * In the C locale, readline takes the common start of two answers byte by byte: of $'caf\303\251' and $'caf\303\250' that was
 * `$'caf\303\25`, a quote left open whose escape, once closed, reads as \25 (0x15), another id. The answer is now escaped with a backslash
 * before each ASCII mark only, its other characters as they are, so the common start of café and cafè is their bytes `caf\303`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { sandbox, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/needs.js';
import { SHELL_NEEDS, ShellSession } from '../helpers/shell.js';

let box: Sandbox;
let work: string;
beforeAll(() => {
  box = sandbox();
  work = path.join(box.home, 'repo');
  fs.mkdirSync(work);
  const ids = ['signup', "it's", 'naïve x', 'café', 'cafè', 'a$b c', '\u2764\ufe0f-liked', 'zw\u200bsp'];
  ids.push('qq\u200bsa', 'qq\u200dsb', 'hh\u200bq1', 'hh\u200bq2'); // two pairs of ids with an invisible character, one start each
  fs.writeFileSync(path.join(work, 'triggers.json'), JSON.stringify({ triggers: Object.fromEntries(ids.map((id) => [id, {}])) }));
});
afterAll(() => box?.cleanup());

/** Types `typed`, Tab, waits for `shown`; then runs the line as printf '<%q>\n' and waits for the words bash read. */
async function completes(session: ShellSession, typed: string, shown: RegExp, read: string): Promise<void> {
  await session.type(typed, 'Tab');
  await session.waitFor(shown);
  await session.type(' u1', 'C-a');
  await session.type("printf '<%q>\\n' ", 'Enter');
  const words = `<trigger>\n<fire>\n${read}\n<u1>`;
  await session.waitFor(new RegExp(`^${words.replace(/[$\\()[\]'|.*+?^{}]/g, '\\$&')}$`, 'm'));
  await session.type('', 'C-l');
  await session.waitFor(/^\$\s*$/);
}

describe.runIf(needs(...SHELL_NEEDS.bash))('in a real bash', () => {
  describe('a quote opened in the middle of the word', () => {
    let session: ShellSession;
    beforeAll(async () => {
      session = await ShellSession.start('bash', box, { cwd: work });
    }, 60_000);
    afterAll(() => session?.close());

    it.each([
      ['trigger fire sign"u', /^\$ trigger fire sign"up"\s*$/m, '<signup>'],
      ["trigger fire si'gn", /^\$ trigger fire si'gnup'\s*$/m, '<signup>'],
      ["trigger fire i't", /^\$ trigger fire i't'\\''s'\s*$/m, "<it\\'s>"],
      ['trigger fire i"t', /^\$ trigger fire i"t's"\s*$/m, "<it\\'s>"],
      ['trigger fire na"ï', /^\$ trigger fire na"ïve x"\s*$/m, '<naïve\\ x>'],
      ['trigger fire a"$', /^\$ trigger fire a"\\\$b c"\s*$/m, '<a\\$b\\ c>'],
    ])('%s<Tab> completes inside that quote, and bash reads the id', async (typed, shown, read) => {
      await completes(session, typed, shown, read);
    });

    it("an id with U+FE0F is completed as $'...' with its bytes: seen on the line, read as the id", async () => {
      // Was: nothing offered, ever (the id shown escaped, \ufe0f, is another id).
      await completes(session, 'trigger fire \u2764', /^\$ trigger fire \$'\u2764\\xef\\xb8\\x8f-liked'\s*$/m, '<\u2764\ufe0f-liked>');
    });
  });

  describe('in the C locale', () => {
    let session: ShellSession;
    beforeAll(async () => {
      session = await ShellSession.start('bash', { ...box, env: { ...box.env, LC_ALL: 'C' } }, { cwd: work });
    }, 60_000);
    afterAll(() => session?.close());

    it('one id past ASCII is put on the line as that id', async () => {
      await completes(session, 'trigger fire na', /^\$ trigger fire na\S+\\ x\s*$/m, "<$'na\\303\\257ve x'>");
    });

    it("two ids that differ past ASCII leave their common bytes, not a $'...' quote cut inside an escape", async () => {
      // Was: `trigger fire $'caf\303\25`, and Enter waited for the quote to close.
      await completes(session, 'trigger fire ca', /^\$ trigger fire caf\S*\s*$/m, "<$'caf\\303'>");
    });

    it("an id with U+200B is completed as $'...' with its bytes, which the C locale reads as the id", async () => {
      await completes(session, 'trigger fire zw', /^\$ trigger fire \$'zw\\xe2\\x80\\x8bsp'\s*$/m, "<$'zw\\342\\200\\213sp'>");
    });

    it('an ASCII mark is still escaped: the id is one word', async () => {
      await completes(session, 'trigger fire a', /^\$ trigger fire a\\\$b\\ c\s*$/m, '<a\\$b\\ c>');
    });
  });

  describe("two ids as $'...' with one start (review26)", () => {
    let session: ShellSession;
    beforeAll(async () => {
      session = await ShellSession.start('bash', box, { cwd: work });
    }, 60_000);
    afterAll(() => session?.close());

    // Their common start leaves the $'...' open: Enter waits for it, and where it ends inside an escape (\x8b, \x8d) the
    // quote closed reads \x8 as another character. Was: `trigger fire $'qq\xe2\x80\x8`, `trigger fire $'hh\xe2\x80\x8bq`.
    it.each([
      ['qq', /\$'qq\\xe2\\x80\\x8dsb'.*\n\$ trigger fire qq\s*$/m],
      ['hh', /\$'hh\\xe2\\x80\\x8bq2'.*\n\$ trigger fire hh\s*$/m],
    ])('typed %s<Tab><Tab>: the line keeps what was typed, and both are listed', async (typed, listed) => {
      await session.type(`trigger fire ${typed}`, 'Tab', 'Tab');
      await session.waitFor(listed);
      await session.type('', 'C-u', 'C-l');
      await session.waitFor(/^\$\s*$/);
    });
  });
});

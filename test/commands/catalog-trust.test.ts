/**
 * A catalog someone else may have written (issue 28, items 1-5 and 15), in-process against a real
 * server on 127.0.0.1: who may steer an event through a triggers.json found above, where a write
 * lands, what of a catalog reaches a terminal or a job log, and the limits a catalog is read within.
 * The cases that give a file to another user need root (chown); the FIFO and /dev/zero cases, which
 * would block the test's own thread without the fix, are in test/e2e/catalog-trust.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { saveCatalog, schemaFor } from '../../src/catalog/write.js';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const asRoot = process.getuid?.() === 0;
/** Another user, as the tests give a file to: nobody. */
const OTHER = 65534;

const MALLORY = { triggers: { purchase: { name: 'Purchase completed', ids: { default: 'mallory-trigger' } } } };
const OWN = { triggers: { purchase: { name: 'Purchase completed' } } };
const json = (data: unknown) => `${JSON.stringify(data, null, 2)}\n`;
const sent = () => server.requests.map((r) => r.url);

/** The folder the commands run in, and a world-writable sticky folder above it, as /tmp/ww in the issue. */
let ww: string;
let victim: string;
let shared: string;
beforeEach(() => {
  ww = path.join(sandbox.home, 'ww');
  victim = path.join(ww, 'victim');
  fs.mkdirSync(victim, { recursive: true });
  fs.chmodSync(ww, 0o1777);
  shared = path.join(ww, 'triggers.json');
});

const trigger = (args: string[], cwd = victim, env = sandbox.env) => runCommand(args, env, cwd);

/** The commands a found catalog steers, each of which must stop on one that is not trusted. */
function everyCommand(): string[][] {
  const rows = path.join(victim, 'rows.csv');
  fs.writeFileSync(rows, 'triggerId,userId,value\npurchase,alice,5\n');
  return [
    ['fire', 'purchase', 'alice', '--value', '5'],
    ['batch', rows, '--failed', path.join(victim, 'failed.csv')],
    ['status'],
    ['triggers', 'list'],
    ['triggers', 'show', 'purchase'],
    ['triggers', 'check'],
    ['triggers', 'add', 'refund', '--name', 'Refund'],
    ['triggers', 'edit', 'purchase', '--name', 'Bought'],
    ['triggers', 'remove', 'purchase'],
    ['triggers', 'import', rows],
  ];
}

describe('a triggers.json found above is used only when no other user could have written it', () => {
  it.skipIf(!asRoot)(
    "another user's catalog in a sticky world-writable folder stops every command with exit 2, naming the file, its owner and the fix; nothing is sent or written",
    async () => {
      fs.writeFileSync(shared, json(MALLORY));
      fs.chownSync(shared, OTHER, OTHER);
      const before = fs.readFileSync(shared, 'utf8');
      for (const args of everyCommand()) {
        const result = await trigger(args);
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr, args.join(' ')).toContain(`catalog ${shared} is not trusted`);
        expect(result.stderr).toContain(`belongs to nobody (uid ${OTHER})`);
        expect(result.stderr).toContain(`--catalog ${shared}`);
        expect(result.stderr).toMatch(/chown \S+ /);
      }
      expect(sent()).toEqual([]);
      expect(fs.readFileSync(shared, 'utf8')).toBe(before);
      expect(fs.readdirSync(victim).sort()).toEqual(['rows.csv']); // no catalog, lock or failed file made
      expect(fs.readdirSync(ww).sort()).toEqual(['triggers.json', 'victim']);
    },
  );

  it.skipIf(!asRoot)('--catalog <file> and TRIGGER_CATALOG trust a file by name: the id it maps to is sent', async () => {
    fs.writeFileSync(shared, json(MALLORY));
    fs.chownSync(shared, OTHER, OTHER);
    expect((await trigger(['fire', 'purchase', 'alice', '--value', '5', '--catalog', shared])).code).toBe(0);
    expect((await trigger(['fire', 'purchase', 'bob'], victim, { ...sandbox.env, TRIGGER_CATALOG: shared })).code).toBe(0);
    expect(sent()).toEqual(['/v1/triggers/mallory-trigger/users/alice/events', '/v1/triggers/mallory-trigger/users/bob/events']);
  });

  it('a file other users can write (group or world) is refused, with chmod go-w as the fix', async () => {
    const own = path.join(victim, 'triggers.json');
    for (const mode of [0o664, 0o646, 0o666]) {
      fs.writeFileSync(own, json(OWN));
      fs.chmodSync(own, mode);
      const result = await trigger(['fire', 'purchase', 'alice']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`other users can write ${own} (mode 0${mode.toString(8)})`);
      expect(result.stderr).toContain(`chmod go-w ${own}`);
    }
    fs.chmodSync(own, 0o644);
    expect((await trigger(['fire', 'purchase', 'alice'])).code).toBe(0);
    expect(sent()).toEqual(['/v1/triggers/purchase/users/alice/events']);
  });

  it("a folder others can write: refused unless it is sticky and the file is the user's own", async () => {
    const open = path.join(victim, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    fs.writeFileSync(path.join(open, 'triggers.json'), json(OWN), { mode: 0o644 });
    const refused = await trigger(['fire', 'purchase', 'alice'], open);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`other users can replace it: its folder ${open} can be written by others (mode 0777)`);

    fs.chmodSync(open, 0o1777); // /tmp's mode: others cannot replace a file they do not own
    expect((await trigger(['fire', 'purchase', 'alice'], open)).code).toBe(0);
    expect(sent()).toEqual(['/v1/triggers/purchase/users/alice/events']);
  });

  it.skipIf(!asRoot)("a link to another user's file, a link another user owns, and a folder another user owns are refused", async () => {
    const theirs = path.join(sandbox.home, 'theirs');
    fs.mkdirSync(theirs);
    const target = path.join(theirs, 'catalog.json');
    fs.writeFileSync(target, json(MALLORY), { mode: 0o644 });
    fs.chownSync(target, OTHER, OTHER);
    const link = path.join(victim, 'triggers.json');
    fs.symlinkSync(target, link);
    const viaLink = await trigger(['fire', 'purchase', 'alice']);
    expect(viaLink.code).toBe(2);
    expect(viaLink.stderr).toContain(`catalog ${link} is not trusted (through the link to ${target}): ${target} belongs to nobody`);

    // The link is theirs, the file it names is ours.
    fs.chownSync(target, 0, 0);
    fs.lchownSync(link, OTHER, OTHER);
    const theirLink = await trigger(['fire', 'purchase', 'alice']);
    expect(theirLink.code).toBe(2);
    expect(theirLink.stderr).toContain(`${link} belongs to nobody`);
    fs.rmSync(link);

    // Our file in their folder: they can replace it.
    fs.chownSync(theirs, OTHER, OTHER);
    const inTheirs = await trigger(['fire', 'purchase', 'alice'], theirs, { ...sandbox.env });
    expect(inTheirs.code).toBe(0); // no triggers.json there: nothing found
    fs.renameSync(target, path.join(theirs, 'triggers.json'));
    const theirFolder = await trigger(['fire', 'purchase', 'alice'], theirs);
    expect(theirFolder.code).toBe(2);
    expect(theirFolder.stderr).toContain(`its folder ${theirs} belongs to nobody (uid ${OTHER}), who can replace it`);
    expect(sent()).toEqual(['/v1/triggers/purchase/users/alice/events']);
  });

  it.skipIf(!asRoot)(
    'in GitHub Actions a catalog inside $GITHUB_WORKSPACE is trusted whoever owns it; one it links to outside is not',
    async () => {
      const workspace = path.join(sandbox.home, 'workspace');
      fs.mkdirSync(workspace);
      fs.chownSync(workspace, OTHER, OTHER); // a container: job runs as root over the runner user's checkout
      const file = path.join(workspace, 'triggers.json');
      fs.writeFileSync(file, json(OWN), { mode: 0o644 });
      fs.chownSync(file, OTHER, OTHER);
      const gha = { ...sandbox.env, GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace };
      expect((await trigger(['fire', 'purchase', 'alice'], workspace, gha)).code).toBe(0);
      expect((await trigger(['fire', 'purchase', 'alice'], workspace, { ...gha, GITHUB_ACTIONS: undefined })).code).toBe(2);

      fs.writeFileSync(shared, json(MALLORY));
      fs.chownSync(shared, OTHER, OTHER);
      fs.rmSync(file);
      fs.symlinkSync(shared, file);
      const outside = await trigger(['fire', 'purchase', 'alice'], workspace, gha);
      expect(outside.code).toBe(2);
      expect(outside.stderr).toContain('is not trusted');
      expect(sent()).toEqual(['/v1/triggers/purchase/users/alice/events']);
    },
  );
});

describe('writes go to the file that was checked, never through a link planted after the check', () => {
  it.skipIf(!asRoot)("a link another user planted in a shared folder is refused: the victim's own catalog is not changed", async () => {
    const privateDir = path.join(sandbox.home, 'private');
    fs.mkdirSync(privateDir, { mode: 0o700 });
    const own = path.join(privateDir, 'triggers.json');
    fs.writeFileSync(own, json(OWN), { mode: 0o644 });
    fs.symlinkSync(own, shared);
    fs.lchownSync(shared, OTHER, OTHER);
    const before = fs.readFileSync(own, 'utf8');
    const result = await trigger(['triggers', 'add', 'refund', '--name', 'Refund']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${shared} belongs to nobody`);
    expect(fs.readFileSync(own, 'utf8')).toBe(before);
  });

  it.skipIf(!asRoot)(
    "a file named by --catalog or TRIGGER_CATALOG is read through another user's link, but never written through it",
    async () => {
      const privateDir = path.join(sandbox.home, 'private');
      fs.mkdirSync(privateDir, { mode: 0o700 });
      const own = path.join(privateDir, 'triggers.json');
      fs.writeFileSync(own, json(OWN), { mode: 0o644 });
      fs.symlinkSync(own, shared);
      fs.lchownSync(shared, OTHER, OTHER);
      const before = fs.readFileSync(own, 'utf8');
      expect((await trigger(['triggers', 'list', '--catalog', shared])).code).toBe(0); // trusted by name
      for (const [args, env] of [
        [['triggers', 'add', 'refund', '--name', 'Refund', '--catalog', shared], sandbox.env],
        [['triggers', 'remove', 'purchase'], { ...sandbox.env, TRIGGER_CATALOG: shared }],
        [['triggers', 'edit', 'purchase', '--name', 'X', '--catalog', shared], sandbox.env],
      ] as const) {
        const result = await trigger([...args], victim, env);
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr).toContain(`not changed: catalog ${shared}: ${shared} is a link that belongs to nobody (uid ${OTHER})`);
      }
      expect(fs.readFileSync(own, 'utf8')).toBe(before);
      expect(fs.lstatSync(shared).isSymbolicLink()).toBe(true);
    },
  );

  it("through the user's own link, the file it names is replaced whole in its folder and named; the link stays", async () => {
    const real = path.join(sandbox.home, 'catalogs', 'shop.json');
    fs.mkdirSync(path.dirname(real));
    fs.writeFileSync(real, json(OWN), { mode: 0o640 });
    const link = path.join(victim, 'triggers.json');
    fs.symlinkSync(path.relative(victim, real), link);
    const inode = fs.statSync(real).ino;
    const result = await trigger(['triggers', 'add', 'refund', '--name', 'Refund']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`added refund to ${real} (the file ${link} links to)`);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(Object.keys((JSON.parse(fs.readFileSync(real, 'utf8')) as typeof OWN).triggers)).toEqual(['purchase', 'refund']);
    expect(fs.statSync(real).ino).not.toBe(inode); // a new file renamed over it
    expect(fs.statSync(real).mode & 0o777).toBe(0o640); // its mode kept
    expect(fs.readdirSync(path.dirname(real))).toEqual(['shop.json']); // no temporary file left

    for (const [args, words] of [
      [['triggers', 'edit', 'refund', '--name', 'Refunded'], 'changed refund in'],
      [['triggers', 'remove', 'refund'], 'removed refund from'],
    ] as const) {
      const changed = await trigger([...args]);
      expect(changed.code).toBe(0);
      expect(changed.stdout).toContain(`${words} ${real} (the file ${link} links to)`);
    }
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('a file swapped for a link (or another file) between the check and the write is left as it is', () => {
    const file = path.join(victim, 'triggers.json');
    fs.writeFileSync(file, json(OWN), { mode: 0o644 });
    const checked = fs.statSync(file);
    const elsewhere = path.join(sandbox.home, 'elsewhere.json');
    fs.writeFileSync(elsewhere, json(MALLORY));
    const theirs = fs.readFileSync(elsewhere, 'utf8');
    fs.rmSync(file);
    fs.symlinkSync(elsewhere, file);
    const changed = { triggers: { ...OWN.triggers, refund: { name: 'Refund' } } };
    expect(() => saveCatalog(file, changed, checked)).toThrow(`not changed: ${file} was replaced by someone else`);
    expect(fs.readFileSync(elsewhere, 'utf8')).toBe(theirs);
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);

    fs.rmSync(file);
    fs.writeFileSync(file, json(OWN)); // the same content, another file (often with the inode just freed)
    expect(() => saveCatalog(file, changed, checked)).toThrow('was replaced by someone else');
    expect(fs.readdirSync(victim)).toEqual(['triggers.json']);
  });
});

describe('everything a catalog holds is data: escaped in every human line and annotation', () => {
  const HOSTILE = {
    triggers: {
      purchase: { name: 'Bought\u001b]0;TITLE\u0007', deprecated: 'old\n::warning::forged', description: 'x\u009b31mred' },
      'pro\u001b[2Jmo': { name: 'n\r::error::forged too', value: 'none' },
      'gnp.exe': { name: 'evil\u202egnp.exe\u200b', deprecated: 'line\u2028::warning::forged 3' },
    },
  };
  // eslint-disable-next-line no-control-regex
  const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u2028\u202e]/;
  /** No control character but the line breaks between lines, and no line a runner takes for a workflow command it did not mean. */
  function clean(text: string, annotations: RegExp | undefined = undefined): void {
    expect(text).not.toMatch(raw);
    for (const line of text.split('\n')) {
      if (line.startsWith('::') && annotations && annotations.test(line)) continue;
      expect(line).not.toMatch(/^::/);
    }
    expect(text).not.toContain('\n::warning::forged');
  }

  beforeEach(() => fs.writeFileSync(path.join(victim, 'triggers.json'), json(HOSTILE), { mode: 0o644 }));

  it('fire and batch warn of a deprecated trigger with its reason escaped (in GitHub Actions too)', async () => {
    const gha = { ...sandbox.env, GITHUB_ACTIONS: 'true' };
    const fire = await trigger(['fire', 'purchase', 'alice'], victim, gha);
    expect(fire.code).toBe(0);
    expect(fire.stderr).toContain('is deprecated: old\\n::warning::forged');
    clean(fire.stderr);
    clean(fire.stdout);

    fs.writeFileSync(path.join(victim, 'rows.csv'), 'triggerId,userId,value\npurchase,a,\npro\u001b[2Jmo,b,3\n');
    const batch = await trigger(['batch', path.join(victim, 'rows.csv'), '--failed', path.join(victim, 'failed.csv')], victim, gha);
    expect(batch.code).toBe(1);
    expect(batch.stderr).toContain('deprecated: old\\n::warning::forged');
    clean(batch.stderr, /^::(error|warning|notice) /);
    clean(batch.stdout);
  });

  it('a value refused by a trigger with control characters in its key is one escaped line', async () => {
    const fire = await trigger(['fire', 'pro\u001b[2Jmo', 'alice', '--value', '3']);
    expect(fire.code).toBe(2);
    expect(fire.stderr).toContain('trigger pro\\x1b[2Jmo takes no value');
    clean(fire.stderr);
    expect(sent()).toEqual([]);
  });

  it('triggers list, show and status print names, reasons, descriptions and keys escaped', async () => {
    for (const args of [['triggers', 'list'], ['triggers', 'show', 'purchase'], ['status']]) {
      const result = await trigger(args);
      expect(result.code, args.join(' ')).toBe(0);
      clean(result.stdout);
      clean(result.stderr);
    }
    const show = await trigger(['triggers', 'show', 'purchase']);
    expect(show.stdout).toContain('Bought\\x1b]0;TITLE\\x07');
    expect(show.stdout).toContain('x\\u009b31mred');
    const list = await trigger(['triggers', 'list']);
    expect(list.stdout).toContain('evil\\u202egnp.exe\\u200b'); // what is read is what the file says
    expect(list.stdout).toContain('line\\u2028::warning::forged 3');

    // status of a catalog that cannot be used: its problem quotes a key with a C1 control (CSI), which JSON leaves raw.
    fs.writeFileSync(path.join(victim, 'triggers.json'), json({ triggers: { 'k\u009b2J': { colour: 'red' } } }), { mode: 0o644 });
    const status = await trigger(['status']);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('unknown field "colour"');
    clean(status.stderr);
    clean(status.stdout);
  });

  it('triggers check: each problem one line and one annotation, with nothing raw in either', async () => {
    fs.writeFileSync(path.join(victim, 'rows.csv'), 'triggerId,userId,value\npurchase,a,\npro\u001b[2Jmo,b,3\npurchse\u0007,c,\n');
    const gha = { ...sandbox.env, GITHUB_ACTIONS: 'true' };
    const result = await trigger(['triggers', 'check', 'rows.csv'], victim, gha);
    expect(result.code).toBe(1);
    const annotations = result.stderr.split('\n').filter((line) => line.startsWith('::'));
    expect(annotations.map((a) => a.slice(0, a.indexOf(' ')))).toEqual(['::warning', '::error', '::error']);
    clean(result.stderr, /^::(error|warning) file=rows\.csv,line=\d,title=trigger::/);
    clean(result.stdout);
    expect(annotations[0]).toContain('old\\n::warning::forged'); // escaped where the reason meets the words
    expect(annotations[1]).toContain('pro\\x1b[2Jmo');
  });
});

describe('bounds outside the range of a double', () => {
  for (const [name, bound] of [
    ['1e999', '1e999'],
    ['a 1 and 400 zeros', `1${'0'.repeat(400)}`],
    ['-1e400', '-1e400'],
  ]) {
    it(`${name}: fire and batch stop with exit 2 naming the file and the problem; triggers check reports it`, async () => {
      const file = path.join(victim, 'triggers.json');
      fs.writeFileSync(file, `{"triggers": {\n  "purchase": {"name": "P", "max": ${bound}}\n}}\n`, { mode: 0o644 });
      const fire = await trigger(['fire', 'purchase', 'alice', '--value', '5']);
      expect(fire.code).toBe(2);
      expect(fire.stderr).toContain(`catalog ${file}:2: trigger "purchase": "max" is outside the range of a number`);
      fs.writeFileSync(path.join(victim, 'rows.csv'), 'triggerId,userId,value\npurchase,a,5\n');
      const batch = await trigger(['batch', path.join(victim, 'rows.csv')]);
      expect(batch.code).toBe(2);
      expect(batch.stderr).toContain('"max" is outside the range of a number');
      const check = await trigger(['triggers', 'check']);
      expect(check.code).toBe(2);
      expect(check.stdout).toContain(`${file}:2: trigger "purchase": "max" is outside the range of a number`);
      expect(sent()).toEqual([]);
    });
  }
});

describe('a catalog is read within limits', () => {
  it('a folder or a file larger than 16 MiB is unusable: exit 2 naming the file', async () => {
    const folder = path.join(victim, 'cat');
    fs.mkdirSync(folder);
    const asFolder = await trigger(['fire', 'purchase', 'alice', '--catalog', folder]);
    expect(asFolder.code).toBe(2);
    expect(asFolder.stderr).toContain(`catalog ${folder} cannot be used: it is a folder, not a regular file`);

    const big = path.join(victim, 'triggers.json');
    fs.writeFileSync(big, '', { mode: 0o644 });
    fs.truncateSync(big, 16 * 1024 * 1024 + 1);
    for (const args of [
      ['fire', 'purchase', 'alice'],
      ['triggers', 'check'],
      ['triggers', 'add', 'x', '--name', 'X'],
    ]) {
      const result = await trigger(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(`catalog ${big} cannot be used: it is larger than 16 MiB (16777217 bytes)`);
    }
    expect(fs.statSync(big).size).toBe(16 * 1024 * 1024 + 1);
    expect(sent()).toEqual([]);
  });

  it('exactly 16 MiB is read', async () => {
    const file = path.join(victim, 'triggers.json');
    const text = json(OWN);
    fs.writeFileSync(file, text + ' '.repeat(16 * 1024 * 1024 - Buffer.byteLength(text)), { mode: 0o644 });
    expect((await trigger(['fire', 'purchase', 'alice'])).code).toBe(0);
  });

  const record = () => path.join(sandbox.env.TRIGGER_CONFIG_DIR!, 'catalog-checked.json');
  /** A catalog that breaks a rule, and a record that says it passed: only a trusted record lets it through. */
  function plantRecord(mode: number): string {
    const file = path.join(victim, 'triggers.json');
    fs.writeFileSync(file, json({ ...OWN, note: 'an unknown field' }), { mode: 0o644 });
    const stat = fs.statSync(file);
    fs.mkdirSync(path.dirname(record()), { recursive: true, mode: 0o700 });
    fs.writeFileSync(record(), JSON.stringify({ [file]: `2:${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` }));
    fs.chmodSync(record(), mode);
    return file;
  }

  it('the record of catalogs that passed is taken only when it is the user’s own and no one else can write it', async () => {
    plantRecord(0o600);
    expect((await trigger(['fire', 'purchase', 'alice'])).code).toBe(0); // the record is what lets it through
    for (const mode of [0o666, 0o620]) {
      plantRecord(mode);
      const result = await trigger(['fire', 'purchase', 'alice']);
      expect(result.code, mode.toString(8)).toBe(2);
      expect(result.stderr).toContain('unknown field "note"');
    }
    expect(sent()).toEqual(['/v1/triggers/purchase/users/alice/events']);
  });

  it.skipIf(!asRoot)('a record another user owns, or a link to one, is not taken', async () => {
    plantRecord(0o600);
    expect((await trigger(['fire', 'purchase', 'alice'])).code).toBe(0); // taken while it is ours
    plantRecord(0o600);
    fs.chownSync(record(), OTHER, OTHER);
    expect((await trigger(['fire', 'purchase', 'alice'])).code).toBe(2);

    const elsewhere = path.join(sandbox.home, 'record.json');
    fs.copyFileSync(record(), elsewhere);
    fs.chownSync(elsewhere, 0, 0);
    fs.chmodSync(elsewhere, 0o600);
    fs.rmSync(record());
    fs.symlinkSync(elsewhere, record());
    expect((await trigger(['fire', 'purchase', 'alice'])).code).toBe(2);
    expect(sent()).toEqual(['/v1/triggers/purchase/users/alice/events']);
  });
});

describe('the $schema a new catalog names resolves from its folder', () => {
  const schemaText = fs.readFileSync(path.join(ROOT, 'triggers.schema.json'), 'utf8');

  it('with no node_modules above (npm install -g, npx), a copy is written beside the catalog and named', async () => {
    const result = await trigger(['triggers', 'add', 'purchase', '--name', 'Purchase completed']);
    expect(result.code).toBe(0);
    const data = JSON.parse(fs.readFileSync(path.join(victim, 'triggers.json'), 'utf8')) as { $schema: string };
    expect(data.$schema).toBe('./triggers.schema.json');
    expect(fs.readFileSync(path.resolve(victim, data.$schema), 'utf8')).toBe(schemaText);
    expect(result.stdout).toContain(`wrote ${path.join(victim, 'triggers.schema.json')}`);
  });

  it('with the package installed in a node_modules above, that copy is named and none is written', async () => {
    const installed = path.join(ww, 'node_modules', 'trigger-cli');
    fs.mkdirSync(installed, { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'triggers.schema.json'), path.join(installed, 'triggers.schema.json'));
    const sub = path.join(victim, 'jobs');
    fs.mkdirSync(sub);
    const added = await trigger(['triggers', 'add', 'purchase', '--name', 'P'], sub);
    expect(added.code).toBe(0);
    const data = JSON.parse(fs.readFileSync(path.join(sub, 'triggers.json'), 'utf8')) as { $schema: string };
    expect(data.$schema).toBe('../../node_modules/trigger-cli/triggers.schema.json');
    expect(fs.existsSync(path.resolve(sub, data.$schema))).toBe(true);
    expect(fs.readdirSync(sub)).toEqual(['triggers.json']);
  });

  // audit28 #14: "$schema" named such a file, and editors checked the catalog against it.
  it.each([
    ['a schema of its own', (file: string) => fs.writeFileSync(file, '{"title": "my own"}')],
    ['a link to /etc/hostname', (file: string) => fs.symlinkSync('/etc/hostname', file)],
    ['a folder', (file: string) => fs.mkdirSync(file)],
  ])('a file of that name that is not a trigger catalog schema (%s) is left alone, and not named', async (_, make) => {
    const mine = path.join(victim, 'triggers.schema.json');
    make(mine);
    const before = fs.lstatSync(mine);
    const text = before.isFile() ? fs.readFileSync(mine, 'utf8') : undefined;
    expect(schemaFor(path.join(victim, 'triggers.json'))).toEqual({ ref: undefined });
    const result = await trigger(['triggers', 'add', 'purchase', '--name', 'P']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(victim, 'triggers.json'), 'utf8'))).toEqual({ triggers: { purchase: { name: 'P' } } });
    expect(result.stdout).not.toContain('wrote');
    expect(fs.lstatSync(mine)).toMatchObject({ ino: before.ino, mode: before.mode });
    if (text !== undefined) expect(fs.readFileSync(mine, 'utf8')).toBe(text);
  });

  it('an older copy of the package schema (the same title) is replaced, and named', async () => {
    const older = path.join(victim, 'triggers.schema.json');
    fs.writeFileSync(older, JSON.stringify({ ...JSON.parse(schemaText), description: 'older' }));
    expect((await trigger(['triggers', 'add', 'purchase', '--name', 'P'])).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(victim, 'triggers.json'), 'utf8')).$schema).toBe('./triggers.schema.json');
    expect(fs.readFileSync(older, 'utf8')).toBe(schemaText);
  });
});

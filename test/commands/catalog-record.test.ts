/**
 * A catalog unchanged since it passed every rule is only parsed on the next `fire` (the check is most
 * of what a large catalog costs), and any change to the file, however quick, is checked again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const VALID = { triggers: { purchase: { name: 'Purchase completed', value: 'required', min: 0 } } };

describe('catalogs remembered as checked', () => {
  it('a settled catalog that passed is remembered by its identity; an edit right after is checked again and refused', async () => {
    const dir = path.join(sandbox.home, 'project');
    fs.mkdirSync(dir);
    const file = path.join(dir, 'triggers.json');
    fs.writeFileSync(file, JSON.stringify(VALID));
    // A catalog changed within the last 2 s is checked every time: the command's clock (Date.now,
    // against the file's change time) is 2.1 s on, rather than this test sleeping through them.
    const realNow = Date.now.bind(Date);
    const later = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 2100);
    const first = await runCommand(['fire', 'purchase', 'alice', '--value', '1'], sandbox.env, dir).finally(() => later.mockRestore());
    expect(first.code).toBe(0);
    const record = path.join(sandbox.env.TRIGGER_CONFIG_DIR!, 'catalog-checked.json');
    expect(Object.keys(JSON.parse(fs.readFileSync(record, 'utf8')) as object)).toEqual([file]);
    expect(fs.statSync(record).mode & 0o777).toBe(0o600);

    // The same size, a broken rule: the identity moved (its change time), so it is checked and refused.
    fs.writeFileSync(file, JSON.stringify(VALID).replace('"required"', '"requird"'));
    const second = await runCommand(['fire', 'purchase', 'alice', '--value', '1'], sandbox.env, dir);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/catalog .*triggers\.json/);
    expect(server.requests).toHaveLength(1);
  });

  it('a catalog whose identity is remembered is not checked again (the record is what a passing check writes)', async () => {
    const dir = path.join(sandbox.home, 'project');
    fs.mkdirSync(dir);
    const file = path.join(dir, 'triggers.json');
    // An unknown top-level field: the check refuses it, so only a remembered identity lets it through.
    fs.writeFileSync(file, JSON.stringify({ ...VALID, note: 'x' }));
    const refused = await runCommand(['fire', 'purchase', 'alice', '--value', '1'], sandbox.env, dir);
    expect(refused.code).toBe(2);
    const stat = fs.statSync(file);
    fs.mkdirSync(sandbox.env.TRIGGER_CONFIG_DIR!, { recursive: true });
    fs.writeFileSync(
      path.join(sandbox.env.TRIGGER_CONFIG_DIR!, 'catalog-checked.json'),
      JSON.stringify({ [file]: `2:${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` }),
    );
    const remembered = await runCommand(['fire', 'purchase', 'alice', '--value', '1'], sandbox.env, dir);
    expect(remembered.code).toBe(0);
    // `triggers check` never trusts the record: it checks every rule, every time.
    expect((await runCommand(['triggers', 'check'], sandbox.env, dir)).code).not.toBe(0);
  });
});

/**
 * `triggers add` and `triggers edit` refuse what would make a bad entry, before or instead of any
 * write: exit 2, one error line, the catalog as it was (or none made).
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';

let sandbox: CommandSandbox;
useCommandServer((_s, b) => (sandbox = b));

let dir: string;
let file: string;
beforeEach(() => {
  dir = path.join(sandbox.home, 'fields');
  fs.mkdirSync(dir, { recursive: true });
  file = path.join(dir, 'triggers.json');
});

const trigger = (args: string[]) => runCommand(['triggers', ...args], sandbox.env, dir);

describe('triggers add and edit refuse a bad entry', () => {
  it.each([
    [['add', 'purchase', '--name', ''], /"name" must not be empty/],
    [['add', 'purchase', '--name', 'P', '--deprecated', ' '], /"deprecated" must not be empty/],
    [['add', 'purchase'], /^error: add needs --name <text>/],
    [['add', ' ', '--name', 'P'], /^error: a trigger id must not be empty/],
    [
      ['add', 'purchase', '--name', 'P', '--min', '0.10000000000000000001'],
      /--min 0\.10000000000000000001 has more digits than a catalog bound keeps/,
    ],
  ])('with no catalog yet: %j, and none is made', async (args, message) => {
    const result = await trigger(args);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(fs.existsSync(file)).toBe(false);
  });

  it.each([
    [['edit', 'purchase', '--name', ''], /"name" must not be empty/],
    [['edit', 'purchase', '--deprecated', ''], /"deprecated" must not be empty/],
    [['edit', 'purchase'], /^error: nothing to change for purchase/],
    [['edit', 'purchase', '--id', 'p-test'], /^error: --id needs --profile <profile>/],
    [['edit', 'purchase', '--profile', 'staging'], /^error: --profile in triggers edit names the profile for --id <id>/],
    [['edit', 'purchase', '--profile', 'staging', '--id', ''], /^error: a trigger id must not be empty/],
  ])('in a catalog: %j, and the file is left as it was', async (args, message) => {
    const before = `${JSON.stringify({ triggers: { purchase: { name: 'Purchase' } } }, null, 2)}\n`;
    fs.writeFileSync(file, before);
    const result = await trigger(args);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });
});

/**
 * The tests' global setup builds dist/ when it is missing or older than its sources (test/global-setup.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staleReason } from '../global-setup.js';

let root: string;
const write = (file: string, secondsAgo: number) => {
  const full = path.join(root, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, '');
  const when = new Date(Date.now() - secondsAgo * 1000);
  fs.utimesSync(full, when, when);
};
const OUTPUTS = ['dist/cli.cjs', 'dist/index.js', 'dist/startup.cjs', 'dist/index.d.ts'];

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-stale-'));
  write('src/cli.ts', 100);
  write('src/commands/fire.ts', 100);
  write('package.json', 100);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('the build before the end-to-end tests', () => {
  it('builds a fresh clone, which has no dist/', () => {
    expect(staleReason(root)).toBe('dist/cli.cjs is missing');
  });

  it('does nothing when dist/ is newer than every source', () => {
    for (const file of OUTPUTS) write(file, 10);
    expect(staleReason(root)).toBeUndefined();
  });

  it('builds again when a source, however deep, changed after the build', () => {
    for (const file of OUTPUTS) write(file, 10);
    write('src/commands/fire.ts', 1);
    expect(staleReason(root)).toBe(`${path.join('src', 'commands', 'fire.ts')} is newer than ${path.join('dist', 'cli.cjs')}`);
  });

  it('compares with the oldest output, so a half-finished build is built again', () => {
    for (const file of OUTPUTS) write(file, 10);
    write('dist/index.js', 200);
    expect(staleReason(root)).toMatch(/is newer than dist\/index\.js$/);
  });
});

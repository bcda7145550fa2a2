/**
 * writeFileAtomic: the file replaced whole, its mode kept, a symbolic link followed, nothing left
 * behind when the write fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/atomic-write.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atomic-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('creates a file with the mode asked for, and keeps the mode of one that exists', () => {
    const file = path.join(dir, 'a.json');
    writeFileAtomic(file, 'one', { mode: 0o600 });
    expect(fs.readFileSync(file, 'utf8')).toBe('one');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    fs.chmodSync(file, 0o640);
    writeFileAtomic(file, 'two');
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    writeFileAtomic(file, 'three', { mode: 0o600, forceMode: true });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(['a.json']);
  });

  it('writes through a symbolic link, which stays a link', () => {
    const real = path.join(dir, 'shared', 'triggers.json');
    fs.mkdirSync(path.dirname(real));
    fs.writeFileSync(real, 'old');
    const link = path.join(dir, 'triggers.json');
    fs.symlinkSync(real, link);
    writeFileAtomic(link, 'new');
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(real, 'utf8')).toBe('new');
  });

  it('a folder that does not exist: the error as it came, and no temporary file', () => {
    expect(() => writeFileAtomic(path.join(dir, 'missing', 'a.json'), 'x')).toThrowError(expect.objectContaining({ code: 'ENOENT' }));
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a folder in the way: the error as it came, the folder untouched, no temporary file', () => {
    fs.mkdirSync(path.join(dir, 'a.json'));
    expect(() => writeFileAtomic(path.join(dir, 'a.json'), 'x')).toThrow();
    expect(fs.statSync(path.join(dir, 'a.json')).isDirectory()).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['a.json']);
  });
});

/**
 * `require('trigger-cli')` (audit28 #3): the library is ES modules only, which `require()` loads only on a Node with require(esm)
 * unflagged, 20.19+ and 22.12+; engines must leave out the rest (22.0-22.11), which `--no-experimental-require-module` stands for here.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

// npm's own range rules (semver is in node_modules for the dev tools; no dependency of the package).
const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean };

describe('require() of the package', () => {
  it('works where Node has require(esm), and engines admits no Node without it', () => {
    const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    const load = (flags: string[]) =>
      spawnSync(process.execPath, [...flags, '-e', `console.log(typeof require(${JSON.stringify(ROOT)}).fireEvent)`], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
      });
    expect(load([]).stdout).toBe('function\n');
    expect(load(['--no-experimental-require-module']).stderr).toContain('ERR_REQUIRE_ESM');
    const versions = ['20.18.3', '20.19.0', '21.7.3', '22.0.0', '22.11.0', '22.12.0', '23.0.0', '24.0.0'];
    expect(versions.filter((v) => semver.satisfies(v, engines))).toEqual(['20.19.0', '22.12.0', '23.0.0', '24.0.0']);
  });
});

/**
 * The build's dependency patches (scripts/build-patches.mjs): each matches the installed dependency
 * exactly once, and a patch that no longer matches is an error, never a silent skip.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript
import { applyPatch, patches } from '../../scripts/build-patches.mjs';
import { ROOT } from '../helpers/cli.js';

interface Patch {
  file: string;
  why: string;
  whole?: string;
  mustContain?: string;
  edits?: [string, string][];
  noLeft?: RegExp;
}
const manifest = patches as Patch[];
const apply = applyPatch as (patch: Patch, source: string) => { text?: string; error?: string };

describe('dependency patches', () => {
  it.each(manifest.map((p) => [p.file, p] as const))('%s matches the installed dependency and changes it', (file, patch) => {
    const source = fs.readFileSync(path.join(ROOT, 'node_modules', file), 'utf8');
    const result = apply(patch, source);
    expect(result.error).toBeUndefined();
    expect(result.text).not.toBe(source);
    expect(patch.why.length).toBeGreaterThan(10);
  });

  it.each([
    ['the code is gone', 'const x = 1\n', /^no /],
    [
      'the code is there twice',
      "const childProcess = require('node:child_process');\nconst childProcess = require('node:child_process');\n",
      /^more than one/,
    ],
  ])('reports a patch that no longer matches: %s', (_, source, error) => {
    const patch = manifest.find((p) => p.file === 'commander/lib/command.js')!;
    expect(apply(patch, source).error).toMatch(error);
  });

  it('reports another use of a module a patch makes lazy', () => {
    const patch = manifest.find((p) => p.file === 'undici/lib/core/util.js')!;
    const source = "const { IncomingMessage } = require('node:http')\nx.constructor === IncomingMessage)\nhttp.STATUS_CODES\n";
    expect(apply(patch, source).error).toMatch(/another use/);
  });

  it('reports a whole-file patch whose file changed', () => {
    const patch = manifest.find((p) => p.whole !== undefined)!;
    expect(apply(patch, 'module.exports = {}').error).toMatch(/^no /);
  });
});

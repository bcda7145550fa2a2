/**
 * The package as npm delivers it: packed, installed globally into a temporary prefix and into a
 * temporary project, then run from another folder and loaded from both module systems. Installing
 * fetches the dependencies from the npm registry (or npm's cache).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import type * as Index from '../../src/index.js';

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };

let work: string;
let tarball: string;
let files: string[];
let box: Sandbox;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-pack-'));
  // dist/ is built by `npm test` (pretest); packing it as it is is what prepack would build.
  const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  tarball = path.join(work, packed[0]!.filename);
  files = packed[0]!.files.map((f) => f.path);
  box = sandbox();
}, 120_000);
afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
  box.cleanup();
});

describe('the npm package', () => {
  it('holds the LICENSE, the built code and its types, and no sources or tests', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'bin/trigger.cjs',
        'dist/cli.cjs',
        'dist/index.js',
        'dist/index.d.ts',
      ]),
    );
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/') || f.endsWith('.map'))).toEqual([]);
    // The version is built in, not read from package.json at run time (which breaks bundles).
    const code = files.filter((f) => f.endsWith('.js') || f.endsWith('.cjs')).map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8'));
    // (The catalog's schema is found beside the package's package.json, by its name: that reads no version.)
    const readsVersion = /require\(\s*["'][^"']*package\.json["']\s*\)|package\.json["'`]\)[^;\n]*\)\s*(?:as [^;\n]*)?\.version/;
    expect(code.filter((text) => readsVersion.test(text))).toEqual([]);
    expect(code.some((text) => text.includes(`VERSION = "${pkg.version}"`))).toBe(true);
  });

  it('installs globally and runs from any folder: --version, and a fire against the emulator', async () => {
    const prefix = path.join(work, 'global');
    npm(['install', '--global', '--prefix', prefix, tarball], work);
    const trigger = path.join(prefix, 'bin', 'trigger');
    const elsewhere = fs.mkdtempSync(path.join(work, 'elsewhere-'));
    const env = { ...box.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` };
    expect(execFileSync(trigger, ['--version'], { cwd: elsewhere, env, encoding: 'utf8' }).trim()).toBe(pkg.version);

    const lib = (await import(path.join(ROOT, 'dist', 'index.js'))) as typeof Index;
    const emulator = await lib.startEmulator({ port: 0, key: TEST_KEY });
    try {
      const result = await run(['fire', 'deploy', 'alice', '--value', '1.5', '--json'], {
        command: trigger,
        cwd: elsewhere,
        env: { ...env, TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: emulator.url },
      });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, status: 200, userId: 'alice', value: 1.5 });
      expect(emulator.events.map((e) => [e.triggerId, e.userId, e.valueText])).toEqual([['deploy', 'alice', '1.5']]);
    } finally {
      await emulator.close();
    }
  }, 120_000);

  it('loads from ES modules and from CommonJS (require) in a project that depends on it', () => {
    const project = path.join(work, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), '{"name":"consumer","version":"1.0.0","private":true}');
    npm(['install', tarball], project);
    const check = 'typeof t.fireEvent + " " + typeof t.TriggerClient + " " + t.VERSION';
    const required = execFileSync(process.execPath, ['-e', `const t = require('trigger-cli'); console.log(${check})`], {
      cwd: project,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const imported = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', `const t = await import('trigger-cli'); console.log(${check})`],
      { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(required.trim()).toBe(`function function ${pkg.version}`);
    expect(imported.trim()).toBe(`function function ${pkg.version}`);
  }, 120_000);
});

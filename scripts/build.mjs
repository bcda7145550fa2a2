/**
 * npm run build: dist/ as bundles. The CLI is dist/cli.cjs, one CommonJS file (see below) that
 * bin/trigger.cjs runs; the library (`import 'trigger-cli'`) is dist/index.js, an ES module bundle
 * with its chunks. Either way Node reads and compiles one file instead of dozens of modules. What the
 * bin runs first is dist/startup.cjs (src/startup.ts). tsc writes the type declarations. The
 * dependency patches are a manifest of their own, scripts/build-patches.mjs.
 *
 * Left out of the bundle: @napi-rs/keyring (a native module, loaded only for a key in the keychain).
 */
import { Buffer } from 'node:buffer';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { dependencyPatches } from './build-patches.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const patches = dependencyPatches();
execFileSync(process.execPath, [path.join(root, 'scripts', 'write-version.mjs')], { stdio: 'inherit' });
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });

/** What the three bundles share. */
const common = { absWorkingDir: root, bundle: true, platform: 'node', target: 'node20.19', logLevel: 'warning' };

await build({
  ...common,
  entryPoints: { index: 'src/index.ts' },
  outdir: 'dist',
  splitting: true,
  format: 'esm',
  external: ['@napi-rs/keyring'],
  chunkNames: 'chunks/[name]-[hash]',
  // The CommonJS dependencies (commander, undici) require Node's built-in modules.
  banner: { js: "import { createRequire as __triggerRequire } from 'node:module';\nconst require = __triggerRequire(import.meta.url);" },
  legalComments: 'eof',
  plugins: [patches.plugin],
});

// What bin/trigger.cjs runs: the CLI as one CommonJS file, which it keeps compiled in a V8 code cache
// (vm.Script cachedData). The commands are still run lazily: esbuild wraps each dynamically imported
// module in a function called on import.
await build({
  ...common,
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/cli.cjs',
  format: 'cjs',
  // hyparquet (150 KB) is for Parquet input only: loaded from node_modules when a batch reads one.
  external: ['@napi-rs/keyring', 'hyparquet'],
  // The licences go beside it (cli.cjs.LEGAL.txt): one non-ASCII letter in them made V8 hold all
  // 870 KB of source as two-byte text.
  legalComments: 'linked',
  // undici's index (600 KB, only for a proxy) is loaded from node_modules when needed, rather than
  // read with every start; its pool, which every request uses, is in the bundle.
  // Its imports of packages left out (the keychain, undici's index) become require(): V8 loses the
  // import() callback of a script compiled from cache data (Node 20), and require needs none.
  supported: { 'dynamic-import': false },
  plugins: [
    patches.plugin,
    { name: 'undici-index', setup: (b) => b.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', external: true })) },
  ],
});

patches.check();
// src/startup.ts reads it as latin1, which is exact for ASCII only (esbuild escapes the rest).
const cjsText = fs.readFileSync(path.join(root, 'dist', 'cli.cjs'), 'utf8');
if (Buffer.byteLength(cjsText) !== cjsText.length) throw new Error('dist/cli.cjs is not ASCII: see scripts/build.mjs');
if (/\bimport\("/.test(cjsText)) throw new Error('dist/cli.cjs has an import() left: see scripts/build.mjs');

// What bin/trigger.cjs runs first: src/startup.ts (the inspector guard, --version, the code cache).
await build({ ...common, entryPoints: ['src/startup.ts'], outfile: 'dist/startup.cjs', format: 'cjs' });

// The type declarations, and beside them the Action's committed bundle (action/dist), so that a
// developer never meets a stale one in CI, which checks it with npm run check:action.
await Promise.all([
  run([path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json'), '--emitDeclarationOnly']),
  run([path.join(root, 'scripts', 'build-action.mjs')]),
]);

async function run(args) {
  // once() rejects on an 'error' (node could not start) before 'close'.
  const [code] = await once(spawn(process.execPath, args, { stdio: 'inherit' }), 'close');
  if (code !== 0) throw new Error(`${path.basename(args[0])} failed (exit ${code})`);
}

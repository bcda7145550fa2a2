/**
 * npm run build: dist/ as a bundle. esbuild puts our code and the dependencies on the path of every
 * command (commander, undici's pool, chalk) into one file per entry, so Node reads and compiles one
 * file instead of dozens of modules; each command, and what only it needs (ora, undici's proxy
 * agent), stays a chunk loaded when that command runs. tsc writes the type declarations.
 *
 * Left out of the bundle: @napi-rs/keyring (a native module, loaded only for a key in the keychain)
 * and conf (only `trigger config` writes load it).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(process.execPath, [path.join(root, 'scripts', 'write-version.mjs')], { stdio: 'inherit' });
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli.ts', index: 'src/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: ['@napi-rs/keyring', 'conf'],
  chunkNames: 'chunks/[name]-[hash]',
  // The CommonJS dependencies (commander, undici) require Node's built-in modules.
  banner: { js: "import { createRequire as __triggerRequire } from 'node:module';\nconst require = __triggerRequire(import.meta.url);" },
  legalComments: 'eof',
  logLevel: 'warning',
});

// bin/trigger.cjs answers --version from this, without Node's ES module loader.
await build({
  absWorkingDir: root,
  entryPoints: ['src/version.ts'],
  outfile: 'dist/version.cjs',
  format: 'cjs',
  platform: 'node',
  logLevel: 'warning',
});

execFileSync(
  process.execPath,
  [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json'), '--emitDeclarationOnly'],
  { stdio: 'inherit' },
);

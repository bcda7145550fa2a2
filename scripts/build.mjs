/**
 * npm run build: dist/ as bundles. The CLI is dist/cli.cjs, one CommonJS file (see below) that
 * bin/trigger.cjs runs; the library (`import 'trigger-cli'`) is dist/index.js, an ES module bundle
 * with its chunks. Either way Node reads and compiles one file instead of dozens of modules. tsc
 * writes the type declarations.
 *
 * Left out of the bundle: @napi-rs/keyring (a native module, loaded only for a key in the keychain).
 */
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Two dependency modules that every `trigger fire` would load for nothing, trimmed at build time (found
 * with `node --cpu-prof` and process.moduleLoadList). The build fails if a dependency update changes
 * the code replaced, so a trim is never silently lost or misapplied.
 *
 * - undici's HTTP/2 client: the pool requires it at load, and with it node:http2, node:tls, and
 *   undici's fetch body, WebIDL and FormData modules (with node:crypto, zlib, perf_hooks and
 *   worker_threads). trigger never allows HTTP/2 (`allowH2` is off, so ALPN never picks it); the stub
 *   throws should that ever change.
 * - commander's node:child_process, for executable subcommands, which trigger has none of: required
 *   when first used instead (it brings net, dgram and more).
 * - node:http in undici (1-1.5 ms with _http_server, _http_client and the rest): its pool needs only
 *   http.maxHeaderSize (trigger's client passes maxHeaderSize itself) and IncomingMessage, to
 *   destroy a stream body (trigger's bodies are strings); both are now required when used.
 *
 * Each edit is [code as it is, code as it becomes]; every one must be found.
 */
const HTTP_TWO_STUB =
  "'use strict'\nmodule.exports = function connectH2 () {\n  throw new Error('trigger is built without HTTP/2 (allowH2 must stay off)')\n}\n";
const trims = [
  {
    file: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/,
    whole: HTTP_TWO_STUB,
    mustContain: 'function connectH2 (',
  },
  {
    file: /[\\/]commander[\\/]lib[\\/]command\.js$/,
    edits: [
      [
        "const childProcess = require('node:child_process');",
        "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      ],
    ],
  },
  {
    file: /[\\/]undici[\\/]lib[\\/]core[\\/]util\.js$/,
    edits: [
      ["const { IncomingMessage } = require('node:http')\n", ''],
      ['constructor === IncomingMessage)', "constructor === require('node:http').IncomingMessage)"],
    ],
  },
  {
    file: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    edits: [
      ["const http = require('node:http')\n", ''],
      [
        `const getDefaultNodeMaxHeaderSize = http &&
  http.maxHeaderSize &&
  Number.isInteger(http.maxHeaderSize) &&
  http.maxHeaderSize > 0
  ? () => http.maxHeaderSize
  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }`,
        "const getDefaultNodeMaxHeaderSize = () => require('node:http').maxHeaderSize",
      ],
    ],
  },
];

/** The trimmed source, or undefined when the code to trim is not there (a dependency changed). */
function applyTrim(trim, source) {
  if (trim.whole) return source.includes(trim.mustContain) ? trim.whole : undefined;
  let result = source;
  for (const [from, to] of trim.edits) {
    if (!result.includes(from)) return undefined;
    result = result.replace(from, to);
  }
  if (trim.edits.some(([from]) => from.includes('node:http')) && /\bhttp\./.test(result)) return undefined; // another use of http
  return result;
}

const trimPlugin = {
  name: 'trim',
  setup(b) {
    for (const trim of trims) {
      b.onLoad({ filter: trim.file }, async (args) => {
        const contents = applyTrim(trim, await fs.promises.readFile(args.path, 'utf8'));
        if (contents === undefined) throw new Error(`${args.path} changed: update the trim in scripts/build.mjs`);
        return { contents, loader: 'js' };
      });
    }
  },
};
execFileSync(process.execPath, [path.join(root, 'scripts', 'write-version.mjs')], { stdio: 'inherit' });
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: { index: 'src/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: ['@napi-rs/keyring'],
  chunkNames: 'chunks/[name]-[hash]',
  // The CommonJS dependencies (commander, undici) require Node's built-in modules.
  banner: { js: "import { createRequire as __triggerRequire } from 'node:module';\nconst require = __triggerRequire(import.meta.url);" },
  legalComments: 'eof',
  logLevel: 'warning',
  plugins: [trimPlugin],
});

// What bin/trigger.cjs runs: the CLI as one CommonJS file, which it keeps compiled in a V8 code cache
// (vm.Script cachedData). The commands are still run lazily: esbuild wraps each dynamically imported
// module in a function called on import.
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/cli.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  // hyparquet (150 KB) is for Parquet input only: loaded from node_modules when a batch reads one.
  external: ['@napi-rs/keyring', 'hyparquet'],
  // The licences go beside it (cli.cjs.LEGAL.txt): one non-ASCII letter in them made V8 hold all
  // 870 KB of source as two-byte text.
  legalComments: 'linked',
  logLevel: 'warning',
  // undici's index (600 KB, only for a proxy) is loaded from node_modules when needed, rather than
  // read with every start; its pool, which every request uses, is in the bundle.
  plugins: [
    trimPlugin,
    { name: 'undici-index', setup: (b) => b.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', external: true })) },
  ],
});

// bin/trigger.cjs compiles cli.cjs with vm.Script, and on Node 20 V8 loses the import() callback of
// a script compiled from cache data ("A dynamic import callback was not specified"). So
// the packages left out of the bundle are imported through a function the bin provides from its own
// module, and through import() when Node loads the file itself.
const cjs = path.join(root, 'dist', 'cli.cjs');
let cjsText = fs.readFileSync(cjs, 'utf8');
for (const id of ['@napi-rs/keyring', 'undici', 'hyparquet']) {
  const call = `import(${JSON.stringify(id)})`;
  if (!cjsText.includes(call)) throw new Error(`dist/cli.cjs has no ${call}: update scripts/build.mjs`);
  cjsText = cjsText.replaceAll(call, `__triggerImport(${JSON.stringify(id)})`);
}
if (/\bimport\("/.test(cjsText)) throw new Error('dist/cli.cjs has an import() left: see scripts/build.mjs');
// bin/trigger.cjs reads it as latin1, which is exact for ASCII only (esbuild escapes the rest).
if (Buffer.byteLength(cjsText) !== cjsText.length) throw new Error('dist/cli.cjs is not ASCII: see scripts/build.mjs');
const strict = '"use strict";\n';
if (!cjsText.startsWith(strict)) throw new Error('dist/cli.cjs does not start with "use strict"');
const importer = "var __triggerImport = globalThis[Symbol.for('trigger.import')] ?? ((id) => import(id));\n";
fs.writeFileSync(cjs, strict + importer + cjsText.slice(strict.length));

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

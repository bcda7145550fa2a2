/**
 * npm run build:action: the GitHub Action's bundle, action/dist/index.cjs, from action/index.ts and
 * the CLI's sources. It is committed, as JavaScript actions are, because the runner runs it from the
 * checkout with nothing installed: every dependency is in it, except the two that an Action never
 * needs (conf writes settings files, @napi-rs/keyring reads a desktop keychain), which become a stub
 * that says so.
 *
 * npm run check:action (in CI) builds it in memory and fails when the committed files differ, so a
 * change to the CLI cannot ship with a stale Action. `--check <dir>` checks another folder's copy.
 */
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const checkAt = process.argv.indexOf('--check');
const check = checkAt !== -1;
const outdir = check && process.argv[checkAt + 1] ? path.resolve(process.argv[checkAt + 1]) : path.join(root, 'action', 'dist');

const STUB = `module.exports = new Proxy({}, { get(_, name) {
  if (name === '__esModule' || name === 'then') return undefined;
  throw new Error('the GitHub Action has no settings store or keychain: give the key with the input api-key');
} });\n`;
const notInAction = {
  name: 'not-in-action',
  setup(b) {
    b.onResolve({ filter: /^(conf|@napi-rs\/keyring)$/ }, (args) => ({ path: args.path, namespace: 'not-in-action' }));
    b.onLoad({ filter: /.*/, namespace: 'not-in-action' }, () => ({ contents: STUB, loader: 'js' }));
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: ['action/index.ts'],
  outfile: path.join(outdir, 'index.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node24',
  // The licences go whole into licenses.txt (below), as the packages' licences ask.
  legalComments: 'none',
  logLevel: 'warning',
  write: false,
  metafile: true,
  plugins: [notInAction],
});

/** Each bundled package's licence text, from its own folder in node_modules. */
function licenses(metafile) {
  const packages = new Set(Object.keys(metafile.inputs).map((input) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1]));
  packages.delete(undefined);
  const parts = [];
  for (const dir of [...packages].sort()) {
    const { name, version, license } = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
    const file = fs.readdirSync(path.join(root, dir)).find((f) => /^licen[cs]e/i.test(f));
    if (!file) throw new Error(`${name} has no licence file: add its licence to scripts/build-action.mjs`);
    parts.push(`${name}@${version} (${license})\n\n${fs.readFileSync(path.join(root, dir, file), 'utf8').trim()}\n`);
  }
  return `The Action's bundle (index.cjs) contains these packages:\n\n${parts.join('\n---\n\n')}`;
}
const outputs = [
  ...result.outputFiles.map((f) => ({ path: f.path, contents: Buffer.from(f.contents) })),
  { path: path.join(outdir, 'licenses.txt'), contents: Buffer.from(licenses(result.metafile)) },
];

const stale = [];
for (const file of outputs) {
  if (!check) {
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    fs.writeFileSync(file.path, file.contents);
    continue;
  }
  if (!fs.existsSync(file.path) || !fs.readFileSync(file.path).equals(file.contents)) stale.push(path.relative(root, file.path));
}
if (stale.length > 0) {
  console.error(
    `error: the Action's bundle does not match its sources (${stale.join(', ')}) — run: npm run build:action, and commit action/dist/`,
  );
  process.exitCode = 1;
}

/**
 * Before the end-to-end tests (which run the built bin/trigger.cjs and dist/): builds dist/ when it
 * is missing or older than what it is built from, so `npx vitest run` on a fresh clone after `npm ci`
 * passes, and a stale dist/ never silently tests old code.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What dist/ is built from (folders are walked). */
const SOURCES = [
  'src',
  'scripts/build.mjs',
  'scripts/write-version.mjs',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];
/** What the build writes, which the tests use. */
const OUTPUTS = ['dist/cli.cjs', 'dist/index.js', 'dist/startup.cjs', 'dist/index.d.ts'];

function newest(file: string): { file: string; mtimeMs: number } | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  if (!stat.isDirectory()) return { file, mtimeMs: stat.mtimeMs };
  let best: { file: string; mtimeMs: number } | undefined;
  for (const name of fs.readdirSync(file)) {
    const found = newest(path.join(file, name));
    if (found && (!best || found.mtimeMs > best.mtimeMs)) best = found;
  }
  return best;
}

/** Why dist/ under `root` must be built again, or undefined when it is up to date. */
export function staleReason(root: string = ROOT): string | undefined {
  let oldest: { file: string; mtimeMs: number } | undefined;
  for (const output of OUTPUTS) {
    const file = path.join(root, output);
    if (!fs.existsSync(file)) return `${output} is missing`;
    const mtimeMs = fs.statSync(file).mtimeMs;
    if (!oldest || mtimeMs < oldest.mtimeMs) oldest = { file, mtimeMs };
  }
  for (const source of SOURCES) {
    const found = newest(path.join(root, source));
    if (found && found.mtimeMs > oldest!.mtimeMs)
      return `${path.relative(root, found.file)} is newer than ${path.relative(root, oldest!.file)}`;
  }
  return undefined;
}

export default function setup(): void {
  const reason = staleReason();
  if (!reason) return;
  process.stderr.write(`building dist/ for the end-to-end tests (${reason})\n`);
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
}

/** Changing the catalog: every other trigger and their order kept, the file replaced whole. */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../atomic-write.js';
import { errnoWords } from '../errno.js';
import { ConfigError } from '../errors.js';
import { tryOr } from '../try-or.js';
import { printable } from '../output/render.js';
import { sameFile } from './file.js';
import { catalogProblems, type CatalogData } from './load.js';

export const SCHEMA_FILE_NAME = 'triggers.schema.json';
const PACKAGE_NAME = 'trigger-cli';

/**
 * What a new catalog names in "$schema", so editors complete and check it. It must resolve from the catalog's folder however trigger was
 * installed: the package's copy where a node_modules in that folder or above holds it (a local install), else a copy written beside the
 * catalog (`npm install -g`, npx: nothing in the project reaches the package). `copyFrom` is the package's file to copy; no `$schema` at
 * all when the package's own cannot be found either, rather than one that does not resolve.
 */
export type SchemaPlan = { ref: string | undefined; copyFrom?: string | undefined; copyTo?: string | undefined };

const isFile = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true;

/** A path as "$schema" writes it: relative, with forward slashes, "./" before one that does not climb. */
function reference(from: string, to: string): string {
  const relative = path.relative(from, to).split(path.sep).join('/');
  return relative.startsWith('../') ? relative : `./${relative}`;
}

/** The package's own triggers.schema.json: beside the package.json named trigger-cli above this module. */
export function packageSchema(): string | undefined {
  // Every bundle that writes a catalog is CommonJS (dist/cli.cjs, the Action's), as are the tests: a level or two below the package's root.
  if (typeof __filename !== 'string') return undefined;
  for (let dir = path.dirname(__filename), up = 0; up < 4; up++, dir = path.dirname(dir)) {
    const manifest = tryOr(() => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown } | null);
    if (manifest?.name === PACKAGE_NAME && tryOr(() => isFile(path.join(dir, SCHEMA_FILE_NAME)))) return path.join(dir, SCHEMA_FILE_NAME);
  }
  return undefined;
}

/** Whether `file` is there and is no trigger catalog schema as `own` is (another title, no JSON, unreadable, a link to such). */
export function someoneElses(file: string, own: string): boolean {
  const title = (f: string) => (JSON.parse(fs.readFileSync(f, 'utf8')) as { title?: unknown }).title;
  return tryOr(() => fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined && title(file) !== title(own), true);
}

/** Where the "$schema" of a new catalog at `file` points, and whether a copy must be written for it. */
export function schemaFor(file: string, ownSchema: string | undefined = packageSchema()): SchemaPlan {
  const folder = path.dirname(path.resolve(file));
  // This folder and each above it, up to the root (whose dirname is itself).
  for (let dir = folder, below = ''; dir !== below; below = dir, dir = path.dirname(dir)) {
    const installed = path.join(dir, 'node_modules', PACKAGE_NAME, SCHEMA_FILE_NAME);
    if (isFile(installed)) return { ref: reference(folder, installed) };
  }
  const copyTo = path.join(folder, SCHEMA_FILE_NAME);
  // Nor where a file of that name is someone's own, left alone: "$schema" would name it (audit28 #14).
  if (ownSchema === undefined || someoneElses(copyTo, ownSchema)) return { ref: undefined };
  return { ref: reference(folder, copyTo), copyFrom: ownSchema, copyTo };
}

export const newCatalog = (plan: SchemaPlan): CatalogData =>
  plan.ref === undefined ? { triggers: {} } : { $schema: plan.ref, triggers: {} };

export const catalogText = (data: CatalogData): string => `${JSON.stringify(data, null, 2)}\n`;

/**
 * Checks the catalog as changed and writes it; a change that would break it is refused, the file untouched. `file` is the file itself
 * (links followed and checked when it was read), written by a temporary file renamed over it in its folder, never through a link; `was` is
 * its identity when it was read (undefined: there was none), and a file that is no longer that one is left as it is.
 */
export function saveCatalog(file: string, data: CatalogData, was?: fs.Stats): void {
  const text = catalogText(data);
  const problems = catalogProblems(data, text);
  if (problems.length > 0) throw new ConfigError(`not changed: ${problems[0]!.message}`, { hint: `${printable(file)} was left as it was` });
  try {
    writeFileAtomic(file, text, { follow: false, beforeReplace: () => stillThere(file, was) });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const message = `cannot write the catalog ${printable(file)}: ${errnoWords(error, 'writing')}`;
    throw new ConfigError(message, { hint: 'name another with --catalog <file>' });
  }
}

/** Throws when `file` is not the file read (a link or another file put there since), or one appeared where there was none. */
function stillThere(file: string, was: fs.Stats | undefined): void {
  const now = fs.lstatSync(file, { throwIfNoEntry: false });
  if (was === undefined ? now === undefined : now !== undefined && !now.isSymbolicLink() && sameFile(now, was)) return;
  const message = `not changed: ${printable(file)} was ${was === undefined ? 'created' : 'replaced'} by someone else while it was being changed`;
  throw new ConfigError(message, { hint: 'look at it, then run the command again' });
}

/** Finding triggers.json: --catalog, else TRIGGER_CATALOG, else here or a parent. Every command that sends loads it: no imports, one stat a folder. */
import fs from 'node:fs';
import path from 'node:path';
import { tryOr } from '../try-or.js';

export const CATALOG_FILE_NAME = 'triggers.json';

export type CatalogSource = 'flag' | 'env' | 'found';

export interface FoundCatalog {
  path: string;
  source: CatalogSource;
}

export interface FindCatalogOptions {
  /** The folder to start from (the command's working folder). */
  cwd: string;
  env?: NodeJS.ProcessEnv | undefined; // default process.env
  /** --catalog <file> (a string), --no-catalog (false), or neither (undefined). */
  flag?: string | boolean | undefined;
}

/**
 * The catalog file in effect, or undefined when there is none (or --no-catalog). A file named by
 * the flag or the environment is returned whether or not it exists: loading it says what is wrong.
 */
export function findCatalog({ cwd, env = process.env, flag }: FindCatalogOptions): FoundCatalog | undefined {
  if (flag === false) return undefined;
  if (typeof flag === 'string' && flag !== '') return { path: path.resolve(cwd, flag), source: 'flag' };
  if (env.TRIGGER_CATALOG) return { path: path.resolve(cwd, env.TRIGGER_CATALOG), source: 'env' };
  // This folder and each above it, up to the root (whose dirname is itself).
  for (let dir = path.resolve(cwd), below = ''; dir !== below; below = dir, dir = path.dirname(dir)) {
    const candidate = path.join(dir, CATALOG_FILE_NAME);
    if (exists(candidate)) return { path: candidate, source: 'found' };
  }
  return undefined;
}

/**
 * Whether a catalog is there. A folder of that name is not one; anything else is, and a FIFO or a device named triggers.json is refused
 * when read (file.ts) rather than passed over, which would send events unchecked. An unsearchable folder (EACCES) is as good as no file.
 */
function exists(file: string): boolean {
  const stat = tryOr(() => fs.statSync(file, { throwIfNoEntry: false }));
  return stat !== undefined && !stat.isDirectory();
}

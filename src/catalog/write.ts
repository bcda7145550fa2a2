/**
 * Changing the catalog: every other trigger and their order kept, the file replaced whole.
 */
import path from 'node:path';
import { writeFileAtomic } from '../atomic-write.js';
import { errnoWords } from '../errno.js';
import { ConfigError } from '../errors.js';
import { CATALOG_FILE_NAME } from './find.js';
import { catalogError, catalogProblems, type CatalogData } from './load.js';

/** What a file the tool creates names in "$schema", so editors complete and check it. */
export const SCHEMA_REF = './node_modules/trigger-cli/triggers.schema.json';

export function newCatalog(): CatalogData {
  return { $schema: SCHEMA_REF, triggers: {} };
}

export function catalogText(data: CatalogData): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** Checks the catalog as changed and writes it; a change that would break it is refused, the file untouched. */
export function saveCatalog(file: string, data: CatalogData): void {
  const text = catalogText(data);
  const problems = catalogProblems(data, text);
  if (problems.length > 0) {
    const error = catalogError(file, problems);
    throw new ConfigError(`not changed: ${problems[0]!.message}`, { hint: `${file} was left as it was`, cause: error });
  }
  try {
    writeFileAtomic(file, text);
  } catch (error) {
    throw new ConfigError(`cannot write the catalog ${file}: ${errnoWords(error, 'writing')}`, {
      hint: 'name another with --catalog <file>',
    });
  }
}

export function defaultCatalogPath(cwd: string): string {
  return path.join(cwd, CATALOG_FILE_NAME);
}

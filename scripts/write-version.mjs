/**
 * Writes src/version.ts from package.json before each build, so that the version is built into the
 * code instead of read from package.json at run time (which breaks any bundle of the package).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const file = path.join(root, 'src', 'version.ts');
const text = `// Written from package.json by scripts/write-version.mjs at build time; edit package.json instead.\nexport const VERSION = '${version}';\n`;
if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) fs.writeFileSync(file, text);

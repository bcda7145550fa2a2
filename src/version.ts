// Written from package.json by scripts/write-version.mjs at build time; edit package.json instead.
export const VERSION = '0.1.0';

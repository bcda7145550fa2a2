/**
 * The per-second traces `scripts/pace-nginx.mjs` writes (PACE_NGINX_TRACE): a header line, then one
 * line a second, a tab-separated cell per shard of numbers joined by `/`. Read as rows of cells of
 * numbers, the second column onwards (the first is the second's number). Shared by the trace readers.
 */
import fs from 'node:fs';

export const table = (file) =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) =>
      line
        .split('\t')
        .slice(1)
        .map((cell) => cell.split('/').map(Number)),
    );

/**
 * Issue 31: one shard's requests as nginx logged them (the `.access.log` that
 * `PACE_NGINX_TRACE=dir node scripts/pace-nginx.mjs` keeps beside each trace), each with the time
 * since that shard's previous request: how the gap under one at a time widens on a refusal and
 * narrows, which the per-second traces cannot show. A request is "s(ms)", "R" when pushed back;
 * runs of requests within 20 ms of each other (a burst) are kept as they come.
 *
 *   node scripts/pace-trace-gaps.mjs <trace.access.log> <shard 1-4, or 0 for one sender> [from s] [to s]
 */
import { Buffer } from 'node:buffer';
import fs from 'node:fs';

/** FNV-1a over the UTF-8 bytes, as src/batch/shard.ts splits rows (and scripts/pace-nginx.mjs). */
function shardOf(userId, count) {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(userId, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash % count;
}

const [file, shard = '0', from = '0', to = 'Infinity'] = process.argv.slice(2);
const lines = fs
  .readFileSync(file, 'utf8')
  .trim()
  .split('\n')
  .map((line) => line.split(' '));
const start = Number(lines[0][0]);
const out = [];
let previous;
for (const [msec, status, uri] of lines) {
  const user = /\/users\/([^/]+)\//.exec(uri)?.[1] ?? '?';
  if (Number(shard) > 0 && shardOf(user, 4) !== Number(shard) - 1) continue;
  const at = Number(msec) - start;
  if (at >= Number(from) && at <= Number(to)) {
    const refused = status === '503' || status === '429' ? 'R' : '';
    out.push(previous === undefined ? `${at.toFixed(1)}${refused}` : `${at.toFixed(1)}${refused}(${((at - previous) * 1000).toFixed(0)})`);
  }
  previous = at;
}
console.log(out.join(' '));

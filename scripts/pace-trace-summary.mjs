/**
 * Issue 31: reads the per-second traces `PACE_NGINX_TRACE=dir node scripts/pace-nginx.mjs` writes
 * and names the state each run spent its time in, for four shards on one limit:
 *   rows/s over the whole run (first to last second with a row accepted), the share of answers
 *   pushed back, the worst second's push-backs (a storm: one sender far beyond the rate),
 *   "owned": seconds with >= 10 rows accepted where one shard had >= 80% of them (shards taking
 *   turns rather than sharing), and "crawl": seconds with <= 5 rows accepted (the 2 s gap).
 *
 *   node scripts/pace-trace-summary.mjs <trace.txt ...>
 */
import fs from 'node:fs';
import path from 'node:path';

for (const file of process.argv.slice(2)) {
  const rows = fs
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
  // The last column is every shard together; a run with one sender has only that one.
  const shards = rows.map((cells) => (cells.length > 1 ? cells.slice(0, -1) : cells));
  const accepted = rows.map((cells) => cells.at(-1)[0]);
  const pushed = rows.map((cells) => cells.at(-1)[1]);
  const active = accepted.flatMap((n, second) => (n ? [second] : []));
  const span = active.at(-1) - active[0] + 1;
  const total = accepted.reduce((a, b) => a + b, 0);
  const refused = pushed.reduce((a, b) => a + b, 0);
  let busy = 0;
  let owned = 0;
  let crawl = 0;
  shards.forEach((cells, second) => {
    const sum = accepted[second];
    if (sum >= 10) {
      busy++;
      if (Math.max(...cells.map((c) => c[0])) >= 0.8 * sum) owned++;
    } else if (sum <= 5) crawl++;
  });
  console.log(
    `${path.basename(file, '.txt')}: ${total} rows in ${span} s = ${(total / span).toFixed(1)}/s, ` +
      `pushed back ${((100 * refused) / (refused + total)).toFixed(0)}% of answers (worst second ${Math.max(...pushed)}), ` +
      `owned ${owned} of ${busy} busy seconds, crawl ${crawl} s`,
  );
}

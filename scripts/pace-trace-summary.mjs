/**
 * Issue 31: reads the per-second traces `PACE_NGINX_TRACE=dir node scripts/pace-nginx.mjs` writes
 * and names the state each run spent its time in, for four shards on one limit:
 *   rows/s over the whole run (first to last second with a row accepted), the share of answers
 *   pushed back, the worst second's push-backs (a storm: one sender far beyond the rate),
 *   "owned": seconds with >= 10 rows accepted where one shard had >= 80% of them (shards taking
 *   turns rather than sharing), and "crawl": seconds with <= 5 rows accepted (the 2 s gap).
 *   Where the run's `.rt.txt` lies beside it (the proxy's timing): "stuck low", per shard, the seconds
 *   it had 2 or fewer in flight, nothing pushed back, and under half the rows of the median other
 *   shard, with its mean round trip in them against the other shards' (did its round trip rise?).
 *
 *   node scripts/pace-trace-summary.mjs <trace.txt ...>
 */
import fs from 'node:fs';
import path from 'node:path';

const table = (file) =>
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
const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2;
};
const mean = (list) => (list.length ? list.reduce((a, b) => a + b, 0) / list.length : NaN);

/** Seconds each shard sat low (<= 2 in flight, none pushed back, under half the median other's rows), and its round trip then. */
function stuckLow(shards, timing) {
  const out = [];
  for (let k = 0; k < (shards[0]?.length ?? 0); k++) {
    const own = [];
    const others = [];
    shards.forEach((cells, second) => {
      const t = timing[second];
      if (!t?.[k] || cells.length < 2) return;
      const [inFlight, rt] = t[k];
      const rest = cells.filter((_, j) => j !== k).map((c) => c[0]);
      if (inFlight <= 2 && cells[k][1] === 0 && cells[k][0] > 0 && cells[k][0] < 0.5 * median(rest)) {
        if (Number.isFinite(rt)) own.push(rt);
        for (const [j, c] of t.entries()) if (j !== k && c[1] >= 0) others.push(c[1]);
      }
    });
    if (own.length >= 3) {
      out.push(`shard ${k + 1} ${own.length} s (its round trip ${mean(own).toFixed(0)} ms, the others' ${mean(others).toFixed(0)} ms)`);
    }
  }
  return out.length ? `; stuck low: ${out.join(', ')}` : '';
}

for (const file of process.argv.slice(2).filter((f) => !f.endsWith('.rt.txt'))) {
  const rows = table(file);
  const rtFile = file.replace(/\.txt$/, '.rt.txt');
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
      `owned ${owned} of ${busy} busy seconds, crawl ${crawl} s` +
      (fs.existsSync(rtFile) ? stuckLow(shards, table(rtFile)) : ''),
  );
}

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
 *   "silent": a shard's longest run of seconds with nothing accepted and nothing pushed back between
 *   its first and last row (3 s or more), and from nginx's `.access.log` beside it, any answer neither
 *   200 nor a push-back (a 499: the client gave up) and the longest $request_time (a stalled request).
 *
 *   node scripts/pace-trace-summary.mjs <trace.txt ...>
 */
import fs from 'node:fs';
import path from 'node:path';
import { table } from './pace-trace-table.mjs';

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

/** Each shard's longest silence inside its run (>= 3 s), and what nginx's log shows of stalls. */
function silences(shards, logFile) {
  const out = [];
  for (let k = 0; k < (shards[0]?.length ?? 0); k++) {
    const active = shards.flatMap((cells, second) => (cells[k][0] + cells[k][1] > 0 ? [second] : []));
    let longest = [0, 0];
    for (let i = 1; i < active.length; i++) {
      if (active[i] - active[i - 1] - 1 > longest[0]) longest = [active[i] - active[i - 1] - 1, active[i - 1] + 1];
    }
    if (longest[0] >= 3) out.push(`shard ${k + 1} ${longest[0]} s from ${longest[1]} s`);
  }
  if (fs.existsSync(logFile)) {
    const statuses = {};
    let slowest = 0;
    for (const line of fs.readFileSync(logFile, 'utf8').trim().split('\n')) {
      const [, status, , took] = line.split(' ');
      if (!['200', '503', '429'].includes(status)) statuses[status] = (statuses[status] ?? 0) + 1;
      slowest = Math.max(slowest, Number(took));
    }
    const odd = Object.entries(statuses).map(([status, n]) => `${n} x ${status}`);
    out.push(`nginx: ${odd.length ? odd.join(', ') : 'only 200 and push-backs'}, longest request ${slowest} s`);
  }
  return `; silent: ${out.join(', ')}`;
}

for (const file of process.argv.slice(2).filter((f) => !/\.(rt|proxy)\.txt$/.test(f))) {
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
      (fs.existsSync(rtFile) ? stuckLow(shards, table(rtFile)) : '') +
      silences(shards, file.replace(/\.txt$/, '.access.log')),
  );
}

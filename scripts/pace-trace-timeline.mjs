/**
 * Issue 31: a short timeline of one run's per-second trace from `scripts/pace-nginx.mjs`
 * (PACE_NGINX_TRACE), for reading what each shard's pace did without scrolling 150 lines: per
 * block of seconds (5 unless told), each shard's rows accepted per second / requests pushed back per
 * second, and, where the `.rt.txt` lies beside it, its mean in flight and mean round trip of the
 * accepted requests (ms). Blocks where nothing changes much are kept as they are: the reader wants
 * to see a shard stuck at 1 row/s for 90 s as 18 lines of the same, not a summary of it.
 *
 *   node scripts/pace-trace-timeline.mjs <trace.txt> [seconds per block]
 */
import fs from 'node:fs';
import { table } from './pace-trace-table.mjs';

const file = process.argv[2];
const block = Number(process.argv[3] ?? 5);
const rows = table(file);
const rtFile = file.replace(/\.txt$/, '.rt.txt');
const timing = fs.existsSync(rtFile) ? table(rtFile) : [];
const count = rows[0].length > 1 ? rows[0].length - 1 : 1;
const fixed = (n, digits) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

// A cell: rows accepted/s / pushed back/s, then in flight @ round trip ms.
console.log(
  `s\t${Array.from({ length: count }, (_, k) => `shard ${k + 1}`).join('\t\t')}\tall\t(rows/s / pushed back/s, in flight @ round trip ms)`,
);
for (let from = 0; from < rows.length; from += block) {
  const seconds = rows.slice(from, from + block);
  const times = timing.slice(from, from + block);
  const cells = [];
  for (let k = 0; k < count; k++) {
    const accepted = seconds.reduce((n, s) => n + s[k][0], 0) / seconds.length;
    const pushed = seconds.reduce((n, s) => n + s[k][1], 0) / seconds.length;
    const inFlight = times.length ? times.reduce((n, t) => n + (t[k]?.[0] ?? 0), 0) / times.length : NaN;
    const rts = times.map((t) => t[k]?.[1]).filter(Number.isFinite);
    const rt = rts.length ? rts.reduce((a, b) => a + b, 0) / rts.length : NaN;
    cells.push(`${fixed(accepted, 1)}/${fixed(pushed, 1)}\t${fixed(inFlight, 1)}@${fixed(rt, 0)}`);
  }
  const all = count > 1 ? seconds.map((s) => s[count]) : seconds.map((s) => s[0]);
  const total = (i) => fixed(all.reduce((n, c) => n + c[i], 0) / all.length, 1);
  console.log(`${from}-${from + seconds.length - 1}\t${cells.join('\t')}\t${total(0)}/${total(1)}`);
}

/**
 * Issue 31: turns what `scripts/pace-nginx.mjs` printed (one or more saved logs) into one markdown
 * table per case, a row per run and build, so that runs of the same case can be read side by side
 * and their spread seen: the share of what the service allows (for limit_conn, of what
 * `--concurrency 64` got beside it in that run), the share pushed back after the first 5 s, each
 * shard against the median shard (met when all are within 0.5x-2x), the whole run's rows/s, rows
 * missing or accepted twice, rows left in the failed files, the wall time and the exit codes. The
 * load average comes from the `=== <case> <time> uptime: ...` lines a driver prints before a case.
 * Then, per case and build, the median and range of the share and of the whole run's rows/s.
 *
 *   node scripts/pace-nginx-table.mjs <log ...>
 */
import fs from 'node:fs';

const cases = new Map();
const rowsOf = (name) => cases.get(name) ?? cases.set(name, []).get(name);
let load = '';
let reference = {};

for (const file of process.argv.slice(2)) {
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const head = /^=== (\S+) (\S+) uptime: load average: ([\d.]+)/.exec(line);
    if (head) load = head[3];
    const ref = /^(\S+) #(\d+), what the service allows now \(--concurrency 64 beside it: (\d+) rows\/s/.exec(line);
    if (ref) reference = { case: ref[1], run: ref[2], rate: Number(ref[3]) };
    const m = /^(\S+), (.+?), (\S+) #(\d+): (\d+) rows\/s at the app \((\d+)% of (\d+)\/s\)(.*)$/.exec(line);
    if (!m) continue;
    const [, name, , build, run, rate, share, allows, rest] = m;
    const window = /window ([\d.]+) s .*?whole run ([\d.]+) rows\/s.*?shards x median ([\d./]+),/.exec(rest);
    const after5 = /after 5 s ([\d.]+)%/.exec(rest)?.[1];
    const [, failed, missing, twice, rows] = /(\d+) failed, (\d+) missing \/ (\d+) twice of (\d+)/.exec(rest) ?? [];
    const wall = /wall ([\d.]+) s/.exec(rest)?.[1];
    const exit = /exit ([\d/]+)/.exec(rest)?.[1];
    const spread = window ? window[3].split('/').map(Number) : undefined;
    const c64 = reference.case === name && reference.run === run ? reference.rate : undefined;
    rowsOf(name).push({
      build,
      run,
      rate: Number(rate),
      share: Number(share),
      allows: Number(allows),
      c64,
      after5,
      spread,
      whole: window ? Number(window[2]) : Number(rate),
      window: window?.[1],
      failed,
      missing,
      twice,
      rows,
      wall,
      exit,
      load,
    });
  }
}

const median = (list) => {
  const s = [...list].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2;
};
const range = (list) => `${median(list).toFixed(0)} (${Math.min(...list).toFixed(0)}-${Math.max(...list).toFixed(0)})`;

for (const [name, runs] of cases) {
  console.log(`\n### ${name}\n`);
  console.log(
    '| build | run | rows/s | share | pushed back after 5 s | shards x median | whole run | lost/twice | failed | wall | exit | load |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of runs) {
    const of = r.c64 === undefined ? `${r.allows}` : `c64 ${r.c64}`;
    const spread = r.spread
      ? `${r.spread.map((s) => s.toFixed(2)).join('/')} ${r.spread.every((s) => s >= 0.5 && s <= 2) ? 'met' : 'MISS'}`
      : '-';
    console.log(
      `| ${r.build} | ${r.run} | ${r.rate} | ${r.share}% of ${of} | ${r.after5}% | ${spread} | ${r.whole.toFixed(1)}/s | ` +
        `${r.missing}/${r.twice} of ${r.rows} | ${r.failed} | ${r.wall} s | ${r.exit} | ${r.load} |`,
    );
  }
  const builds = [...new Set(runs.map((r) => r.build))];
  for (const build of builds) {
    const mine = runs.filter((r) => r.build === build);
    const met = mine.filter((r) => r.spread?.every((s) => s >= 0.5 && s <= 2)).length;
    console.log(
      `\n${build}: share ${range(mine.map((r) => r.share))}%, whole run ${range(mine.map((r) => r.whole))}/s, ` +
        `wall ${range(mine.map((r) => Number(r.wall)))} s` +
        (mine[0].spread ? `, shards within 0.5-2x in ${met} of ${mine.length}` : '') +
        `, lost ${mine.reduce((n, r) => n + Number(r.missing) - Number(r.failed), 0)} beyond the failed files, twice ${mine.reduce((n, r) => n + Number(r.twice), 0)}`,
    );
  }
}

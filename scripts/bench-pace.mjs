/**
 * The pace bench (issue 22): trigger batch against five services at 50 ms round trip, with the
 * default (--concurrency auto), --concurrency 8 and --concurrency 64 side by side in one run.
 * Figures are taken at the server: events/s from the first to the last accepted, the share of
 * answers that pushed back (429/503), rows failed (from the failed file) and, for the queueing
 * service, the median time a request waited in its queue.
 *
 *   no limit      every request accepted after 50 ms
 *   rate 400/s    a token bucket (a tenth of a second's worth), 429 + Retry-After: 1 beyond
 *   12 at once    503 + Retry-After: 1 beyond 12 requests at once (each held 50 ms)
 *   16 workers    16 workers taking 20 ms each, an unbounded queue in front, 25 ms each way
 *   5% at random  no limit, but 503 + Retry-After: 1 to one request in twenty, at random
 *
 * Runs on its own (`node scripts/bench-pace.mjs`) or as the "pace" section of `npm run bench`.
 * Knobs: BENCH_PACE_SECONDS (8: each run sends about this many seconds' worth of rows at the rate
 * it should reach), BENCH_PACE_ROUNDS (1).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, table } from './bench-lib.mjs';

const LATENCY = 50;

export const SCENARIOS = [
  { name: 'no limit', ceiling: Infinity, target: { perSecond: 900 } },
  { name: '400/s rate limit, 429 + Retry-After: 1', capacity: 400, ceiling: 400, target: { share: 0.85, pushedBack: 0.05, failed: 0 } },
  { name: '12 at once, 503 beyond', maxInFlight: 12, ceiling: 240, target: { share: 0.85, pushedBack: 0.05, failed: 0 } },
  { name: '16 workers x 20 ms, a queue beyond', workers: 16, workMs: 20, ceiling: 800, target: { share: 0.9, waitMs: 20 } },
  // Not one of the four: a service that refuses some at random whatever the pace must not
  // be taken for a full one (before, this one took a batch down to a few events/s).
  { name: '5% refused at random, 503 + Retry-After: 1', refuseShare: 0.05, ceiling: Infinity, target: { perSecond: 800 } },
];

/** A service with limits, in this process; counts at the server. */
export async function paceServer(scenario) {
  let stats;
  const reset = () => {
    stats = { accepted: 0, pushedBack: 0, first: 0, last: 0, waits: [] };
  };
  reset();
  const perMs = (scenario.capacity ?? 0) / 1000;
  const size = Math.max(1, (scenario.capacity ?? 0) / 10);
  let tokens = size;
  let at = performance.now();
  let working = 0;
  const free = scenario.workers ?? 0;
  let idle = free;
  const queue = [];

  const accept = (res) => {
    const now = performance.now();
    if (stats.accepted++ === 0) stats.first = now;
    stats.last = now;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 16 });
    res.end('{"success":true}');
  };
  const pushBack = (res, status) => {
    stats.pushedBack++;
    const body = '{"success":false,"error":"slow down"}';
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length, 'retry-after': '1' });
    res.end(body);
  };
  const work = (res, arrived) => {
    idle--;
    stats.waits.push(performance.now() - arrived);
    setTimeout(() => {
      idle++;
      const next = queue.shift();
      if (next) work(next.res, next.arrived);
      setTimeout(() => accept(res), LATENCY / 2);
    }, scenario.workMs);
  };

  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (free) {
        // Half the round trip on the way in, the queue and the work, the other half on the way out.
        setTimeout(() => {
          const arrived = performance.now();
          if (idle > 0) work(res, arrived);
          else queue.push({ res, arrived });
        }, LATENCY / 2);
        return;
      }
      if (scenario.refuseShare && Math.random() < scenario.refuseShare) return setTimeout(() => pushBack(res, 503), LATENCY);
      if (perMs) {
        const now = performance.now();
        tokens = Math.min(size, tokens + (now - at) * perMs);
        at = now;
        if (tokens < 1) return setTimeout(() => pushBack(res, 429), LATENCY);
        tokens -= 1;
      }
      if (scenario.maxInFlight) {
        if (working >= scenario.maxInFlight) return setTimeout(() => pushBack(res, 503), LATENCY);
        working++;
        return setTimeout(() => {
          working--;
          accept(res);
        }, LATENCY);
      }
      setTimeout(() => accept(res), LATENCY);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    reset,
    get stats() {
      return stats;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

function run(bin, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Runs the scenarios; returns rows for the bench's table: what, case, figure, compared. */
export async function benchPace({ bin, env, work, log = () => {}, seconds = 8, rounds = 1, configs }) {
  const results = [];
  configs ??= [
    { name: 'default (auto)', args: [], concurrency: 64 },
    { name: '--concurrency 8', args: ['--concurrency', '8'], concurrency: 8 },
    { name: '--concurrency 64', args: ['--concurrency', '64'], concurrency: 64 },
  ];
  for (const scenario of SCENARIOS) {
    const server = await paceServer(scenario);
    const figures = Object.fromEntries(configs.map((c) => [c.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const config of configs) {
        // About `seconds` of work at the rate this configuration should reach.
        const reachable = Math.min(scenario.ceiling, (config.concurrency * 1000) / LATENCY);
        const rows = Math.round(reachable * seconds);
        const input = path.join(work, `pace-${rows}.csv`);
        if (!fs.existsSync(input)) {
          const lines = ['triggerId,userId,value'];
          for (let i = 0; i < rows; i++) lines.push(`pace,user${i},1`);
          fs.writeFileSync(input, `${lines.join('\n')}\n`);
        }
        const failed = path.join(work, 'pace-failed.csv');
        fs.rmSync(failed, { force: true });
        server.reset();
        log(`pace: ${scenario.name}, ${config.name}, ${rows} rows`);
        const result = await run(bin, ['batch', input, '--failed', failed, '--quiet', ...config.args], {
          ...env,
          TRIGGER_BASE_URL: server.url,
        });
        const s = server.stats;
        const failedRows = fs.existsSync(failed) ? Math.max(0, fs.readFileSync(failed, 'utf8').trim().split('\n').length - 1) : 0;
        const answers = s.accepted + s.pushedBack;
        figures[config.name].push({
          perSecond: s.accepted > 1 ? ((s.accepted - 1) * 1000) / (s.last - s.first) : 0,
          pushedBack: answers ? s.pushedBack / answers : 0,
          failed: failedRows,
          waitMs: s.waits.length ? median(s.waits) : 0,
          code: result.code,
          rows,
        });
      }
    }
    await server.close();
    for (const config of configs) {
      const list = figures[config.name];
      const perSecond = median(list.map((f) => f.perSecond));
      const pushedBack = median(list.map((f) => f.pushedBack));
      const failed = Math.max(...list.map((f) => f.failed));
      const waitMs = median(list.map((f) => f.waitMs));
      const parts = [`${fmt(perSecond)} events/s`];
      if (Number.isFinite(scenario.ceiling)) parts.push(`${fmt((100 * perSecond) / scenario.ceiling)}% of ${scenario.ceiling}/s`);
      parts.push(`${fmt(100 * pushedBack, 1)}% pushed back`, `${failed} of ${list[0].rows} rows failed`);
      if (scenario.workers) parts.push(`median queue wait ${fmt(waitMs, 1)} ms`);
      let verdict = '';
      if (config.name.startsWith('default')) {
        const t = scenario.target;
        const ok = [
          t.perSecond === undefined || perSecond >= t.perSecond,
          t.share === undefined || perSecond >= t.share * scenario.ceiling,
          t.pushedBack === undefined || pushedBack <= t.pushedBack,
          t.failed === undefined || failed <= t.failed,
          t.waitMs === undefined || waitMs <= t.waitMs,
        ].every(Boolean);
        const wanted = [
          t.perSecond !== undefined && `>= ${t.perSecond}/s`,
          t.share !== undefined && `>= ${t.share * 100}% of ${scenario.ceiling}/s`,
          t.pushedBack !== undefined && `<= ${t.pushedBack * 100}% pushed back`,
          t.failed !== undefined && 'no row failed',
          t.waitMs !== undefined && `median wait <= ${t.waitMs} ms`,
        ].filter(Boolean);
        verdict = `${ok ? 'meets' : 'MISSES'} target: ${wanted.join(', ')}`;
      }
      results.push([`pace: ${scenario.name}`, config.name, parts.join(', '), verdict]);
    }
  }
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-bench-pace-'));
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    TRIGGER_CONFIG_DIR: path.join(work, 'config'),
    TRIGGER_API_KEY: 'bench_key_not_secret_1234',
    NO_COLOR: '1',
  };
  try {
    const results = await benchPace({
      bin: path.join(root, 'bin', 'trigger.cjs'),
      env,
      work,
      log: (text) => process.stderr.write(`${text}\n`),
      seconds: Number(process.env.BENCH_PACE_SECONDS ?? 8),
      rounds: Number(process.env.BENCH_PACE_ROUNDS ?? 1),
    });
    console.log(table(['what', 'case', 'figure', 'compared'], results));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

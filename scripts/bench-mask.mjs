/**
 * What masking the key costs on the batch's hot path, ours against a baseline, alternating, as a
 * ratio (these machines are shared and noisy):
 *
 *   per row      the redaction work of one `batch --json` row answered {"success":true}, in process:
 *                this checkout's src/output/redact.ts against the one at BENCH_MASK_BASE (a git
 *                revision, default 665b2c3, before issue 20), without and with an x-request-id
 *   batch        with BENCH_BASELINE=<a built checkout>: `trigger batch <100,000 rows> --json` against
 *                a local server, this checkout's bin against the baseline's, wall and CPU time
 *
 *   node scripts/bench-mask.mjs            BENCH_ROUNDS (5), BENCH_ROWS (100000)
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { median, table } from './bench-lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const rows = Number(process.env.BENCH_ROWS ?? 100_000);
// 665b2c3: the last commit before issue 20's masking.
const base = process.env.BENCH_MASK_BASE ?? '665b2c3';
const KEY = 'bench_key_not_secret_1234';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-bench-mask-'));
const log = (text) => process.stderr.write(`${text}\n`);
const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const results = [];

/** One version of redact.ts, bundled on its own, loaded. */
async function loadRedact(contents, name) {
  const outfile = path.join(work, `${name}.mjs`);
  await build({
    stdin: { contents, resolveDir: path.join(root, 'src', 'output'), sourcefile: `${name}.ts`, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'warning',
  });
  return import(pathToFileURL(outfile).href);
}

const ours = await loadRedact(fs.readFileSync(path.join(root, 'src', 'output', 'redact.ts'), 'utf8'), 'ours');
const theirs = await loadRedact(execFileSync('git', ['show', `${base}:src/output/redact.ts`], { cwd: root, encoding: 'utf8' }), 'base');

/** The redaction of one accepted row, as each version's recorder does it. */
function perRow(requestId) {
  const newer = new ours.Redactor();
  newer.add(KEY);
  const older = new theirs.Redactor();
  older.add(KEY);
  const line = (i, id, response) =>
    `{"line":${i},"ok":true,"status":200,"triggerId":"bench","userId":"user${i}","value":${i % 1000}.5,"attempts":1,"durationMs":3,"requestId":${id === undefined ? 'null' : JSON.stringify(id)},"response":${response}}`;
  return {
    ours: (i) => {
      const id = requestId === undefined ? undefined : newer.server(`${requestId}${i}`);
      return newer.json(line(i, id, newer.serverJson('{"success":true}'))).length;
    },
    base: (i) => older.json(line(i, requestId === undefined ? undefined : `${requestId}${i}`, '{"success":true}')).length,
    /** The line alone, unmasked: what both pay anyway, subtracted to give masking's own cost. */
    none: (i) => line(i, requestId === undefined ? undefined : `${requestId}${i}`, '{"success":true}').length,
  };
}

function timeLoop(fn) {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < rows; i++) sink += fn(i);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (sink === 0) throw new Error('nothing measured');
  return ms;
}

for (const [label, requestId] of [
  ['no request id', undefined],
  ['x-request-id', 'req-4f1c2a9e-8b7d-4c3e-9a1f-'],
]) {
  const loops = perRow(requestId);
  const times = { ours: [], base: [], none: [] };
  for (const which of ['ours', 'base', 'none']) timeLoop(loops[which]); // warm all three
  for (let r = 0; r < rounds; r++) {
    for (const which of r % 2 ? ['none', 'base', 'ours'] : ['ours', 'base', 'none']) times[which].push(timeLoop(loops[which]));
  }
  // Masking's own cost in each round: the row's time less the bare line's, per row.
  const own = (which) => times[which].map((t, i) => ((t - times.none[i]) * 1e6) / rows);
  const [oursNs, baseNs] = [own('ours'), own('base')];
  const ratio = median(oursNs.map((t, i) => t / baseNs[i]));
  log(
    `per row, ${label}: masking ours ${fmt(median(oursNs))} ns, base ${fmt(median(baseNs))} ns (line alone ${fmt((median(times.none) * 1e6) / rows)} ns)`,
  );
  results.push([
    `masking one --json row (${label})`,
    `${fmt(median(oursNs))} ns`,
    `${fmt(median(baseNs))} ns`,
    `${fmt(ratio, 2)}x`,
    `${fmt(median(oursNs) / 10)} ms vs ${fmt(median(baseNs) / 10)} ms per 100,000 rows`,
  ]);
}

/** Runs a batch to its end; wall and CPU (user + system) time in ms. */
function runBatch(bin, csv, env) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', '%U %S', process.execPath, bin, 'batch', csv, '--json', '--concurrency', '8'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - start) / 1e6;
      const [user, sys] = stderr.trim().split('\n').at(-1).split(' ').map(Number);
      if (code !== 0) reject(new Error(`batch exited ${code}: ${stderr}`));
      else resolve({ wall, cpu: (user + sys) * 1000 });
    });
  });
}

if (process.env.BENCH_BASELINE) {
  const server = spawn(process.execPath, [path.join(root, 'scripts', 'bench-server.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = (await readline.createInterface({ input: server.stdout })[Symbol.asyncIterator]().next()).value;
  const csv = path.join(work, 'rows.csv');
  const lines = ['triggerId,userId,value'];
  for (let i = 0; i < rows; i++) lines.push(`bench,user${i},${i % 1000}.5`);
  fs.writeFileSync(csv, `${lines.join('\n')}\n`);
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    TRIGGER_CONFIG_DIR: path.join(work, 'config'),
    TRIGGER_API_KEY: KEY,
    TRIGGER_BASE_URL: url,
    NO_COLOR: '1',
  };
  const bins = { ours: path.join(root, 'bin', 'trigger.cjs'), base: path.join(process.env.BENCH_BASELINE, 'bin', 'trigger.cjs') };
  const times = { ours: [], base: [] };
  log(`batch: ${fmt(rows)} rows --json, ours and the baseline alternating, ${rounds} rounds`);
  for (let r = 0; r < rounds; r++) {
    for (const which of r % 2 ? ['base', 'ours'] : ['ours', 'base']) times[which].push(await runBatch(bins[which], csv, env));
    log(
      `  round ${r + 1}: ours ${fmt(times.ours.at(-1).wall)} ms (cpu ${fmt(times.ours.at(-1).cpu)}), base ${fmt(times.base.at(-1).wall)} ms (cpu ${fmt(times.base.at(-1).cpu)})`,
    );
  }
  server.stdin.end();
  for (const measure of ['wall', 'cpu']) {
    const ours_ = times.ours.map((t) => t[measure]);
    const base_ = times.base.map((t) => t[measure]);
    results.push([
      `batch ${fmt(rows)} rows --json, ${measure} time`,
      `${fmt(median(ours_))} ms`,
      `${fmt(median(base_))} ms`,
      `${fmt(median(ours_.map((t, i) => t / base_[i])), 2)}x`,
      'median of the per-round ratios',
    ]);
  }
}

console.log(table(['measure', 'ours', 'baseline', 'ratio', 'note'], results));
fs.rmSync(work, { recursive: true, force: true });

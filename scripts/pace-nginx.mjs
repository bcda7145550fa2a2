/**
 * trigger batch against a real nginx at a real 50 ms round trip, on loopback (issue 31): a Node
 * app behind nginx's limit_conn or limit_req (no burst), and a delaying TCP proxy (25 ms each way)
 * in front, as netem would add. Figures are taken at the app (accepted) and from nginx's access
 * log (pushed back). Needs nginx on PATH (or NGINX=/path); bounded runs, loopback only.
 *
 *   node scripts/pace-nginx.mjs [case ...] [-- batch options]
 *   cases: conn-50 (limit_conn 12, app 50 ms), conn-0 (limit_conn 12, app at once),
 *          req-20 (limit_req 20r/s, no burst), req-20-429 (the same, 429)
 *   PACE_NGINX_SECONDS (8) sizes the runs.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ONE_WAY_MS = 25;
const CASES = {
  'conn-50': { appMs: 50, conn: 12, allows: 240 },
  'conn-0': { appMs: 0, conn: 12, allows: undefined },
  'req-20': { appMs: 0, rate: 20, status: 503, allows: 20, minSeconds: 15 },
  'req-20-429': { appMs: 0, rate: 20, status: 429, allows: 20, minSeconds: 15 },
};

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

/** The app: answers 200 after appMs; counts what it accepted and when. */
async function startApp(appMs) {
  const stats = { accepted: 0, first: 0, last: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = () => {
        const now = performance.now();
        if (stats.accepted++ === 0) stats.first = now;
        stats.last = now;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 16 });
        res.end('{"success":true}');
      };
      if (appMs) setTimeout(answer, appMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  return { server, stats, port: await listen(server) };
}

/** A TCP proxy that delays every chunk ONE_WAY_MS each way (order kept: the same delay for each). */
async function startDelay(targetPort) {
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    const pipe = (from, to) => {
      from.on('data', (chunk) => setTimeout(() => to.writable && to.write(chunk), ONE_WAY_MS));
      from.on('end', () => setTimeout(() => to.end(), ONE_WAY_MS));
      from.on('error', () => to.destroy());
    };
    pipe(client, upstream);
    pipe(upstream, client);
  });
  return { server, port: await listen(server) };
}

async function startNginx(dir, appPort, spec) {
  // A free port for nginx: one the system gives, then let go.
  const probe = net.createServer();
  const free = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  const limits = spec.conn
    ? `limit_conn_zone $server_name zone=conn:1m;\n  limit_conn_status 503;`
    : `limit_req_zone $server_name zone=req:1m rate=${spec.rate}r/s;\n  limit_req_status ${spec.status};`;
  const use = spec.conn ? `limit_conn conn ${spec.conn};` : `limit_req zone=req;`;
  const conf = `daemon off;
master_process off;
worker_processes 1;
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 1024; }
http {
  access_log ${dir}/access.log combined;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  ${limits}
  upstream app { server 127.0.0.1:${appPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${free};
    server_name pace;
    keepalive_requests 100000;
    location / {
      ${use}
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_pass http://app;
    }
  }
}
`;
  fs.writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const child = spawn(process.env.NGINX ?? 'nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // Ready when it accepts a connection.
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(free, '127.0.0.1', () => resolve(s.end() && true));
      s.on('error', () => resolve(false));
    });
    if (ok) return { child, port: free };
    if (child.exitCode !== null) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nginx did not start: ${stderr}`);
}

function batch(url, rows, args, work) {
  const input = path.join(work, `rows-${rows}.csv`);
  if (!fs.existsSync(input)) {
    const lines = ['triggerId,userId,value'];
    for (let i = 0; i < rows; i++) lines.push(`pace,user${i},1`);
    fs.writeFileSync(input, `${lines.join('\n')}\n`);
  }
  const failed = path.join(work, 'failed.csv');
  fs.rmSync(failed, { force: true });
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    TRIGGER_CONFIG_DIR: path.join(work, 'config'),
    TRIGGER_API_KEY: 'bench_key_not_secret_1234',
    TRIGGER_BASE_URL: url,
    NO_COLOR: '1',
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'bin', 'trigger.cjs'), 'batch', input, '--failed', failed, '--quiet', ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // Bounded: a run that crawls is stopped (its rows are kept in the failed file).
    const timer = setTimeout(() => child.kill('SIGINT'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const failedRows = fs.existsSync(failed) ? Math.max(0, fs.readFileSync(failed, 'utf8').trim().split('\n').length - 1) : 0;
      resolve({ code, stderr, failedRows });
    });
  });
}

const separator = process.argv.indexOf('--');
const names = (separator < 0 ? process.argv.slice(2) : process.argv.slice(2, separator)).filter(Boolean);
const extra = separator < 0 ? [] : process.argv.slice(separator + 1);
const seconds = Number(process.env.PACE_NGINX_SECONDS ?? 8);
const configs = extra.length
  ? [{ name: extra.join(' '), args: extra }]
  : [
      { name: 'default (auto)', args: [] },
      { name: '--concurrency 64', args: ['--concurrency', '64'] },
    ];

for (const name of names.length ? names : Object.keys(CASES)) {
  const spec = CASES[name];
  if (!spec) throw new Error(`no such case: ${name} (${Object.keys(CASES).join(', ')})`);
  for (const config of configs) {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-pace-nginx-'));
    const app = await startApp(spec.appMs);
    const nginx = await startNginx(work, app.port, spec);
    const delay = await startDelay(nginx.port);
    try {
      const rows = Math.round((spec.allows ?? 1000) * Math.max(seconds, spec.minSeconds ?? 0));
      const started = performance.now();
      const result = await batch(`http://127.0.0.1:${delay.port}`, rows, config.args, work);
      const wall = (performance.now() - started) / 1000;
      const log = fs.readFileSync(path.join(work, 'access.log'), 'utf8').trim().split('\n');
      const pushedBack = log.filter((line) => / (503|429) /.test(line)).length;
      const s = app.stats;
      const perSecond = s.accepted > 1 ? ((s.accepted - 1) * 1000) / (s.last - s.first) : 0;
      console.log(
        `${name}, ${config.name}: ${rows} rows, ${perSecond.toFixed(0)} events/s at the app` +
          (spec.allows ? ` (${((100 * perSecond) / spec.allows).toFixed(0)}% of ${spec.allows}/s)` : '') +
          `, ${pushedBack} pushed back (${((100 * pushedBack) / log.length).toFixed(1)}%), ${result.failedRows} failed, ` +
          `${s.accepted} accepted, wall ${wall.toFixed(1)} s, exit ${result.code}`,
      );
    } finally {
      nginx.child.kill('SIGTERM');
      delay.server.close();
      app.server.closeAllConnections();
      app.server.close();
      await new Promise((resolve) => nginx.child.on('close', resolve));
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
}

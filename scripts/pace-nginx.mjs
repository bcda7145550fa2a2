/**
 * trigger batch against a real nginx at a real 50 ms round trip, on loopback (issue 31): a Node
 * app behind nginx's limit_conn or limit_req (no burst), and a delaying TCP proxy (25 ms each way)
 * in front, as netem would add. Figures are taken at the app (accepted, and every row's id counted:
 * none missing, none twice) and from nginx's access log (pushed back). Needs nginx on PATH (or
 * NGINX=/path); bounded runs, loopback only.
 *
 *   node scripts/pace-nginx.mjs [case ...] [-- batch options]
 *   cases: conn-50 (limit_conn 12, app 50 ms), conn-0 (limit_conn 12, app at once),
 *          req-20 (limit_req 20r/s, no burst, 503), req-20-429 (the same, 429 without Retry-After),
 *          req-20-ra (429 with Retry-After: 1); req-25 (req-20 at 25r/s: a slot of 40 ms, just under
 *          the round trip); req-40 (req-20 at 40r/s: a slot of 25 ms, under the
 *          round trip); req-50 (req-20 at 50r/s: a slot of 20 ms, two a round trip get in, three do not:
 *          item 56); req-100 and req-100-ra (req-20 and req-20-ra at 100r/s); req-25-grown,
 *          req-40-grown and req-100-grown (those limits, the round trip 50 ms, then 120 ms from 20 s on: B5);
 *          shards-<limit> and shards-<limit>-stagger: four `--shard i/4` processes given the same
 *          file, sharing that one limit, started together or 5 s apart (limit: conn-50, conn-0,
 *          req-20, req-20-429, req-20-ra, req-40, req-100, req-100-ra); separate-<limit>-stagger
 *          (limit: req-20, req-25, req-40, req-100, req-20-ra, req-100-ra): two separate batches (no
 *          --shard, each its own half of the rows) on that one limit, the second started 10 s after the
 *          first; all: every case above;
 *          sweep: what conn-0 allows, by a fixed --concurrency sweep.
 *   Each case runs `trigger batch` with the batch options given (none: --concurrency auto); conn-0's
 *   cases also run --concurrency 64 beside it once per run, as what the service allows right then.
 *   PACE_NGINX_SECONDS (8) sizes the runs (for shards: how long all four send at once, at the limit);
 *   PACE_NGINX_RUNS (1) repeats each case; PACE_NGINX_TIMEOUT (180) stops a batch that crawls, in s;
 *   PACE_NGINX_TRACE=dir writes each run's per-second trace there: per shard, rows accepted at the app
 *   and requests pushed back by nginx (what each shard's pace did, seen from the service), and nginx's
 *   own log beside it, and the proxy's times per request (.proxy.txt: "in sent out status connection
 *   user", epoch ms: request line in from the client, sent on to nginx, answer back to the client; with
 *   nginx's log, the gaps nginx saw against those the client sent at);
 *   node scripts/pace-trace-summary.mjs <trace.txt ...> names the states;
 *   PACE_NGINX_PROXY_INLINE=1 runs the delaying proxy in the app's thread, as before send28 (to compare with older figures);
 *   PACE_NGINX_BINS="main=/a/bin/trigger.cjs,pace=/b/bin/trigger.cjs;PACE_X=1" measures several builds
 *   (each with what its environment adds), alternating build by build within each run so that the
 *   machine's load hits them alike.
 */
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ONE_WAY_MS = 25;
const SHARDS = 4;
const STAGGER_MS = 5000;
// What each service allows: conn-50 is 12 slots of 50 ms (240/s on paper, less where --concurrency 64 beside
// it gets less), req-20 its rate. conn-0's depends on this machine's load (`sweep`: 444-977/s at --concurrency 32-96
// under load 4-8), so each run measures it beside the builds with the fixed --concurrency 64 (the issue saw about 1,088/s).
const LIMITS = {
  'conn-50': { appMs: 50, conn: 12, allows: 240, reference: ['--concurrency', '64'] },
  'conn-0': { appMs: 0, conn: 12, allows: 1088, reference: ['--concurrency', '64'], sizeAt: 600 },
  'req-20': { appMs: 0, rate: 20, status: 503, allows: 20, minSeconds: 15 },
  'req-20-429': { appMs: 0, rate: 20, status: 429, allows: 20, minSeconds: 15 },
  'req-20-ra': { appMs: 0, rate: 20, status: 429, retryAfter: 1, allows: 20, minSeconds: 15 },
  'req-25': { appMs: 0, rate: 25, status: 503, allows: 25, minSeconds: 15 },
  'req-40': { appMs: 0, rate: 40, status: 503, allows: 40, minSeconds: 15 },
  'req-50': { appMs: 0, rate: 50, status: 503, allows: 50, minSeconds: 15 },
  'req-100': { appMs: 0, rate: 100, status: 503, allows: 100, minSeconds: 15 },
  'req-100-ra': { appMs: 0, rate: 100, status: 429, retryAfter: 1, allows: 100, minSeconds: 15 },
};
const CASES = { ...LIMITS };
for (const limit of ['conn-50', 'conn-0', 'req-20', 'req-20-429', 'req-20-ra', 'req-40', 'req-100', 'req-100-ra']) {
  CASES[`shards-${limit}`] = { ...LIMITS[limit], shards: SHARDS, staggerMs: 0 };
  CASES[`shards-${limit}-stagger`] = { ...LIMITS[limit], shards: SHARDS, staggerMs: STAGGER_MS };
}
// A round trip that grows for good mid-run (review13b's B5): 25 ms each way, then 60 ms from 20 s on.
for (const limit of ['req-25', 'req-40', 'req-100'])
  CASES[`${limit}-grown`] = { ...LIMITS[limit], grownAtMs: 20_000, grownOneWayMs: 60, minSeconds: 45 };
// Separate batches (not shards) on one strict limit, the second 10 s later: a pace for one sender must not shut it out.
for (const limit of ['req-20', 'req-25', 'req-40', 'req-100', 'req-20-ra', 'req-100-ra'])
  CASES[`separate-${limit}-stagger`] = { ...LIMITS[limit], shards: 2, staggerMs: 10_000, separate: true };

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** FNV-1a over the UTF-8 bytes, as src/batch/shard.ts splits rows: which shard sent a user's row. */
function shardOf(userId, count) {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(userId, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash % count;
}

const userOf = (uri) => /\/users\/([^/]+)\//.exec(uri)?.[1] ?? '?';

/** The app: answers 200 after appMs; records every accepted row's user id and when (epoch ms, as nginx's log). */
async function startApp(appMs) {
  const accepted = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = () => {
        accepted.push({ at: performance.timeOrigin + performance.now(), user: userOf(req.url) });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 16 });
        res.end('{"success":true}');
      };
      if (appMs) setTimeout(answer, appMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  return { server, accepted, port: await listen(server) };
}

/**
 * A TCP proxy that delays every chunk ONE_WAY_MS each way (order kept: the same delay for each; a case
 * with grownAtMs delays by grownOneWayMs from that long after the proxy started: a round trip that grows
 * for good mid-run, order still kept since the delay only grows). It
 * also times each request as the client's side of the network sees it: from its request line
 * arriving here to the first chunk of its answer written back (both delays, nginx and the app; one
 * request at a time per connection, as HTTP/1.1 without pipelining), with its user and connection.
 */
async function startDelay(targetPort, spec = {}) {
  const opened = now();
  const oneWay = () => (spec.grownAtMs && now() - opened >= spec.grownAtMs ? spec.grownOneWayMs : ONE_WAY_MS);
  const exchanges = [];
  let connections = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    const connection = ++connections;
    let open;
    const pipe = (from, to, onWrite) => {
      from.on('data', (chunk) => {
        if (from === client && !open) {
          const line = /^[A-Z]+ (\S+)/.exec(chunk.toString('latin1', 0, 300));
          if (line) open = { from: now(), user: userOf(line[1]) };
        }
        setTimeout(() => {
          if (to.writable) to.write(chunk);
          onWrite?.(chunk);
        }, oneWay());
      });
      from.on('end', () => setTimeout(() => to.end(), oneWay()));
      from.on('error', () => to.destroy());
    };
    // When the request line left here for nginx (the delay's timer fired): what nginx was sent, jitter and all.
    pipe(client, upstream, () => {
      if (open && open.sent === undefined) open.sent = now();
    });
    pipe(upstream, client, (chunk) => {
      if (!open) return;
      const status = Number(chunk.toString('latin1', 9, 12));
      exchanges.push({ ...open, to: now(), status, connection });
      open = undefined;
    });
  });
  return { server, exchanges, port: await listen(server) };
}

/**
 * The delaying proxy on a thread of its own: in the app's thread, a read it stamped late (the app's work, a GC) was sent on late too,
 * and the next on time, so nginx saw the two close (send28: most starts that reached the proxy under 10 ms after the one before).
 */
async function delayThread(targetPort, spec) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { targetPort, spec } });
  const [port] = await new Promise((resolve) => worker.once('message', (m) => resolve([m])));
  const exchanges = () => new Promise((resolve) => (worker.once('message', resolve), worker.postMessage('done')));
  return { port, exchanges, close: () => worker.terminate() };
}

function nginxConf(dir, port, appPort, spec) {
  const limits = spec.conn
    ? `limit_conn_zone $server_name zone=conn:1m;\n  limit_conn_status 503;`
    : `limit_req_zone $server_name zone=req:1m rate=${spec.rate}r/s;\n  limit_req_status ${spec.status};`;
  const use = spec.conn ? `limit_conn conn ${spec.conn};` : `limit_req zone=req;`;
  // Retry-After only on the refusal: an error page of its own (add_header in / would tag every 200).
  const refusal = spec.retryAfter
    ? `error_page ${spec.status} /refused;
    location = /refused { internal; add_header Retry-After ${spec.retryAfter} always; return ${spec.status} "refused\\n"; }`
    : '';
  return `daemon off;
master_process off;
worker_processes 1;
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 1024; }
http {
  log_format pace '$msec $status $request_uri $request_time $upstream_response_time';
  access_log ${dir}/access.log pace;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  ${limits}
  upstream app { server 127.0.0.1:${appPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    server_name pace;
    keepalive_requests 100000;
    ${refusal}
    location / {
      ${use}
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_pass http://app;
    }
  }
}
`;
}

async function startNginx(dir, appPort, spec) {
  // A free port for nginx: one the system gives, then let go.
  const probe = net.createServer();
  const port = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  fs.writeFileSync(path.join(dir, 'nginx.conf'), nginxConf(dir, port, appPort, spec));
  const child = spawn(process.env.NGINX ?? 'nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // Ready when it accepts a connection.
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(s.end() && true));
      s.on('error', () => resolve(false));
    });
    if (ok) return { child, port };
    if (child.exitCode !== null) throw new Error(`nginx did not start: ${stderr}`);
    await sleep(50);
  }
  child.kill('SIGTERM');
  throw new Error(`nginx did not start: ${stderr}`);
}

function writeInput(work, rows, part = -1, parts = 1) {
  const input = path.join(work, part < 0 ? `rows-${rows}.csv` : `rows-${rows}-${part + 1}of${parts}.csv`);
  const lines = ['triggerId,userId,value'];
  for (let i = 0; i < rows; i++) if (part < 0 || shardOf(`user${i}`, parts) === part) lines.push(`pace,user${i},1`);
  fs.writeFileSync(input, `${lines.join('\n')}\n`);
  return input;
}

/** One `trigger batch` process of a build ({ bin, env }); resolves with its exit code, stderr and failed-row count. */
function batch(build, url, input, args, work, tag) {
  const failed = path.join(work, `failed-${tag}.csv`);
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    XDG_CONFIG_HOME: path.join(work, 'xdg'),
    TRIGGER_CONFIG_DIR: path.join(work, 'config'),
    TRIGGER_API_KEY: 'bench_key_not_secret_1234',
    TRIGGER_BASE_URL: url,
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    ...build.env,
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [build.bin, 'batch', input, '--failed', failed, '--quiet', ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // Bounded: a run that crawls is stopped (its rows are kept in the failed file).
    const timer = setTimeout(() => child.kill('SIGINT'), timeoutSeconds * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const failedRows = fs.existsSync(failed) ? Math.max(0, fs.readFileSync(failed, 'utf8').trim().split('\n').length - 1) : 0;
      resolve({ code, stderr, failedRows });
    });
  });
}

/**
 * Rows for a case: enough for `seconds` of all senders at once, after the staggered starts. A shard started first may hold the
 * whole limit until the last starts (that is what the case measures): sized for it so, or the window while all send is the last
 * one's first seconds (2-4 s on conn-50, where a shard 0.11x of the median was one still starting).
 */
function rowsFor(spec, seconds) {
  // conn-0 is sized at what this loaded machine reaches, else its staggered runs last minutes.
  const rate = spec.sizeAt ?? spec.allows;
  // Shards: at least five rounds of the rota's 2 s turns (four shards on a strict 20/s, 300 rows, all sent at once for 7 s: less
  // than one round, and a shard whose turn had not come yet was 0.08x of the median).
  const span = Math.max(seconds, spec.minSeconds ?? 0, spec.shards ? 40 : 0);
  if (!spec.shards) return Math.round(rate * span);
  const alone = ((spec.shards - 1) * spec.staggerMs) / 1000;
  return Math.round(rate * spec.shards * (alone + span / spec.shards));
}

/** Every input row accepted exactly once at the app? */
function countIds(accepted, rows) {
  const seen = new Uint16Array(rows);
  for (const { user } of accepted) {
    const i = Number(user.slice(4));
    if (user.startsWith('user') && i < rows) seen[i]++;
  }
  let missing = 0;
  let doubled = 0;
  for (const n of seen) {
    if (n === 0) missing++;
    if (n > 1) doubled++;
  }
  return { missing, doubled };
}

/** nginx's log: every answer, when (epoch ms), whether it pushed back, and for which user. */
function nginxLog(work) {
  const lines = fs.readFileSync(path.join(work, 'access.log'), 'utf8').trim().split('\n');
  return lines.map((line) => {
    const [msec, status, uri, took] = line.split(' ');
    const refused = status === '503' || status === '429';
    return { at: Number(msec) * 1000, refused, user: userOf(uri), took: Number(took) * 1000 };
  });
}

const refusedShare = (list) => (list.length ? (100 * list.filter((e) => e.refused).length) / list.length : 0);

/** The share of answers pushed back, overall and after the first 5 s. */
function pushedBack(entries) {
  const later = entries.filter((e) => e.at >= entries[0].at + 5000);
  return { requests: entries.length, all: refusedShare(entries), after5: refusedShare(later) };
}

/**
 * Per second from the first answer: each shard's rows accepted at the app and requests nginx pushed
 * back ("accepted/pushed"), then all shards'. What each shard's pace did, as the service saw it.
 */
function traceText(accepted, entries, count) {
  // The app takes a row before nginx logs its answer: the first row accepted may come first.
  const start = Math.min(entries[0].at, accepted[0]?.at ?? Infinity);
  const seconds = [];
  const cell = (at, user, column) => {
    const row = (seconds[Math.floor((at - start) / 1000)] ??= Array.from({ length: count + 1 }, () => [0, 0]));
    row[count === 1 ? 0 : shardOf(user, count)][column]++;
    if (count > 1) row[count][column]++;
  };
  for (const a of accepted) cell(a.at, a.user, 0);
  for (const e of entries) if (e.refused) cell(e.at, e.user, 1);
  const head = count === 1 ? 'all' : [...Array.from({ length: count }, (_, i) => `shard ${i + 1}`), 'all'].join('\t');
  const lines = [`s\t${head}\t(rows accepted/requests pushed back)`];
  for (let i = 0; i < seconds.length; i++) {
    const row = seconds[i] ?? Array.from({ length: count + 1 }, () => [0, 0]);
    const cells = count === 1 ? [row[0]] : row;
    lines.push(`${i}\t${cells.map((c) => `${c[0]}/${c[1]}`).join('\t')}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Per second from the first answer, per shard, what the client's side of the network saw (the
 * proxy's timing): "in flight/round trip/pushed back's/nginx/connections": the mean requests in
 * flight (the time each spent between its request line and its answer, summed over that second), the
 * mean round trip (ms, both 25 ms delays in it) of the accepted requests answered in it and of those
 * pushed back, the mean time nginx took for its answers then ($request_time: the app's time behind
 * it), and how many connections carried them.
 */
function roundTripText(exchanges, entries, count) {
  const start = Math.min(entries[0].at, exchanges[0]?.from ?? Infinity);
  const seconds = [];
  const empty = () => ({ busy: 0, ok: [], refused: [], took: [], conns: new Set() });
  const slot = (at, shard) => {
    const second = Math.max(0, Math.floor((at - start) / 1000));
    return (seconds[second] ??= Array.from({ length: count }, empty))[shard];
  };
  const shardIndex = (user) => (count === 1 ? 0 : shardOf(user, count));
  for (const x of exchanges) {
    const shard = shardIndex(x.user);
    for (let from = x.from; from < x.to; from = start + (Math.floor((from - start) / 1000) + 1) * 1000) {
      slot(from, shard).busy += Math.min(x.to, start + (Math.floor((from - start) / 1000) + 1) * 1000) - from;
    }
    const answered = slot(x.to, shard);
    (x.status === 503 || x.status === 429 ? answered.refused : answered.ok).push(x.to - x.from);
    answered.conns.add(x.connection);
  }
  for (const e of entries) slot(e.at, shardIndex(e.user)).took.push(e.took);
  const mean = (list) => (list.length ? (list.reduce((a, b) => a + b, 0) / list.length).toFixed(0) : '-');
  const cell = (c) => `${(c.busy / 1000).toFixed(1)}/${mean(c.ok)}/${mean(c.refused)}/${mean(c.took)}/${c.conns.size}`;
  const head = Array.from({ length: count }, (_, i) => (count === 1 ? 'all' : `shard ${i + 1}`)).join('\t');
  const lines = [`s\t${head}\t(in flight/round trip ms/pushed back's ms/nginx ms/connections)`];
  for (let i = 0; i < seconds.length; i++) lines.push(`${i}\t${(seconds[i] ?? Array.from({ length: count }, empty)).map(cell).join('\t')}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The shards' window: from the last shard's first accepted row to the first shard's last. Rows/s
 * together in it, and each shard's rows/s in it against the median shard.
 */
function shardWindow(accepted, entries, count) {
  const byShard = Array.from({ length: count }, () => []);
  for (const a of accepted) byShard[shardOf(a.user, count)].push(a.at);
  // A shard that got nothing accepted leaves no window.
  if (byShard.some((t) => t.length === 0)) return { seconds: 0, together: 0, spread: byShard.map(() => 0), pushed: 0 };
  const from = Math.max(...byShard.map((t) => t[0]));
  const to = Math.min(...byShard.map((t) => t.at(-1)));
  const seconds = (to - from) / 1000;
  const rates = byShard.map((t) => t.filter((at) => at >= from && at <= to).length / seconds);
  const sorted = [...rates].sort((a, b) => a - b);
  const median = (sorted[(count - 1) >> 1] + sorted[count >> 1]) / 2;
  return {
    seconds,
    together: rates.reduce((a, b) => a + b, 0),
    spread: rates.map((r) => r / median),
    pushed: refusedShare(entries.filter((e) => e.at >= from && e.at <= to)),
  };
}

/** One run of one case with one build: the figures, and the distinct stderr lines. */
async function runCase(spec, bin, args, seconds, traceName) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-pace-nginx-'));
  const app = await startApp(spec.appMs);
  const nginx = await startNginx(work, app.port, spec);
  const delay = process.env.PACE_NGINX_PROXY_INLINE ? await startDelay(nginx.port, spec) : await delayThread(nginx.port, spec);
  try {
    const rows = rowsFor(spec, seconds);
    const input = writeInput(work, rows);
    const url = `http://127.0.0.1:${delay.port}`;
    const started = performance.now();
    const count = spec.shards ?? 1;
    const results = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        await sleep(i * (spec.staggerMs ?? 0));
        // Separate batches: each its own file, split as --shard would (the traces and counts read rows by it).
        if (spec.separate) return batch(bin, url, writeInput(work, rows, i, count), args, work, i + 1);
        const shardArgs = spec.shards ? ['--shard', `${i + 1}/${count}`] : [];
        return batch(bin, url, input, [...shardArgs, ...args], work, i + 1);
      }),
    );
    const wall = (performance.now() - started) / 1000;
    const a = app.accepted;
    const whole = a.length > 1 ? ((a.length - 1) * 1000) / (a.at(-1).at - a[0].at) : 0;
    const entries = nginxLog(work);
    const exchanges = delay.server ? delay.exchanges : await delay.exchanges();
    if (traceDir && traceName) {
      fs.writeFileSync(path.join(traceDir, `${traceName}.txt`), traceText(a, entries, count));
      fs.writeFileSync(path.join(traceDir, `${traceName}.rt.txt`), roundTripText(exchanges, entries, count));
      // nginx's own lines too: an answer neither 200 nor a push-back (a 499, a 502) shows only there.
      fs.copyFileSync(path.join(work, 'access.log'), path.join(traceDir, `${traceName}.access.log`));
      // The proxy's own times (epoch ms) per request: request line in from the client, sent on to nginx, answer back.
      const proxied = exchanges.map(
        (x) => `${x.from.toFixed(3)} ${x.sent?.toFixed(3) ?? '-'} ${x.to.toFixed(3)} ${x.status} ${x.connection} ${x.user}`,
      );
      fs.writeFileSync(path.join(traceDir, `${traceName}.proxy.txt`), `${proxied.join('\n')}\n`);
    }
    return {
      rows,
      wall,
      accepted: a.length,
      perSecond: whole,
      window: spec.shards ? shardWindow(a, entries, count) : undefined,
      ids: countIds(a, rows),
      pushed: pushedBack(entries),
      failed: results.reduce((n, r) => n + r.failedRows, 0),
      codes: results.map((r) => r.code),
      stderr: [...new Set(results.flatMap((r) => r.stderr.split('\n')).filter(Boolean))],
    };
  } finally {
    nginx.child.kill('SIGTERM');
    if (delay.server) delay.server.close();
    else await delay.close();
    app.server.closeAllConnections();
    app.server.close();
    await new Promise((resolve) => (nginx.child.exitCode === null ? nginx.child.on('close', resolve) : resolve()));
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function describe(spec, r) {
  const rate = r.window ? r.window.together : r.perSecond;
  const share = `${rate.toFixed(0)} rows/s at the app (${((100 * rate) / spec.allows).toFixed(0)}% of ${spec.allows}/s)`;
  const window = r.window
    ? `, window ${r.window.seconds.toFixed(1)} s (pushed back in it ${r.window.pushed.toFixed(1)}%; ` +
      `whole run ${r.perSecond.toFixed(1)} rows/s, first to last accepted), ` +
      `shards x median ${r.window.spread.map((s) => s.toFixed(2)).join('/')}`
    : '';
  // Warnings first (a MaxListenersExceededWarning is what the issue saw), then a sample of the rest.
  const warnings = r.stderr.filter((line) => /Warning/.test(line));
  const shown = [...warnings, ...r.stderr.filter((line) => !/Warning/.test(line)).slice(0, 2)];
  const stderr = shown.length ? `\n    stderr (${r.stderr.length} distinct lines): ${shown.join(' | ')}` : '';
  return (
    `${share}${window}, pushed back ${r.pushed.all.toFixed(1)}% (after 5 s ${r.pushed.after5.toFixed(1)}%), ` +
    `${r.failed} failed, ${r.ids.missing} missing / ${r.ids.doubled} twice of ${r.rows}, ` +
    `wall ${r.wall.toFixed(1)} s, exit ${r.codes.join('/')}${stderr}`
  );
}

if (!isMainThread) {
  const delay = await startDelay(workerData.targetPort, workerData.spec);
  parentPort.once('message', () => parentPort.postMessage(delay.exchanges));
  parentPort.postMessage(delay.port);
  await new Promise(() => {}); // the proxy serves until the run ends it (worker.terminate)
}
const separator = process.argv.indexOf('--');
let names = (separator < 0 ? process.argv.slice(2) : process.argv.slice(2, separator)).filter(Boolean);
const extra = separator < 0 ? [] : process.argv.slice(separator + 1);
const seconds = Number(process.env.PACE_NGINX_SECONDS ?? 8);
const runs = Number(process.env.PACE_NGINX_RUNS ?? 1);
const timeoutSeconds = Number(process.env.PACE_NGINX_TIMEOUT ?? 180);
const traceDir = process.env.PACE_NGINX_TRACE;
if (traceDir) fs.mkdirSync(traceDir, { recursive: true });
// name=path[;VAR=value...]: a build, and what its environment adds (a switch an experiment reads).
const bins = (process.env.PACE_NGINX_BINS ?? `this=${path.join(root, 'bin', 'trigger.cjs')}`).split(',').map((entry) => {
  const [build, ...rest] = entry.split('=');
  const [bin, ...vars] = rest.join('=').split(';');
  return [build, { bin, env: Object.fromEntries(vars.map((v) => v.split('='))) }];
});
if (names.length === 0) names = Object.keys(LIMITS);
if (names.includes('all')) names = Object.keys(CASES);

/**
 * What the service allows in this run: its figure, or less where a fixed --concurrency measured beside
 * the builds got less (12 slots of 50 ms are 240/s on paper; this machine's app holds each longer).
 */
async function allowsNow(spec, build) {
  if (!spec.reference) return { allows: spec.allows, note: '' };
  const single = { ...spec, shards: undefined, staggerMs: 0 };
  const r = await runCase(single, build, spec.reference, seconds);
  return {
    allows: Math.min(spec.allows, Math.round(r.perSecond)),
    note: ` (${spec.reference.join(' ')} beside it: ${describe(single, r)})`,
  };
}

if (names[0] === 'sweep') {
  for (const [buildName, build] of bins) {
    for (const n of [32, 48, 64, 96]) {
      const r = await runCase(LIMITS['conn-0'], build, ['--concurrency', String(n)], seconds);
      console.log(`conn-0, ${buildName}, --concurrency ${n}: ${describe(LIMITS['conn-0'], r)}`);
    }
  }
} else {
  for (const name of names) {
    const spec = CASES[name];
    if (!spec) throw new Error(`no such case: ${name} (${Object.keys(CASES).join(', ')}, all, sweep)`);
    for (let run = 1; run <= runs; run++) {
      const { allows, note } = await allowsNow(spec, bins[0][1]);
      if (note) console.log(`${name} #${run}, what the service allows now${note}`);
      for (const [buildName, build] of bins) {
        const r = await runCase(spec, build, extra, seconds, `${name}-${buildName}-${run}`);
        const label = extra.length ? extra.join(' ') : 'auto';
        console.log(`${name}, ${label}, ${buildName} #${run}: ${describe({ ...spec, allows }, r)}`);
      }
    }
  }
}

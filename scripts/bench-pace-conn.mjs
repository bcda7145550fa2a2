/**
 * Issue 31's four shards on a limit on requests at once, on the simulated clock: nginx's
 * `limit_conn 12` (503 beyond) in front of an app answering after 50 ms (what it allows: 12 slots
 * over 50 ms, 240/s) or at once (the issue's "app at 0 ms": nginx still holds a slot for a few ms,
 * so 12 slots of 5 ms, 2,400/s, as bench-pace-sim.mjs's one-sender row), 25 ms of network each way.
 * Started together and 5 s apart. The rows have the shape of bench-pace-sim.mjs's; the six machines
 * are its: quiet seed 42, loaded 1-5.
 *
 * A busy client (four shards and a proxy on two loaded cores: answers seen later the more all four
 * have in flight) is what made real nginx's shards stay low; the rows with one reproduce it.
 *
 * node scripts/bench-pace-conn.mjs   (SEEDS=30 for loaded seeds 1-30; TRACE=1 prints each shard per second)
 */
import { fileURLToPath } from 'node:url';
import { loadSim, whileAllSend } from './bench-pace-sim.mjs';

const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Runs the cases on the quiet machine and loaded seeds 1..seeds; returns rows for the bench's table. */
export async function benchPaceConn({ seeds = 5, trace = false } = {}) {
  const sim = await loadSim();
  const machines = [{ loaded: false, seed: 42 }, ...Array.from({ length: seeds }, (_, i) => ({ loaded: true, seed: i + 1 }))];
  const rows = [];
  // The busy client (pace-sim.ts's busyClient): 2 ms later per request all four have in flight,
  // which reproduces real nginx's stuck-low shard (issue 31; docs/pace.md, "conn").
  for (const [appMs, lagMs] of [
    [50, 0],
    [50, 2],
    [5, 0],
  ]) {
    const allows = (12 * 1000) / appMs;
    for (const stagger of [0, 5_000]) {
      const rowsEach = (appMs === 50 ? 2_400 : 9_000) * (stagger ? 3 : 1);
      const got = machines.map(({ loaded, seed }) => {
        const plans = [0, 1, 2, 3].map((i) => ({ rows: rowsEach, startAt: i * stagger }));
        const slots = sim.networkedSlots(12, appMs, { jitterMs: loaded ? 2 : 0, seed });
        const service = lagMs ? sim.busyClient(slots, lagMs) : slots;
        const seen = trace ? watch(`app ${appMs} ms${lagMs ? ', busy client' : ''}, ${stagger / 1000} s apart, seed ${seed}`) : undefined;
        const results = sim.simulateSenders(service, plans, { loaded, seed, trace: seen?.trace });
        seen?.print(results);
        // The whole run, first start to last answer: what a shard left alone and slow costs.
        const whole = (4 * rowsEach * 1000) / Math.max(...results.map((r) => r.last)) / allows;
        return { ...whileAllSend(results), whole, worst: sim.worstSecond(results), done: results.every((r) => r.accepted === rowsEach) };
      });
      const least = stagger ? 0.8 : 0.85;
      const shares = got.map((g) => g.together / allows);
      const met = got.filter((g, i) => shares[i] >= least && g.low >= 0.5 && g.high <= 2 && g.done).length;
      const [quiet, ...loaded] = shares.map((s) => 100 * s);
      rows.push([
        `pace (simulated): 4 shards on 12 slots, app ${appMs} ms, 25 ms each way (${fmt(allows)}/s)${lagMs ? `, a busy client (+${lagMs} ms per request in flight)` : ''}, ${stagger ? '5 s apart' : 'together'}, ${fmt(rowsEach)} rows each`,
        `default (auto), quiet / loaded 1-${seeds}`,
        `while all four send: ${fmt(quiet)}% / ${fmt(Math.min(...loaded))}-${fmt(Math.max(...loaded))}% together; ` +
          `least shard ${fmt(Math.min(...got.map((g) => g.low)), 2)}x, most ${fmt(Math.max(...got.map((g) => g.high)), 2)}x of the median; ` +
          `whole run ${fmt(100 * got[0].whole)}% / ${fmt(100 * Math.min(...got.slice(1).map((g) => g.whole)))}-${fmt(100 * Math.max(...got.slice(1).map((g) => g.whole)))}% (median ${fmt(100 * median(got.map((g) => g.whole)))}%); ` +
          `worst second ${Math.min(...got.map((g) => g.worst))}-${Math.max(...got.map((g) => g.worst))} push-backs (median ${median(got.map((g) => g.worst))}); ` +
          `${got.filter((g) => !g.done).length} runs with a row not accepted`,
        `${met === got.length ? 'meets' : 'MISSES'} target: together >= ${least * 100}%, each shard 0.5x-2x of the median (met on ${met} of ${got.length})`,
      ]);
    }
  }
  // Shards that come back while their siblings fill the slots (1 s and 5 s apart, 7,200 rows each): a
  // shard that took their refusals for random ran at 64 in flight, half pushed back (item 19).
  for (const [shards, stagger] of [
    [4, 1_000],
    [8, 5_000],
  ]) {
    const got = machines.map(({ loaded, seed }) => {
      const plans = Array.from({ length: shards }, (_, i) => ({ rows: 7_200, startAt: i * stagger }));
      const results = sim.simulateSenders(sim.networkedSlots(12, 50, { jitterMs: loaded ? 2 : 0, seed }), plans, { loaded, seed });
      return { worst: sim.worstSecond(results), done: results.every((r) => r.accepted === 7_200) };
    });
    const worst = got.map((g) => g.worst);
    rows.push([
      `pace (simulated): ${shards} shards on 12 slots, app 50 ms, 25 ms each way (240/s), ${stagger / 1000} s apart, 7,200 rows each`,
      `default (auto), quiet / loaded 1-${seeds}`,
      `worst second ${Math.min(...worst)}-${Math.max(...worst)} push-backs (median ${median(worst)}); ${got.filter((g) => !g.done).length} runs with a row not accepted`,
      `${Math.max(...worst) < 150 && got.every((g) => g.done) ? 'meets' : 'MISSES'} target: no push-back storm (worst second under 150), every row accepted`,
    ]);
  }
  // One sender behind a jittery network (a hosted service over the internet), never pushed back: the round trip moves
  // with the jitter, not with the limit, so it is no queue (item 45; before it, 10-122 rows/s on some machines).
  for (const jitterMs of [30, 50]) {
    const allows = 64_000 / (55 + jitterMs);
    const got = machines.map(({ loaded, seed }) => sim.simulate(sim.networkedSlots(12, 5, { jitterMs, seed }), 4_000, { loaded, seed }));
    const shares = got.map((r) => (100 * r.perSecond) / allows);
    const met = got.filter((r, i) => shares[i] >= 85 && r.accepted === 4_000).length;
    rows.push([
      `pace (simulated): one sender on 12 slots, app 5 ms, 25 ms and up to ${jitterMs} ms of jitter each way (64 in flight: ${fmt(allows)}/s), 4,000 rows`,
      `default (auto), quiet / loaded 1-${seeds}`,
      `${fmt(got[0].perSecond)} / ${fmt(Math.min(...got.slice(1).map((r) => r.perSecond)))}-${fmt(Math.max(...got.slice(1).map((r) => r.perSecond)))} rows/s (median ${fmt(median(got.map((r) => r.perSecond)))}); ` +
        `pushed back at most ${Math.max(...got.map((r) => r.pushedBack))}`,
      `${met === got.length ? 'meets' : 'MISSES'} target: >= 85% of what 64 in flight allow, every row accepted (met on ${met} of ${got.length})`,
    ]);
  }
  // One sender, never pushed back, on a service that turns slower for everyone at 3 s (its backend degrades): from then
  // on `workers` taking `serviceMs` each, 25 ms each way, a queue beyond them. The fastest window of the first seconds
  // judged every later one a queue of ours, and the limit fell to one at a time for good (item 46: 7-10 rows/s).
  for (const [workers, serviceMs] of [
    [8, 50],
    [4, 100],
  ]) {
    const takes = (workers * 1000) / serviceMs;
    const got = machines.map(({ loaded, seed }) => {
      const free = new Array(workers).fill(0);
      const service = (t) => {
        if (t < 3_000) return { at: t + 50, answer: 0 };
        const worker = free.indexOf(Math.min(...free));
        free[worker] = Math.max(t + 25, free[worker]) + serviceMs;
        return { at: free[worker] + 25, answer: 0 };
      };
      let [sum, answers, accepted] = [0, 0, 0];
      const trace = (_, now, pace, answer) => {
        if (now < 20_000) return;
        [sum, answers, accepted] = [sum + pace.limit, answers + 1, accepted + (answer === 0 ? 1 : 0)];
      };
      sim.simulateSenders(service, [{ rows: 1e9 }], { loaded, seed, trace, limitMs: 30_000 });
      return { perSecond: accepted / 10, limit: sum / answers };
    });
    const met = got.filter((g) => g.perSecond >= 0.85 * takes).length;
    const range = (f, digits = 0) => `${fmt(Math.min(...got.map(f)), digits)}-${fmt(Math.max(...got.map(f)), digits)}`;
    rows.push([
      `pace (simulated): one sender, a service answering in 50 ms that turns slower for everyone at 3 s: ${workers} workers of ${serviceMs} ms, 25 ms each way (${fmt(takes)}/s), from 20 to 30 s`,
      `default (auto), quiet / loaded 1-${seeds}`,
      `${range((g) => g.perSecond)} rows/s; ${range((g) => g.limit, 1)} in flight (mean)`,
      `${met === got.length ? 'meets' : 'MISSES'} target: >= 85% of what it takes (met on ${met} of ${got.length})`,
    ]);
  }
  // The yardstick for the app 5 ms rows: four senders at fixed rates, no pace, a quarter of the
  // load each. On 5 ms slots 2 ms of jitter each way makes arrivals collide: what is carried then
  // costs a share refused that the pace does not tolerate (two in 100 answers).
  const loads = [0.85, 0.9, 0.95, 1];
  const carried = (jitterMs) =>
    loads
      .map((load) => {
        const { accepted, refused } = sim.fixedRates(
          sim.networkedSlots(12, 5, { jitterMs, seed: 1 }),
          [1, 2, 3, 4].map(() => (load * 2_400) / 4),
          20_000,
        );
        return `${fmt(load * 100)}%: ${fmt((100 * accepted) / (2_400 * 20))}% carried, ${fmt((100 * refused) / (accepted + refused), 1)}% refused`;
      })
      .join('; ');
  rows.push([
    'pace (simulated): a yardstick, no pace: 4 senders at fixed even rates on 12 slots, app 5 ms, 25 ms each way (2,400/s), 20 s',
    'offered (of 2,400/s): carried, refused',
    `no jitter: ${carried(0)}. 2 ms jitter each way: ${carried(2)}`,
    'what the app 5 ms rows can reach at the share refused they tolerate',
  ]);
  return rows;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * TRACE=1: each shard, second by second: accepted/pushed back, the limit's range and, under one at a
 * time, the widest gap between starts ("g", ms): what a shard crowded out sees, and where it goes.
 */
function watch(name) {
  const seconds = [];
  const trace = (who, now, pace, answer) => {
    const row = (seconds[Math.floor(now / 1000)] ??= []);
    const at = (row[who] ??= { accepted: 0, pushedBack: 0, low: pace.limit, high: pace.limit, gap: 0 });
    if (answer === 0) at.accepted++;
    if (answer === 1) at.pushedBack++;
    at.low = Math.min(at.low, pace.limit);
    at.high = Math.max(at.high, pace.limit);
    at.gap = Math.max(at.gap, pace.gapMs);
  };
  const print = (results) => {
    console.log(`${name} (accepted/pushed back, limit, gap)`);
    seconds.forEach((row, second) => {
      const shard = (at) => (at ? `${at.accepted}/${at.pushedBack} L${at.low}-${at.high}${at.gap ? ` g${Math.round(at.gap)}` : ''}` : '-');
      console.log(`  ${String(second).padStart(3)} s  ${results.map((_, who) => shard(row?.[who]).padEnd(20)).join('')}`);
    });
    results.forEach((r, who) =>
      console.log(`  shard ${who}: ${r.accepted} accepted, ${r.pushedBack} pushed back, limit ${r.lowest}-${r.highest}`),
    );
  };
  return { trace, print };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { table } = await import('./bench-lib.mjs');
  const rows = await benchPaceConn({ seeds: Number(process.env.SEEDS ?? 5), trace: Boolean(process.env.TRACE) });
  console.log(table(['what', 'case', 'figure', 'compared'], rows));
}

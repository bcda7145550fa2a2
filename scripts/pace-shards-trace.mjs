/**
 * Issue 31's diagnostic: the four shards of scripts/bench-pace-sim.mjs on one 400/s token bucket
 * (429 + Retry-After), on the simulated clock, printed per second: each shard's accepted events and
 * the limit (P: paused) each had at the last answer of each half second. Shows which shard starves
 * and in which regime of src/batch/pace.ts it sits.
 *
 * node scripts/pace-shards-trace.mjs   (SEED=42 quiet, 1-5 loaded; STAGGER=5000 starts them 5 s apart;
 * SERVICE=strict: four shards of 300 rows on the strict 20/s without burst instead, RA=1 with Retry-After: 1;
 * there each half second also shows the gap, G: ms, and pushed back/accepted)
 */
import { loadSim } from './bench-pace-sim.mjs';

const sim = await loadSim();

const seed = Number(process.env.SEED ?? 42);
const stagger = Number(process.env.STAGGER ?? 0);
const strict = process.env.SERVICE === 'strict';
const limits = {};
const loaded = seed !== 42;
const plans = [0, 1, 2, 3].map((i) => ({ rows: strict ? 300 : stagger ? 8_000 : 3_000, startAt: i * stagger }));
const retryAfterMs = process.env.RA ? 1_000 : undefined;
const service = strict ? sim.strictRate(20, { jitterMs: loaded ? 2 : 0, seed, retryAfterMs }) : sim.tokenBucket(400);
const results = sim.simulateSenders(service, plans, {
  loaded,
  seed,
  trace: (who, now, pace) => {
    const gap = strict ? `G${Math.round(pace.gapMs)}` : '';
    (limits[Math.floor(now / 500)] ??= {})[who] = `${pace.limit}${gap}${pace.pausedUntil > now ? 'P' : ''}`;
  },
});
const perSecond = {};
results.forEach((r, who) => r.acceptedAt.forEach((t) => ((perSecond[Math.floor(t / 1000)] ??= [0, 0, 0, 0])[who] += 1)));
for (const [second, counts] of Object.entries(perSecond)) {
  const halves = [0, 1].map((h) => JSON.stringify(limits[2 * Number(second) + h] ?? {}));
  console.log(`${second} s\t${counts.join('\t')}\t| limits ${halves.join(' ')}`);
}
console.log(
  results.map((r, who) => `shard ${who}: ${r.accepted} accepted, ${r.pushedBack} pushed back, limit ${r.lowest}-${r.highest}`).join('\n'),
);

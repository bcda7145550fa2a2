/**
 * What a sender that knows the service could do with a fixed plan, under the simulated conditions of the
 * bench-pace-sim rows that miss (issue 31): the reference printed beside them. No pace: `senders` at one
 * constant period each, together one start every `spacing` ms, their phases spread evenly (an oracle's best
 * case: shards that cannot talk have no such agreement) or, with `phases: 'random'`, at random. Each start
 * leaves as the simulator's timers do (late by up to `lateMs` at random, simulateSenders' late client; with
 * `timersLate`, also held up as the loaded machine holds answers, pace-sim's clientDelay) and goes to the
 * row's own service (its round trip, jitter or path, the limit's whole milliseconds). A refusal is not sent
 * again (the rate does not depend on which row a start carries). With `pause`, a refusal's Retry-After, seen
 * when its answer comes back, holds every start until it is over (a shared pause). With `shiftMs`, a sender
 * told of a refusal (a round trip late) moves its own schedule later by a random part of that: the
 * self-organised slots of docs/pace.md's fourteenth pass, an estimate of what reacting to refusals adds. With
 * `clocked`, each sender's next start is a period after its last one left, not after the last one was due. With
 * `staggerMs`, the senders start that far apart, and only what comes once all of them send is counted.
 *
 * Run alone (`node scripts/pace-bound.mjs`) it prints the figures of the note, finer than the bench's.
 */
import { fileURLToPath } from 'node:url';

/** src/batch/pace.ts's Answer.Accepted. */
const ACCEPTED = 0;

/** The fewest and most accepted of one sender against the median sender's. */
function shares(counts) {
  const sorted = [...counts].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(mid)] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { low: median ? sorted[0] / median : 0, high: median ? sorted.at(-1) / median : Infinity };
}

/** Accepted and refused starts of a fixed plan in `durationMs`, and the senders' shares (see the header). */
export function fixedPlan(
  sim,
  service,
  {
    spacing,
    senders = 1,
    durationMs = 60_000,
    lateMs = 0,
    seed = 1,
    timersLate = false,
    pause = false,
    phases = 'even',
    shiftMs = 0,
    clocked = false,
    staggerMs = 0,
  },
) {
  const period = spacing * senders;
  // Started `staggerMs` apart, each at the first start of its phase after its own start; counted once all send.
  const from = (senders - 1) * staggerMs;
  const after = (who) => Math.ceil((who * staggerMs) / period) * period;
  const random = sim.numbers(seed * 977);
  // The plan's first start at a random moment of its first spacing (whole milliseconds are not the plan's to pick).
  const phase = random() * spacing;
  const lanes = Array.from({ length: senders }, (_, who) => ({
    nominal: after(who) + (phases === 'even' ? phase + who * spacing : random() * period),
    late: sim.numbers(seed * 17 + who),
    held: timersLate ? sim.clientDelay(true, seed * 13 + who) : (t) => t,
    sentAt: 0,
    accepted: 0,
    told: [],
    shiftedAt: -Infinity,
  }));
  const leaves = (lane) => Math.max(lane.sentAt, lane.held(lane.nominal + lateMs * lane.late()));
  for (const lane of lanes) lane.at = leaves(lane);
  const waiting = []; // refusals with a Retry-After whose answers have not come back yet
  let [accepted, refused, pausedUntil] = [0, 0, 0];
  for (;;) {
    let lane = lanes[0];
    for (const l of lanes) if (l.at < lane.at) lane = l;
    const t = lane.at;
    if (t > from + durationMs) return { accepted, refused, shares: shares(lanes.map((l) => l.accepted)) };
    while (waiting.length && waiting[0].at <= t) pausedUntil = Math.max(pausedUntil, waiting.shift().until);
    if (t < pausedUntil) {
      // Every sender starts again at its first start after the pause, its phase kept.
      for (const l of lanes) {
        if (l.nominal < pausedUntil) l.nominal += Math.ceil((pausedUntil - l.nominal) / period) * period;
        l.at = leaves(l);
      }
      continue;
    }
    if (shiftMs && lane.told.length && lane.told[0].at <= t) {
      // Told of a refusal of a start sent since it last moved: it moves, once a round trip.
      const { sent } = lane.told.shift();
      if (sent > lane.shiftedAt) {
        lane.nominal += random() * shiftMs;
        lane.shiftedAt = t;
        lane.at = leaves(lane);
      }
      continue;
    }
    const verdict = service(t, 0);
    const counted = t >= from ? 1 : 0;
    if (verdict.answer === ACCEPTED) {
      accepted += counted;
      lane.accepted += counted;
    } else {
      refused += counted;
      if (pause && verdict.retryAfterMs) {
        waiting.push({ at: verdict.at, until: verdict.at + verdict.retryAfterMs });
        waiting.sort((a, b) => a.at - b.at);
      }
      if (shiftMs) {
        lane.told.push({ at: verdict.at, sent: t });
        lane.told.sort((a, b) => a.at - b.at);
      }
    }
    lane.sentAt = t;
    lane.nominal = (clocked ? t : lane.nominal) + period;
    lane.at = leaves(lane);
  }
}

/**
 * The best a fixed plan does against `service(seed)` (pooled over `seeds`, `durationMs` each): for each share in `caps`,
 * the most accepted a second with no more of its starts refused, that share, the spacing and the senders' least and most
 * share of the median's (over the seeds); and for each of `targets` (a second), the least share refused among the
 * spacings that reach it (`reach`, 1 when none does). Spacings `stepMs` apart from the least that can keep within the
 * widest cap (the limit's slot less that share; a tenth of it given targets) up, until no wider one can beat the best
 * found and reach every target.
 */
export function bestPlan(
  sim,
  service,
  plan,
  { perSecond, caps = [0.05], targets = [], seeds = [1, 2, 3], durationMs = 20_000, stepMs = 0.1 },
) {
  const senders = plan.senders ?? 1;
  const best = caps.map(() => ({ perSecond: 0, refused: 0, spacing: 0, low: 0, high: Infinity }));
  const reach = targets.map(() => 1);
  for (let spacing = Math.max(0.1, targets.length ? 0 : 1 - Math.max(...caps)) * (1000 / perSecond); ; spacing += stepMs) {
    // Each run sends at most durationMs / spacing + senders starts.
    const most = 1000 / spacing + (1000 * senders) / durationMs;
    if (most < Math.min(...best.map((b) => b.perSecond), ...targets) || spacing > 3000 / perSecond) return { best, reach };
    let [accepted, refused, low, high] = [0, 0, Infinity, 0];
    for (const seed of seeds) {
      const run = fixedPlan(sim, service(seed), { ...plan, spacing, seed, durationMs });
      [accepted, refused] = [accepted + run.accepted, refused + run.refused];
      [low, high] = [Math.min(low, run.shares.low), Math.max(high, run.shares.high)];
    }
    const [rate, share] = [(accepted * 1000) / (durationMs * seeds.length), refused / (accepted + refused)];
    caps.forEach((cap, i) => {
      if (share <= cap && rate > best[i].perSecond) best[i] = { perSecond: rate, refused: share, spacing, low, high };
    });
    targets.forEach((target, i) => {
      if (rate >= target) reach[i] = Math.min(reach[i], share);
    });
  }
}

/** The note's figures: each row that misses, quiet, loaded and loaded with its timers held up as its answers. */
async function main() {
  const { loadSim } = await import('./bench-pace-sim.mjs');
  const { table } = await import('./bench-lib.mjs');
  const sim = await loadSim();
  const pct = (n) => `${(100 * n).toFixed(1)}%`;
  const rows = [];
  // [row, limit a second, the service's options, the plan, the target share, its step]
  const cases = [
    ['one sender, strict 50/s', 50, {}, {}, 0.85],
    ['one sender, strict 100/s, Retry-After: 1, only the refused row waits', 100, { retryAfterMs: 1_000 }, {}, 0.85],
    ['one sender, strict 100/s, Retry-After: 1, each refusal pauses every start', 100, { retryAfterMs: 1_000 }, { pause: true }, 0.85],
    ['4 shards, strict 100/s, phases spread evenly', 100, {}, { senders: 4 }, 0.85],
    ['4 shards, strict 100/s, phases at random', 100, {}, { senders: 4, phases: 'random' }, 0.85],
    ['4 shards, strict 100/s, phases moved 0-1.5 ms on a refusal', 100, {}, { senders: 4, phases: 'random', shiftMs: 1.5 }, 0.85],
    ['4 shards, strict 100/s, phases moved 0-10 ms on a refusal', 100, {}, { senders: 4, phases: 'random', shiftMs: 10 }, 0.85],
    ['4 shards, strict 20/s, client 40 ms late, phases spread evenly', 20, {}, { senders: 4, lateMs: 40 }, 0.85, 0.25],
    ['4 shards, strict 20/s, client 40 ms late, ONE sender spaced from its last start', 20, {}, { lateMs: 40, clocked: true }, 0.85, 0.25],
    ['4 shards, strict 20/s (slow start not read), phases spread evenly', 20, {}, { senders: 4 }, 0.85, 0.25],
  ];
  for (const [row, perSecond, service, plan, target, stepMs = 0.1] of cases)
    for (const [machine, jitterMs, timersLate] of [
      ['quiet', 0, false],
      ['loaded', 2, false],
      ['loaded, timers late', 2, true],
    ]) {
      const { best, reach } = bestPlan(
        sim,
        (seed) => sim.strictRate(perSecond, { ...service, jitterMs, seed }),
        { ...plan, timersLate },
        {
          ...{ perSecond, caps: [0.05, 0.5], targets: [target * perSecond], stepMs },
        },
      );
      const at = (b) =>
        `${pct(b.perSecond / perSecond)} (${pct(b.refused)} refused, ${b.spacing.toFixed(2)} ms, ${b.low.toFixed(2)}x-${b.high.toFixed(2)}x)`;
      rows.push([row, machine, at(best[0]), at(best[1]), reach[0] < 1 ? pct(reach[0]) : 'never']);
    }
  console.log(table(['row', 'machine', 'best at <= 5% refused', 'best at <= 50% refused', `${85}% of the limit at`], rows));
}

// Not awaited at the top: bench-pace-sim.mjs, which main() imports, imports this module.
if (process.argv[1] === fileURLToPath(import.meta.url)) void main();

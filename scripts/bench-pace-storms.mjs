/**
 * Issue 31's storm check, on the simulated clock: every strict-limit case of bench-pace-sim.mjs
 * (one sender on a strict 20/s; four shards, together and 5 s apart, with and without Retry-After)
 * and a service refusing 30%, 50% and 67% at random without Retry-After, on the quiet machine (seed 42)
 * and loaded seeds 1-SEEDS (default 5). Per case: the worst second's push-backs (all senders), the
 * share pushed back after 5 s, and for the random ones the wall against --concurrency 8.
 *
 * node scripts/bench-pace-storms.mjs   (SEEDS=30 for seeds 1-30)
 */
import { loadSim } from './bench-pace-sim.mjs';

const sim = await loadSim();
const seeds = [42, ...Array.from({ length: Number(process.env.SEEDS ?? 5) }, (_, i) => i + 1)];
const machine = (seed) => ({ loaded: seed !== 42, seed, jitterMs: seed !== 42 ? 2 : 0 });

function lateShare(results, from) {
  const late = results.flatMap((r) => r.pushedBackAt.filter((t) => t >= from)).length;
  const answers = results.reduce((sum, r) => sum + r.acceptedAt.filter((t) => t >= from).length, 0) + late;
  return late / Math.max(1, answers);
}

const cases = [
  ['strict 20/s, one sender', (m) => [sim.simulate(sim.strictRate(20, m), 300, m)]],
  ...[undefined, 1_000].flatMap((retryAfterMs) =>
    [0, 5_000].map((stagger) => [
      `4 shards, strict 20/s, ${retryAfterMs ? 'Retry-After' : 'no Retry-After'}, ${stagger ? '5 s apart' : 'together'}`,
      (m) =>
        sim.simulateSenders(
          sim.strictRate(20, { ...m, retryAfterMs }),
          [0, 1, 2, 3].map((i) => ({ rows: 300, startAt: i * stagger })),
          m,
        ),
    ]),
  ),
];
for (const [name, run] of cases) {
  const got = seeds.map((seed) => {
    const results = run(machine(seed));
    return { worst: sim.worstSecond(results), late: lateShare(results, 5_000), done: results.every((r) => r.accepted === 300) };
  });
  const worst = got.map((g) => g.worst);
  const late = got.map((g) => (100 * g.late).toFixed(0));
  console.log(
    `${name}: worst second ${worst.join(' ')} (max ${Math.max(...worst)}); pushed back after 5 s % ${late.join(' ')}; unfinished ${got.filter((g) => !g.done).length}`,
  );
}
for (const share of [0.3, 0.5, 0.67]) {
  const got = seeds.map((seed) => {
    const m = machine(seed);
    const auto = sim.simulate(sim.refusingAtRandom(share, seed * 3 + 1, 50, null), 1_000, m);
    const fixed = sim.fixedConcurrency(sim.refusingAtRandom(share, seed * 3 + 1, 50, null), 1_000, 8);
    return { ratio: auto.last / fixed.wallMs, done: auto.accepted === 1_000, worst: sim.worstSecond([auto]) };
  });
  console.log(
    `${Math.round(share * 100)}% at random, no Retry-After, 1,000 rows: wall x --concurrency 8 ${got.map((g) => (g.done ? g.ratio.toFixed(2) : 'UNF')).join(' ')}; met ${got.filter((g) => g.done && g.ratio <= 2).length} of ${got.length}`,
  );
}

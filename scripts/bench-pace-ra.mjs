/**
 * Issue 31, a strict 100/s that sends Retry-After: what four shards can take of it, on the simulated clock.
 * The issue asks four shards for 85% of a shared limit; on a strict 20/s with Retry-After they take 90%, on a
 * strict 100/s about 41%. This prints why (tenth pass, ra): a strict limit without burst takes one request per
 * 10 ms slot, and requests that arrive at random are taken at about n/(1 + n x 10 ms) for n a second sent.
 * - lanes: n requests in flight, the next sent as each answer comes, refusals ignored (no wait at all): the most
 *   that senders which do not space their starts can take (on the quiet machine, with no jitter, lanes started
 *   within a millisecond stay in one slot: 20/s, the low end of each range);
 * - pace: one sender and four shards, 1,500 rows each, with and without Retry-After: with it the batch is not
 *   paced (docs/choices.md: a service that sends Retry-After takes bursts) and stays at one at a time.
 * - two shards 10 s apart: the first has the limit to itself for 10 s first (paced by then, item 49, with Retry-After too).
 * - four shards 5 s apart (issue 31's storm on a strict 100/s; 3,000 rows each, so that all four overlap even when the
 *   first takes the whole limit): fair where each shard is 0.5x-2x of the median (the storms bench's rule).
 * Quiet machine (seed 42) and loaded seeds 1-SEEDS (default 5): the median and the range.
 *
 * node scripts/bench-pace-ra.mjs   (SEEDS=30 for seeds 1-30)
 */
import { loadSim, whileAllSend } from './bench-pace-sim.mjs';

const sim = await loadSim();
const seeds = [42, ...Array.from({ length: Number(process.env.SEEDS ?? 5) }, (_, i) => i + 1)];
const machine = (seed) => ({ loaded: seed !== 42, seed, jitterMs: seed !== 42 ? 2 : 0 });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const figure = (values) => `${median(values).toFixed(1)}/s (${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)})`;

for (const inFlight of [1, 2, 4, 8, 16]) {
  const taken = seeds.map((seed) => {
    // Refused answers carry the Retry-After; taken ones do not.
    const service = sim.strictRate(100, { ...machine(seed), retryAfterMs: 1_000 });
    const next = Array.from({ length: inFlight }, (_, i) => i * 0.7);
    let accepted = 0;
    let sent = 0;
    for (;;) {
      next.sort((a, b) => a - b);
      const t = next.shift();
      if (t > 60_000) break;
      const verdict = service(t, 0);
      sent++;
      if (verdict.retryAfterMs === undefined) accepted++;
      next.push(verdict.at);
    }
    return { accepted: accepted / 60, sent: sent / 60 };
  });
  console.log(
    `strict 100/s, ${inFlight} in flight, no waits: ${figure(taken.map((r) => r.accepted))} taken, ${figure(taken.map((r) => r.sent))} sent`,
  );
}
for (const retryAfterMs of [1_000, undefined]) {
  for (const senders of [1, 4]) {
    const together = seeds.map((seed) => {
      const m = machine(seed);
      const results = sim.simulateSenders(
        sim.strictRate(100, { ...m, retryAfterMs }),
        Array.from({ length: senders }, () => ({ rows: 1_500 })),
        m,
      );
      const from = Math.max(...results.map((r) => r.first));
      const to = Math.min(...results.map((r) => r.last));
      return (results.reduce((sum, r) => sum + r.acceptedAt.filter((t) => t >= from && t <= to).length, 0) * 1000) / (to - from);
    });
    const name = `${senders === 1 ? 'one sender' : `${senders} shards`}, ${retryAfterMs ? 'Retry-After: 1' : 'no Retry-After'}`;
    console.log(`strict 100/s, ${name}, 1,500 rows each: ${figure(together)} together while all send`);
  }
}
// A shard that starts when another has had the limit to itself for 10 s (item 49: that one is paced by then, with or
// without Retry-After): both together while both send, and the lower shard's accepted over the higher's. And two separate
// batches (no --shard) so: item 49 paces the first with Retry-After too; when the last row of both is accepted.
for (const shared of [true, false]) {
  for (const retryAfterMs of [1_000, undefined]) {
    const got = seeds.map((seed) => {
      const m = machine(seed);
      const results = sim.simulateSenders(
        sim.strictRate(100, { ...m, retryAfterMs }),
        [0, 1].map((i) => ({ rows: 3_000, startAt: i * 10_000 })),
        { ...m, limitMs: 400_000, shared },
      );
      const from = Math.max(...results.map((r) => r.first));
      const to = Math.min(...results.map((r) => r.last));
      const counts = results.map((r) => r.acceptedAt.filter((t) => t >= from && t <= to).length);
      const share = Math.min(...counts) / Math.max(...counts);
      return { together: ((counts[0] + counts[1]) * 1000) / (to - from), share, last: Math.max(...results.map((r) => r.last)) / 1000 };
    });
    const what = shared ? '2 shards' : '2 separate batches';
    const last = shared
      ? ''
      : `, the last row at ${median(got.map((g) => g.last)).toFixed(0)} s (${Math.max(...got.map((g) => g.last)).toFixed(0)} at most)`;
    console.log(
      `strict 100/s, ${what} 10 s apart, ${retryAfterMs ? 'Retry-After: 1' : 'no Retry-After'}, 3,000 rows each: ${figure(got.map((g) => g.together))} together while both send, the lower ${got.map((g) => g.share.toFixed(2)).join(' ')} of the higher${last}`,
    );
  }
}
// Four shards 5 s apart (the storms bench's fairness on a strict 100/s): machines where every shard is 0.5x-2x of the median.
for (const retryAfterMs of [1_000, undefined]) {
  const got = seeds.map((seed) => {
    const m = machine(seed);
    const results = sim.simulateSenders(
      sim.strictRate(100, { ...m, retryAfterMs }),
      [0, 1, 2, 3].map((i) => ({ rows: 3_000, startAt: i * 5_000 })),
      { ...m, limitMs: 400_000 },
    );
    return whileAllSend(results);
  });
  const fair = got.filter((g) => g.low >= 0.5 && g.high <= 2).length;
  console.log(
    `strict 100/s, 4 shards 5 s apart, ${retryAfterMs ? 'Retry-After: 1' : 'no Retry-After'}, 3,000 rows each: ${figure(got.map((g) => g.together))} together while all send, fair on ${fair} of ${got.length} (${got.map((g) => `${g.low.toFixed(2)}-${g.high.toFixed(2)}`).join(' ')})`,
  );
}
// Beside another client that sends at a fixed 50 or 80/s (another team's job with --rate, not a shard of ours), with
// Retry-After: what one batch of 600 rows takes, and how hard it pushes against the Retry-After (push-backs a second
// over the run, and in its worst 10 s). The other client's requests count in the limit as ours do.
for (const theirs of [50, 80]) {
  const got = seeds.map((seed) => {
    const m = machine(seed);
    const inner = sim.strictRate(100, { ...m, retryAfterMs: 1_000 });
    let next = 0;
    const service = (t, x) => {
      for (; next <= t; next += 1000 / theirs) inner(next, 0);
      return inner(t, x);
    };
    const [r] = sim.simulateSenders(service, [{ rows: 600 }], { ...m, limitMs: 120_000 });
    const seconds = Math.max(1, r.last - r.first) / 1000;
    const tens = Array.from(
      { length: Math.ceil(r.last / 10_000) },
      (_, i) => r.pushedBackAt.filter((t) => t >= i * 10_000 && t < (i + 1) * 10_000).length,
    );
    return { taken: r.acceptedAt.length / seconds, pushed: r.pushedBackAt.length / seconds, worst: Math.max(0, ...tens) / 10 };
  });
  console.log(
    `strict 100/s, Retry-After: 1, one batch beside another client at ${theirs}/s: ${figure(got.map((g) => g.taken))} taken, ${figure(got.map((g) => g.pushed))} push-backs a second over the run, ${figure(got.map((g) => g.worst))} in its worst 10 s`,
  );
}

/**
 * Issue 31, fifteenth pass (item 57): four shards of one batch on a strict 20/s, their processes slow as they start
 * (answers seen up to 40 ms late in each shard's first 2 s). Item 41 brings a shard's relay gap down with the round
 * trip once it falls a tenth under the one the gap was set from; but one at a time a window is one answer, and the
 * first after a slow start-up may still be late (57 ms at a 52 ms round trip): the gap came down to 63 ms and stayed,
 * inside item 41's tenth, while the others' were 57-58 ms. The relay favours the narrowest gap: that shard took 0.16x
 * of the median. Among shards, a gap item 41 brought down follows the fastest round trip on down (within NOISE_MS).
 * Shards that share the limit at once, off the rota (slots held at once, or before the rota knows the limit is a rate): on a
 * strict rate they take turns (pace-shards-rota; bench-pace-sim's "slow as it starts" rows hold its figures), where no relay
 * gap is kept. On the simulated clock; no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { simulateSenders, strictRate, whileAllSend } from './pace-sim.js';

function run(seed: number, stagger: number, gaps?: number[][]) {
  const loaded = seed !== 42;
  const plans = [0, 1, 2, 3].map((i) => ({ rows: 300, startAt: i * stagger }));
  return simulateSenders(strictRate(20, { jitterMs: loaded ? 2 : 0, seed }), plans, {
    loaded,
    seed,
    startLateMs: 40,
    rota: false,
    trace: (who, now, pace) => {
      if (gaps && now >= 20_000 && pace.gapMs > 0) gaps[who]!.push(pace.gapMs);
    },
  });
}

describe('four shards on a strict 20/s, slow as they start', () => {
  it.each([4, 5])('together, seed %i: from 20 s on, the four relay gaps within 1 ms of each other', (seed) => {
    const gaps: number[][] = [[], [], [], []];
    run(seed, 0, gaps);
    const medians = gaps.map((g) => g.sort((a, b) => a - b)[g.length >> 1]!);
    // 57.7-58.3 ms; without the rule 58.2-61.8 (seed 5) and 59.6-64.0 (seed 4).
    expect(Math.max(...medians) - Math.min(...medians), medians.join(', ')).toBeLessThanOrEqual(1);
  });

  it('together, on every machine: at least 85% of the limit while all four send', () => {
    // 17.2-17.5/s; without the rule 16.7-16.9 on seeds 2, 4 and 5.
    for (const seed of [42, 1, 2, 3, 4, 5]) expect(whileAllSend(run(seed, 0)).together, `seed ${seed}`).toBeGreaterThanOrEqual(17);
  });

  it('5 s apart, seed 5: the shard started last is not starved', () => {
    // Its gap stayed at 63 ms (the others' 57-58): 0.16x of the median without the rule, 0.45x with it.
    const results = run(5, 5_000);
    expect(whileAllSend(results).low).toBeGreaterThan(0.4);
    expect(results.every((r) => r.accepted === 300)).toBe(true);
  });

  it('a service slower for good after the start-up (+40 ms from 15 s): the gap follows no round trip it is no longer near', () => {
    // Following the fastest round trip while the service was 40 ms slower for everyone held one shard's gap under the others'
    // (78 ms against 100-104: the relay favoured it): least share 0.51x on seed 4; 0.85x once it follows only near the base.
    const seed = 4;
    const inner = strictRate(20, { jitterMs: 2, seed });
    const slower = (t: number, who: number) => {
      const verdict = inner(t, who);
      return t + 25 >= 15_000 ? { ...verdict, at: verdict.at + 40 } : verdict;
    };
    const plans = [0, 1, 2, 3].map(() => ({ rows: 600 }));
    const results = simulateSenders(slower, plans, { loaded: true, seed, startLateMs: 40, rota: false });
    expect(whileAllSend(results).low).toBeGreaterThan(0.7);
    expect(results.every((r) => r.accepted === 600)).toBe(true);
  });
});

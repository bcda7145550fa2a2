/**
 * Issue 31, thirteenth pass (shards13b): four shards of one batch on a strict 20/s, their processes slow as they start
 * (answers seen up to 40 ms late in each shard's first 2 s, counted in the round trip). Each shard's relay gap is set
 * from those stretched round trips; item 41 brings it down with the round trip, unless the shard's own limit refused
 * it. A refusal "early" against the spacings of its slow start (a start-up stretches them too) was taken for its own
 * limit, and the gap stayed up for the whole run (78 ms at a 50-53 ms round trip: one shard holding the slot at 13/s).
 * Shards that share the limit at once, off the rota (slots held at once, or before the rota knows the limit is a rate):
 * on a strict rate they take turns (pace-shards-rota), where no relay gap is kept. On the simulated clock; no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { simulateSenders, strictRate } from './pace-sim.js';

describe('four shards on a strict 20/s, slow as they start', () => {
  it.each([42, 1, 2, 3, 4, 5])('seed %i: from 20 s on, no shard keeps a gap its start-up stretched', (seed) => {
    const loaded = seed !== 42;
    const widest = [0, 0, 0, 0];
    const plans = [0, 1, 2, 3].map(() => ({ rows: 300 }));
    simulateSenders(strictRate(20, { jitterMs: loaded ? 2 : 0, seed }), plans, {
      loaded,
      seed,
      startLateMs: 40,
      rota: false,
      trace: (who, now, pace) => {
        if (now >= 20_000) widest[who] = Math.max(widest[who]!, pace.gapMs);
      },
    });
    // The relay's gap is a tenth over the round trip (50-54 ms here), 55-64 ms; without the rule, 78 ms on seed 5.
    for (const gap of widest) expect(gap).toBeLessThan(70);
  });
});

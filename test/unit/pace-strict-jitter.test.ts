/**
 * Issue 31, item 30 of docs/pace.md (the reviewer's cost 3 of the ninth pass): a sender alone on a jittery
 * network (round trips 36-52 ms: 18 ms each way and up to 8 ms more at random) under a strict limit, on the
 * simulated clock. Its gap at one at a time sits at 1.1 round trips, under the limit's 50 ms spacing, so its
 * own limit refuses it now and then at a spacing it was accepted at before: item 22 took those refusals for
 * others' slots, and the relay kept the gap for good. Every test here fails on 6b7c0fb.
 */
import { describe, expect, it } from 'vitest';
import { simulate, strictRate } from './pace-sim.js';

const jittery = { oneWayMs: 18, jitterMs: 8 };

describe('a sender alone on a strict 20/s, round trips 36-52 ms', () => {
  it.each([5, 6, 9])('sends 500 rows within 40 s, under 100 pushed back (loaded seed %i; before: 59-64 s, 262-289)', (seed) => {
    const result = simulate(strictRate(20, { ...jittery, seed }), 500, { loaded: true, seed });
    expect(result.accepted).toBe(500);
    // Before: refused every few starts at its 49 ms gap for the whole run, each refusal a probe 1.5-4.5 round trips later.
    expect(result.last).toBeLessThan(40_000);
    expect(result.pushedBack).toBeLessThan(100);
  });
});

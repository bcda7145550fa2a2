/**
 * --concurrency auto against a service that slows with its load and once answered 503 without
 * Retry-After (a deploy, a cold start), on the simulated clock. Paced, a round trip with no push-back
 * grows the limit by one (docs/pace.md, "Many in flight"), but only up to twice the base: past that
 * the round trip counts again. Without the bound the limit climbed to the maximum, the answers took
 * seconds and a run with --timeout 2 stopped early with rows of unknown outcome (the review of 92d55a6).
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { simulate, type Service } from './pace-sim.js';

/** Answers after 30 ms + 1 ms x (requests in flight)^2; the first three are 503 without Retry-After. */
function slowingWithLoad(): Service {
  const out: number[] = [];
  let seen = 0;
  return (t) => {
    for (let i = out.length - 1; i >= 0; i--) if (out[i]! <= t) out.splice(i, 1);
    const at = t + 30 + out.length ** 2;
    out.push(at);
    return { at, answer: seen++ < 3 ? Answer.PushedBack : Answer.Accepted };
  };
}

describe('a service that slows with its load, after a 503 without Retry-After', () => {
  it.each([42, 1, 2, 3])('seed %s: the limit stays where the round trip is under twice the base', (seed) => {
    const result = simulate(slowingWithLoad(), 1_500, { loaded: seed !== 42, seed });
    expect(result.accepted).toBe(1_500);
    // 30 + n^2 ms is twice the base (31 ms) at n = 6, and the round trip holds it from there (one more a
    // round trip is in flight before its answers say so); before the bound it reached 64 (answers over 4 s).
    expect(result.highest, `highest ${result.highest}`).toBeLessThanOrEqual(24);
  });
});

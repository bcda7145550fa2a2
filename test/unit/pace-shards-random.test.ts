/**
 * Shards of a matrix on a service that refuses a share of requests at random, whatever the pace (no limit; the flaky
 * service): refusals as fast as acceptances read as a strict rate (#strictRate), and the shards went on the rota, where each
 * crawled one at a time in its own turns (real binary, 4 shards, half refused: 2 rows/s each, three of four not done in 120 s;
 * one batch of all the rows: 13 s). In its own turn a shard sends alone, and a rate seldom refuses a start spaced as far as
 * most it got in: refused there as often as anywhere, it leaves the rota for good (#ownTurn). Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { fixedConcurrency, numbers, refusingAtRandom, simulateSenders, strictRate } from './pace-sim.js';

describe('shards on a service refusing at random', () => {
  it('half or two in three refused: the last shard done within 2x of one with --concurrency 8 (was 0.2-3.6x, or none in 400 s)', () => {
    for (const share of [0.5, 0.67])
      for (const seed of [1, 2, 3]) {
        const service = () => refusingAtRandom(share, seed * 3 + 1, 50, null);
        const results = simulateSenders(
          service(),
          [0, 1, 2, 3].map(() => ({ rows: 1_500 })),
          { loaded: true, seed, limitMs: 400_000 },
        );
        const ratio = Math.max(...results.map((r) => r.last)) / fixedConcurrency(service(), 1_500, 8).wallMs;
        const accepted = results.map((r) => r.accepted);
        expect({ share, seed, accepted, fast: ratio <= 2 }).toEqual({ share, seed, accepted: [1_500, 1_500, 1_500, 1_500], fast: true });
      }
  });

  it('on a strict rate, slow or with 1% refused at random, every shard stays on the rota: its answers in its own turns', () => {
    // Left when it should not, a shard sends in the others' turns too. Judged on 40 answers rather than 80, a shard of four on a
    // strict 20/s left on 26 of 80 machines (others' probes take a slow limit's slots in its turns) and pushed back 39%.
    const services = [
      (seed: number) => strictRate(20, { jitterMs: 2, seed }),
      (seed: number) => {
        const [strict, random] = [strictRate(100, { jitterMs: 2, seed }), numbers(seed * 7 + 3)];
        return (t: number, who: number) => (random() < 0.01 ? { ...strict(t, who), answer: Answer.PushedBack } : strict(t, who));
      },
    ];
    for (const [kind, service] of services.entries())
      for (const seed of [1, 2, 3, 4]) {
        const rows = kind === 0 ? 600 : 1_500;
        const results = simulateSenders(
          service(seed),
          [0, 1, 2, 3].map(() => ({ rows })),
          { loaded: true, seed, limitMs: 400_000 },
        );
        // From 10 s on (the start, before the rota, is at once), the share of each shard's answers in its own turns.
        const own = results.map((r, i) => {
          const late = r.acceptedAt.filter((t) => t >= 10_000);
          return late.filter((t) => Math.floor(t / 2_000) % 4 === i).length / Math.max(1, late.length);
        });
        expect({ kind, seed, onRota: own.every((share) => share >= 0.8) }).toEqual({ kind, seed, onRota: true });
      }
  });
});

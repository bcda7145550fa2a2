/**
 * Review13's H6 and review14a's F2 (old): one sender paced on a strict limit, its next start running ahead of the clock.
 * A request alone goes at once (nothing in flight: no burst), and each such start still added a spacing to the schedule,
 * so after a client stall the schedule ran seconds ahead: the sender went one a round trip while the held rate narrowed
 * unused (item 54's "faster past an edge"), and when the clock caught up, the starts held back went out together at the
 * narrowed spacing (strict 100/s, 1 s stalls every 10 s: 20-24 push-backs in one second late in the run on 5 of 12
 * machines). Now the schedule runs at most a round trip ahead. Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { perSecondFrom, simulate, stalledMachine, strictRate } from './pace-sim.js';

const machines = [42, ...Array.from({ length: 11 }, (_, i) => i + 1)];

/** One sender, strict limit without Retry-After, the client's machine stalled `stallMs` every 10 s. */
function stalled(perSecond: number, stallMs: number, seed: number) {
  const loaded = seed !== 42;
  const service = stalledMachine(strictRate(perSecond, { jitterMs: loaded ? 2 : 0, seed }), seed, { everyMs: 10_000, stallMs });
  const result = simulate(service, 40 * perSecond, { loaded, seed, from: 5_000 });
  const perSecondPushBacks = new Map<number, number>();
  for (const t of result.pushedBackAt)
    perSecondPushBacks.set(Math.floor(t / 1000), (perSecondPushBacks.get(Math.floor(t / 1000)) ?? 0) + 1);
  const late = [...perSecondPushBacks].filter(([second, n]) => second >= 8 && n >= 20).length;
  return { late, rate: perSecondFrom(result, 5_000) };
}

describe('after a client stall, the starts held back do not go out together (H6, review14a F2)', () => {
  it.each(machines)('strict 100/s, 1 s stalls every 10 s (machine %i): no second from 8 s on with 20 push-backs or more', (seed) => {
    expect(stalled(100, 1_000, seed).late).toBe(0);
  });
  it('strict 40/s, 1 s stalls every 10 s: over 60% of it from 5 s on, on every machine (before: 40-58%)', () => {
    for (const seed of machines) expect({ seed, rate: stalled(40, 1_000, seed).rate > 24 }).toEqual({ seed, rate: true });
  });
});

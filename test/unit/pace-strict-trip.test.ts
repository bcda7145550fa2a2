/**
 * Issue 31, item 51 of docs/pace.md: a strict rate limit without burst whose slot is under the round trip (25-40/s at
 * 50 ms). One at a time takes one a round trip (19/s); its probe at two, spaced at half a round trip, is refused. Refused
 * so after one a round trip got in (nobody else seen), the spacing is held as a rate halfway to one a round trip, two in
 * flight, and AIMD in time finds the slot. Before (0329b23): 17.7-18.8/s at 25, 30 and 40/s. Simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { strictFromFiveSeconds } from './pace-sim.js';

describe('one sender on a strict limit whose slot is under the round trip (25 ms each way)', () => {
  const machines = [
    { loaded: false, seed: 42 },
    { loaded: true, seed: 1 },
    { loaded: true, seed: 2 },
  ];
  it.each(machines)(
    '25 and 30/s: over three quarters of it from 5 s on, at most 5% pushed back (%o; before: 0.59-0.75)',
    ({ loaded, seed }) => {
      for (const perSecond of [25, 30]) {
        const { rate, pushedBack } = strictFromFiveSeconds(perSecond, loaded, seed);
        expect(rate).toBeGreaterThan(0.75 * perSecond);
        expect(pushedBack).toBeLessThanOrEqual(0.05);
      }
    },
  );
  it.each(machines)('40/s: over 55% of it from 5 s on, more than one a round trip (%o; before: 0.47-0.53)', ({ loaded, seed }) => {
    const { rate, pushedBack } = strictFromFiveSeconds(40, loaded, seed);
    expect(rate).toBeGreaterThan(0.55 * 40);
    expect(pushedBack).toBeLessThanOrEqual(0.05);
  });
  it('20/s, the slot a whole round trip: one at a time as before, at most 4% pushed back from 5 s on', () => {
    const { rate, pushedBack } = strictFromFiveSeconds(20, false, 42);
    expect(rate).toBeGreaterThan(0.9 * 20);
    expect(pushedBack).toBeLessThanOrEqual(0.04);
  });
});

/**
 * Issue 31, item 35 of docs/pace.md: a shard crowded out to one at a time on a limit on requests at
 * once (nginx's limit_conn) is refused by its siblings' slots now and then, never by its own pace. On
 * the simulated clock; both tests fail before item 35.
 */
import { describe, expect, it } from 'vitest';
import { Answer } from '../../src/batch/pace.js';
import { networkedSlots, paced, simulateSenders, whileAllSend } from './pace-sim.js';

describe('in the relay, refused by others now and then (not early)', () => {
  /**
   * In the relay, a probe refused; then 60 times: nine accepted, one refused a full gap after its last
   * accepted start, from the `earlyFrom`-th time on half a gap after it (early: its own limit).
   */
  function sharedSlots(earlyFrom: number) {
    const { pace, answers, clock } = paced(true);
    answers(1, Answer.PushedBack);
    const relayed: boolean[] = [];
    for (let i = 0; i < 60; i++) {
      answers(9, Answer.Accepted);
      if (i >= earlyFrom) clock.now -= pace.gapMs / 2;
      answers(1, Answer.PushedBack);
      relayed.push(pace.gapMs > 0);
    }
    return relayed;
  }

  it('leaves the relay for good, though item 28 let it out once already (before: back at one in flight from the 9th on)', () => {
    const relayed = sharedSlots(60);
    // Item 28 lets it out once; the refusals in its ring cut it back to one at a time (the 9th), and
    // there every refusal set the narrowings in a row back to 0: it needed four in a row to leave.
    expect(relayed.slice(5, 15)).toContain(true);
    expect(relayed.slice(40)).not.toContain(true);
  });

  it("refused early from the 20th on (its own limit, not others' slots), it stays in the relay", () => {
    expect(sharedSlots(20).slice(40)).not.toContain(false);
  });
});

describe('four shards on 12 slots, the app taking 50 ms, started 5 s apart (loaded machines)', () => {
  it.each([1, 6, 13])('seed %i: no shard left in the relay, each within 0.5x-2x of the median, 80% together', (seed) => {
    const results = simulateSenders(
      networkedSlots(12, 50, { jitterMs: 2, seed }),
      [0, 1, 2, 3].map((i) => ({ rows: 7_200, startAt: i * 5_000 })),
      { loaded: true, seed },
    );
    const { together, low, high } = whileAllSend(results);
    expect(results.every((r) => r.accepted === 7_200)).toBe(true);
    expect(together).toBeGreaterThanOrEqual(0.8 * 240);
    // Before: a late shard left at one in flight, 8-9 rows/s, for most of the run.
    expect(low).toBeGreaterThanOrEqual(0.5);
    expect(high).toBeLessThanOrEqual(2);
  });
});

/**
 * The batch in time, on a virtual clock (test/helpers/virtual-clock.ts) given to the runner as its
 * timers and to the pace as its `now`: the --rate schedule, a Retry-After that pauses every sender,
 * the gap between starts under one at a time. Exact assertions, whatever the machine's load; the
 * spawned tests (test/e2e/batch*.test.ts) check that these happen and in which order, never how long.
 *
 * A simulated service answers each request after a round trip on the same clock, and tells the pace
 * about each attempt as the command's client does (onAttempt → pace.answered).
 */
import { describe, expect, it } from 'vitest';
import type { FireResult } from '../../src/client/client.js';
import type { PreparedEvent } from '../../src/client/request.js';
import { Answer, Pace } from '../../src/batch/pace.js';
import type { Row } from '../../src/batch/rows.js';
import { Runner, type Outcome } from '../../src/batch/runner.js';
import { ServiceError } from '../../src/errors.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

function rowsFrom(n: number, chunk = 100): AsyncIterable<Row[]> {
  return (async function* () {
    for (let i = 0; i < n; i += chunk) {
      const rows: Row[] = [];
      for (let j = i; j < Math.min(n, i + chunk); j++) {
        const event: PreparedEvent = { triggerId: 't', userId: `u${j}`, value: undefined, path: `/p/${j}`, body: '{}' };
        rows.push({
          line: j + 2,
          record: { format: 'csv', fields: ['t', `u${j}`] },
          triggerId: 't',
          userId: `u${j}`,
          value: undefined,
          event,
        });
      }
      yield rows;
    }
  })();
}

const ok = (event: PreparedEvent): FireResult => ({
  ...{ ok: true, status: 200, statusText: 'OK', triggerId: event.triggerId, userId: event.userId, value: undefined },
  ...{ attempts: 1, durationMs: 1, requestId: undefined, response: { success: true } },
});

const unavailable = (status: 429 | 503) =>
  new ServiceError(`${status}`, {
    status,
    statusText: status === 503 ? 'Service Unavailable' : 'Too Many Requests',
    attempts: 1,
    durationMs: 1,
    requestId: undefined,
  });

interface Sent {
  user: string;
  /** When the request started, on the clock. */
  at: number;
  status: number;
}

/**
 * Runs `rows` rows through a Runner on `clock`; `answer(user, at)` says what the simulated service
 * answers a request started at `at` (a status, and a Retry-After in ms for a push-back), after `rttMs`.
 */
async function runOnClock(
  clock: VirtualClock,
  rows: number,
  options: {
    rate?: number;
    concurrency?: number;
    pace?: Pace;
    rttMs?: number;
    answer?: (user: string, at: number) => { status: number; retryAfterMs?: number };
    /** Told, as each request starts, what the runner says is in flight (`sending`) and what the service holds. */
    watch?: (sending: number, atService: number) => void;
  },
) {
  const sent: Sent[] = [];
  const outcomes = new Map<number, Outcome>();
  const stop = new AbortController();
  const rtt = options.rttMs ?? 2;
  let atService = 0;
  const runner: Runner = new Runner({
    rows: rowsFrom(rows),
    concurrency: options.concurrency ?? 8,
    pace: options.pace,
    halt: (reason) => stop.abort(reason),
    rate: options.rate,
    timers: clock,
    stop: stop.signal,
    sink: { starting: () => true, outcome: (row, outcome) => void outcomes.set(row.line, outcome) },
    send: async (event) => {
      const at = clock.now();
      const { status, retryAfterMs = -1 } = options.answer?.(event.userId, at) ?? { status: 200 };
      sent.push({ user: event.userId, at, status });
      options.watch?.(runner.sending, ++atService);
      await clock.sleep(rtt);
      atService--;
      options.pace?.answered(status === 200 ? Answer.Accepted : Answer.PushedBack, rtt, retryAfterMs);
      if (status === 200) return ok(event);
      throw unavailable(status as 429 | 503);
    },
  });
  const result = await clock.run(runner.run());
  return { sent, outcomes, result };
}

/** When the k-th request starts under --rate: the first at once, the next once the first is through (its round trip), then every interval. */
const slot = (k: number, intervalMs: number, rttMs: number) => (k === 0 ? 0 : Math.max(intervalMs, rttMs) + (k - 1) * intervalMs);

describe('--rate on the clock', () => {
  it.each([
    [20, 11, 'fixed'],
    [100, 21, 'fixed'],
    [200, 300, 'auto'],
    [1000, 2000, 'auto'],
  ] as const)('--rate %i: each of %i requests starts exactly on its slot (--concurrency %s)', async (rate, rows, concurrency) => {
    const clock = new VirtualClock();
    const pace = concurrency === 'auto' ? new Pace({ max: 64, now: clock.now, random: () => 0 }) : undefined;
    const { sent, outcomes } = await runOnClock(clock, rows, { rate, pace, concurrency: 8, rttMs: 2 });
    expect(sent.map((s) => s.at)).toEqual(Array.from({ length: rows }, (_, k) => slot(k, 1000 / rate, 2)));
    expect(new Set(sent.map((s) => s.user)).size).toBe(rows); // each row once
    expect([...outcomes.values()].every((o) => o.kind === 'accepted')).toBe(true);
  });

  it.each([
    [100, 21, 7],
    [200, 300, 7],
    [200, 300, 15],
    [1000, 2000, 7],
    [1000, 2000, 15],
  ])(
    '--rate %i over %i requests with every timer %i ms late (a loaded machine): never ahead of its schedule, never behind by the late timers added up',
    async (rate, rows, late) => {
      const clock = new VirtualClock({ late: () => late });
      const pace = new Pace({ max: 64, now: clock.now, random: () => 0 });
      const { sent } = await runOnClock(clock, rows, { rate, pace, rttMs: 2 });
      const starts = sent.map((s) => s.at).sort((a, b) => a - b);
      expect(starts).toHaveLength(rows);
      starts.forEach((at, k) => expect(at).toBeGreaterThanOrEqual(slot(k, 1000 / rate, 2)));
      // The schedule runs from the first start, so late timers are made up, not added up: the last
      // start is within two timers' lateness of its slot, however many came before it.
      expect(starts.at(-1)!).toBeLessThanOrEqual(slot(rows - 1, 1000 / rate, 2) + 2 * late);
      const measured = ((rows - 1) * 1000) / (starts.at(-1)! - starts[0]!);
      expect(measured).toBeLessThanOrEqual(rate);
      if (rows >= 300) expect(measured).toBeGreaterThan(rate * 0.97); // what the spawned test once measured at the server
    },
  );

  it('--rate with --concurrency auto: lanes waiting for the schedule are not counted as in flight (the progress line)', async () => {
    // The pace grows its limit (nothing pushes back) and every lane takes a turn, then waits for the schedule
    // with it: the service holds one request at a time. Before, the progress line said up to 64 "in flight".
    const clock = new VirtualClock();
    const pace = new Pace({ max: 64, now: clock.now, random: () => 0 });
    const seen: Array<[number, number]> = [];
    const { result } = await runOnClock(clock, 200, {
      rate: 100,
      pace,
      rttMs: 2,
      watch: (sending, atService) => seen.push([sending, atService]),
    });
    expect(seen).toHaveLength(200);
    expect(pace.highest).toBeGreaterThan(4); // lanes did hold turns while they waited
    for (const [sending, atService] of seen) expect(sending).toBe(atService);
    expect(result.mostSending).toBe(Math.max(...seen.map(([, atService]) => atService))); // what the summary says
  });

  it('at the end of the rows, a lane waiting for the pace looks again when a request settles: a request alone goes, however far ahead the schedule ran', async () => {
    // The pace lets a request alone go at once (Pace#take), but a schedule can run far ahead while it does: the other
    // lanes slept out pausedFor() with nothing in flight once the lane that kept sending ran out of rows, and a real batch
    // sat idle for 50 s at its end (review13 H6).
    // A gate that says just that: one alone goes; the next start is a minute away.
    const clock = new VirtualClock();
    const gate = {
      max: 4,
      limit: 2,
      stopReason: undefined,
      take: (inFlight: number) => inFlight === 0,
      pausedFor: () => 60_000,
      answered: () => {},
    };
    const { sent } = await runOnClock(clock, 4, { pace: gate as unknown as Pace, rttMs: 50 });
    expect(sent.map((s) => s.at)).toEqual([0, 50, 100, 150]);
  });

  it('with a fixed --concurrency, timers late by more than its lanes can cover lower the rate to what the lanes carry', async () => {
    // 8 lanes, each request 2 ms plus a timer 15 ms late: 8 / 17 ms is about 470 a second, not 1000.
    // What --concurrency auto is for (above); here so that the difference is known, not a surprise.
    const clock = new VirtualClock({ late: () => 15 });
    const { sent } = await runOnClock(clock, 2000, { rate: 1000, concurrency: 8, rttMs: 2 });
    const starts = sent.map((s) => s.at);
    const measured = (1999 * 1000) / (starts.at(-1)! - starts[0]!);
    expect(measured).toBeLessThan((8 * 1000) / 17 + 1);
    starts.forEach((at, k) => expect(at).toBeGreaterThanOrEqual(slot(k, 1, 2)));
  });
});

describe('push-back on the clock (--concurrency auto)', () => {
  it('a 503 with Retry-After: 1 pauses every sender for exactly that second, then every row is accepted once', async () => {
    const clock = new VirtualClock();
    const pace = new Pace({ max: 64, now: clock.now, random: () => 0 }); // no jitter on the pause
    const rtt = 2;
    // The service is overloaded for its first 150 ms, and says so with Retry-After: 1.
    const { sent, outcomes } = await runOnClock(clock, 30, {
      pace,
      rttMs: rtt,
      answer: (_user, at) => (at < 150 ? { status: 503, retryAfterMs: 1000 } : { status: 200 }),
    });
    const pushedBack = sent.filter((s) => s.status === 503);
    const accepted = sent.filter((s) => s.status === 200);
    expect(pushedBack.length).toBe(pace.pushedBack);
    expect(pushedBack.length).toBeGreaterThan(0);
    expect(new Set(accepted.map((s) => s.user)).size).toBe(30);
    expect(accepted).toHaveLength(30);
    expect([...outcomes.values()].every((o) => o.kind === 'accepted')).toBe(true);
    // The last push-back's answer paused every sender: nothing started until exactly 1 s after it.
    const pausedAt = pushedBack.at(-1)!.at + rtt;
    expect(sent.filter((s) => s.at > pushedBack.at(-1)!.at && s.at < pausedAt + 1000)).toEqual([]);
    expect(Math.min(...accepted.map((s) => s.at))).toBe(pausedAt + 1000);
  });

  it('a service that takes one request every 40 ms and refuses the rest at once: the starts are spaced out, about one push-back a row at most', async () => {
    const clock = new VirtualClock();
    const pace = new Pace({ max: 64, now: clock.now, random: () => 0 });
    let next = 0;
    const { sent, outcomes } = await runOnClock(clock, 30, {
      pace,
      answer: (_user, at) => {
        if (at < next) return { status: 503 }; // at once, no Retry-After (nginx limit_req)
        next = at + 40;
        return { status: 200 };
      },
    });
    expect(sent.filter((s) => s.status === 200)).toHaveLength(30);
    expect([...outcomes.values()].every((o) => o.kind === 'accepted')).toBe(true);
    expect(sent.length).toBeLessThan(30 * 2);
    // Once the pace spaced the starts out, it kept to it: every later start 40 ms or more after the one before.
    const lastRefused = sent.findLastIndex((s) => s.status === 503);
    const after = sent.slice(lastRefused + 1).map((s) => s.at);
    expect(after.length).toBeGreaterThan(10);
    after.slice(1).forEach((at, i) => expect(at - after[i]!).toBeGreaterThanOrEqual(40));
    expect(pace.gapMs).toBeGreaterThan(0);
  });
});

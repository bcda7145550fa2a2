/**
 * The runner under --concurrency auto, with the pace's clock and the runner's timers injected: lanes
 * follow the current limit, a pushed-back row is sent again, a pause holds every lane and a stop ends
 * it at once, and the pace's reason to stop halts the batch.
 */
import { describe, expect, it } from 'vitest';
import type { FireResult } from '../../src/client/client.js';
import type { PreparedEvent } from '../../src/client/request.js';
import { Answer, Pace } from '../../src/batch/pace.js';
import type { Row } from '../../src/batch/rows.js';
import { Runner, type Outcome, type Timers } from '../../src/batch/runner.js';
import { ServiceError } from '../../src/errors.js';

function rowsFrom(n: number): AsyncIterable<Row[]> {
  return (async function* () {
    const chunk: Row[] = [];
    for (let j = 0; j < n; j++) {
      const event: PreparedEvent = { triggerId: 't', userId: `u${j}`, value: undefined, path: `/p/${j}`, body: '{}' };
      chunk.push({
        line: j + 1,
        record: { format: 'csv', fields: ['t', `u${j}`] },
        triggerId: 't',
        userId: `u${j}`,
        value: undefined,
        event,
      });
    }
    yield chunk;
  })();
}

const ok = (event: PreparedEvent): FireResult => ({
  ...{ ok: true, status: 200, statusText: 'OK', triggerId: event.triggerId, userId: event.userId, value: undefined },
  ...{ attempts: 1, durationMs: 1, requestId: undefined, response: { success: true } },
});
const tooMany = () =>
  new ServiceError('429 Too Many Requests', {
    status: 429,
    statusText: 'Too Many Requests',
    attempts: 1,
    durationMs: 1,
    requestId: undefined,
  });
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Timers that never fire by themselves: a pause lasts until a stop ends it. */
function heldTimers(): Timers & { asked: number[] } {
  const asked: number[] = [];
  return { asked, now: () => 0, setTimeout: (_fn, ms) => asked.push(ms), clearTimeout: () => undefined };
}

async function run(
  pace: Pace,
  rows: number,
  send: (event: PreparedEvent) => Promise<FireResult>,
  options: { stop?: AbortController; timers?: Timers } = {},
) {
  const stop = options.stop ?? new AbortController();
  const outcomes = new Map<number, Outcome>();
  const runner = new Runner({
    rows: rowsFrom(rows),
    send,
    concurrency: 1,
    pace,
    halt: (reason) => stop.abort(reason),
    timers: options.timers,
    stop: stop.signal,
    sink: { starting: () => true, outcome: (row, outcome) => void outcomes.set(row.line, outcome) },
  });
  await runner.run();
  return { outcomes, runner };
}

describe('the runner with --concurrency auto', () => {
  it('starts lanes up to the maximum, and never has more in flight than the current limit', async () => {
    let now = 0;
    const pace = new Pace({ max: 16, initial: 2, now: () => now });
    let inFlight = 0;
    let most = 0;
    const { outcomes } = await run(pace, 400, async (event) => {
      inFlight++;
      expect(inFlight).toBeLessThanOrEqual(pace.limit);
      most = Math.max(most, inFlight);
      await turn();
      now += 5;
      inFlight--;
      pace.answered(Answer.Accepted, 50);
      return ok(event);
    });
    expect(outcomes.size).toBe(400);
    expect([...outcomes.values()].every((o) => o.kind === 'accepted')).toBe(true);
    expect(most).toBe(16); // grew from 2 to the maximum
    expect(pace.highest).toBe(16);
  });

  it('a turn refused by a gap that ends before the runner asks how long: waits it out, never for a slot nothing will free', async () => {
    // The clock moves on between take() and pausedFor(): the gap has just passed, and nothing is
    // in flight. Waiting for a request to settle would wait for ever (the batch once exited 0 so).
    let refusals = 0;
    const pace = {
      max: 1,
      limit: 1,
      stopReason: undefined,
      take: (inFlight: number) => inFlight < 1 && refusals++ % 2 === 1,
      pausedFor: () => 0,
    } as unknown as Pace;
    const finished = await Promise.race([
      run(pace, 5, async (event) => ok(event)).then(({ outcomes }) => outcomes.size),
      new Promise((resolve) => setTimeout(() => resolve('stuck'), 2_000)),
    ]);
    expect(finished).toBe(5);
  });

  it('a pause that is over is let go, not kept until the first lane runs out of rows', async () => {
    // Each lane below the limit pauses for the pace's clock at every start (~100 lanes: ~145k pauses in a 30 s run). Each was kept, its
    // timer and all, until the tail began (a promise's reactions, woken then): 50 MB more old space, longer GC pauses, starts held late.
    let takes = 0;
    const pace = { max: 8, limit: 8, stopReason: undefined, take: () => ++takes % 5 === 0, pausedFor: () => 1 } as unknown as Pace;
    const [fired, outcomes] = [new Set<object>(), new Map<number, Outcome>()];
    let [pauses, stale] = [0, 0]; // stale: a pause woken again after its timer fired
    const timers: Timers = {
      now: () => 0,
      setTimeout: (fn) => {
        const handle = { n: ++pauses };
        setImmediate(() => (fn(), fired.add(handle)));
        return handle;
      },
      clearTimeout: (handle) => void (fired.has(handle as object) && stale++),
    };
    let release!: () => void;
    const allSent = new Promise<void>((resolve) => (release = resolve));
    // The input ends once every row is answered: the tail begins with no lane paused.
    const rows = (async function* () {
      yield* rowsFrom(40);
      await allSent;
    })();
    const sink = {
      starting: () => true,
      outcome: (row: Row, o: Outcome) => void (outcomes.set(row.line, o), outcomes.size === 40 && release()),
    };
    const send = async (event: PreparedEvent) => (await turn(), ok(event));
    await new Runner({ rows, send, concurrency: 1, pace, timers, stop: new AbortController().signal, sink }).run();
    expect(outcomes.size).toBe(40);
    expect(pauses).toBeGreaterThan(40);
    expect(stale).toBe(0);
  });

  it('sends a pushed-back row again instead of failing it, and counts its attempts', async () => {
    const pace = new Pace({ max: 4, now: () => 0, random: () => 0 });
    const tries = new Map<string, number>();
    const { outcomes } = await run(pace, 20, async (event) => {
      await turn();
      const n = (tries.get(event.userId) ?? 0) + 1;
      tries.set(event.userId, n);
      if (n <= 2 && Number(event.userId.slice(1)) % 2 === 0) {
        pace.answered(Answer.PushedBack, 50, 0);
        throw tooMany();
      }
      pace.answered(Answer.Accepted, 50);
      return ok(event);
    });
    expect([...outcomes.values()].map((o) => o.kind)).toEqual(Array.from({ length: 20 }, () => 'accepted'));
    const attempts = [...outcomes.entries()].map(([line, o]) => (o.kind === 'accepted' ? o.result.attempts : 0) - (line % 2 === 1 ? 2 : 0));
    expect(attempts.every((a) => a === 1)).toBe(true); // even users (odd lines) took 3 attempts, the rest 1
    expect(pace.pushedBack).toBe(20);
  });

  it('a pause holds every lane, and a stop ends it at once: the rows left are unsent', async () => {
    let now = 0;
    const pace = new Pace({ max: 8, now: () => now, random: () => 0 });
    const timers = heldTimers();
    const stop = new AbortController();
    let sent = 0;
    const running = run(
      pace,
      50,
      async (event) => {
        sent++;
        await turn();
        now += 60;
        pace.answered(Answer.PushedBack, 50, 30_000); // nothing accepted: every sender pauses 30 s
        throw Object.assign(tooMany(), { event });
      },
      { stop, timers },
    );
    for (let i = 0; i < 20 && timers.asked.length === 0; i++) await turn();
    expect(timers.asked.length).toBeGreaterThan(0);
    expect(timers.asked.every((ms) => ms === 30_000)).toBe(true);
    const sentBeforeStop = sent;
    stop.abort({ kind: 'signal', signal: 'SIGINT' });
    const { outcomes } = await running;
    expect(sent).toBe(sentBeforeStop); // nothing more went out
    expect(outcomes.size).toBe(50);
    expect([...outcomes.values()].filter((o) => o.kind === 'unsent')).toHaveLength(50);
  });

  it('halts the batch when the pace says so (a Retry-After over 60 s), keeping the rest', async () => {
    const pace = new Pace({ max: 4, now: () => 0 });
    const { outcomes } = await run(pace, 30, async (event) => {
      await turn();
      if (event.userId === 'u5') {
        pace.answered(Answer.PushedBack, 50, 120_000);
        throw tooMany();
      }
      pace.answered(Answer.Accepted, 50);
      return ok(event);
    });
    const kinds = [...outcomes.values()].map((o) => o.kind);
    expect(outcomes.size).toBe(30);
    expect(kinds.filter((k) => k === 'accepted').length).toBeLessThan(12);
    const unsent = [...outcomes.values()].find((o) => o.kind === 'unsent' && !o.pushedBack);
    expect(unsent).toEqual({ kind: 'unsent', stop: { kind: 'retry-after', seconds: 120 } });
    // The row pushed back is not sent again, and says how it was answered (audit24 item 16: --json said attempts 0, status null).
    const stop = { kind: 'retry-after', seconds: 120 };
    expect(outcomes.get(6)).toMatchObject({ kind: 'unsent', stop, pushedBack: { attempts: 1, last: { status: 429 } } });
  });
});

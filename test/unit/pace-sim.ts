/**
 * Simulated services where real gateways put their limits, and batches of one or more senders
 * (each its own Pace, as the shards of a CI matrix are) against them, on a simulated clock. Used by
 * test/unit/pace-limits.test.ts; no wall clock anywhere.
 */
import { Answer, Pace } from '../../src/batch/pace.js';

export interface Verdict {
  /** When the answer comes back to the client. */
  at: number;
  answer: Answer;
  retryAfterMs?: number;
}

/** A service: told of a request sent at `t` (never decreasing) by sender `who`, says what it answers and when. */
export type Service = (t: number, who: number) => Verdict;

/** Numbers in [0, 1) from a seed: the same every run. */
/**
 * A Pace driven by hand on a clock of its own (one at a time from the start): `answers(n, answer, ms, every)` gives it
 * n answers of an `ms` round trip, `every` ms apart (`ms` unless given).
 */
export function byHand(random = 0.5) {
  const clock = { now: 0 };
  const pace = new Pace({ max: 64, initial: 1, now: () => clock.now, random: () => random });
  const answers = (n: number, answer: Answer, ms: number, every = ms) => {
    for (let i = 0; i < n; i++) {
      clock.now += every;
      pace.answered(answer, ms);
    }
  };
  return { clock, pace, answers };
}

/** A trace for simulateSenders that averages the limit over every answer from `fromMs` on: `mean()` once it ran. */
export function meanLimitFrom(fromMs: number) {
  let sum = 0;
  let answers = 0;
  const trace = (_: number, now: number, pace: Pace) => {
    if (now < fromMs) return;
    sum += pace.limit;
    answers++;
  };
  return { trace, mean: () => sum / answers };
}

export function numbers(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/**
 * A limit on requests at once behind a network: `oneWayMs` each way (a delaying proxy, with up to
 * `jitterMs` more at random), then an app with `slots` that holds a slot for `appMs` (nginx's
 * limit_conn in front of it). Beyond the slots, 503 at once (nginx sends no Retry-After). A
 * request holds its slot for only part of the round trip the client sees.
 */
export function networkedSlots(slots: number, appMs: number, { oneWayMs = 25, jitterMs = 0, seed = 1 } = {}): Service {
  const random = numbers(seed * 31 + 7);
  const ends: number[] = [];
  return (t) => {
    const arrival = t + oneWayMs + jitterMs * random();
    const back = oneWayMs + jitterMs * random();
    while (ends.length && ends[0]! <= arrival) ends.shift();
    if (ends.length >= slots) return { at: arrival + back, answer: Answer.PushedBack };
    ends.push(arrival + appMs);
    ends.sort((a, b) => a - b);
    return { at: arrival + appMs + back, answer: Answer.Accepted };
  };
}

/**
 * The delay a real path adds to its one way, at random, per request and per way: ms at the 50th, 90th, 95th, 99th and
 * 99.9th percentiles and the most (0 at none; straight lines between). Measured (measure14, real nginx 1.22 behind the
 * node proxy of scripts/pace-nginx.mjs, 1,200-3,400 requests a run): a quiet machine (req-100, load 2.5) and a loaded
 * one (req-40, load 4.4; the other runs lie between). A long wait now and then is not a uniform jitter: two requests a
 * slot apart reach nginx closer than that when the first waited (1% of pairs by 4-10 ms), and nginx refuses the second.
 */
export const MEASURED_PATH = {
  quiet: [0.25, 0.9, 1.3, 4.75, 20, 47],
  loaded: [0.5, 3.5, 5.75, 12.5, 23, 36],
};
const PATH_AT = [0.5, 0.9, 0.95, 0.99, 0.999, 1];

/** A delay drawn from a path's percentiles (see MEASURED_PATH). */
export function pathDelay(path: number[], random: () => number): number {
  const u = random();
  const i = PATH_AT.findIndex((at) => u <= at);
  const [from, to] = [i > 0 ? PATH_AT[i - 1]! : 0, PATH_AT[i]!];
  const [low, high] = [i > 0 ? path[i - 1]! : 0, path[i]!];
  return low + ((high - low) * (u - from)) / (to - from);
}

/**
 * A strict rate limit without burst behind a network (nginx's limit_req without `burst`): a request
 * that arrives sooner than 1/rate after the last one let through (in whole milliseconds, as nginx
 * counts) is refused at once, 503 or 429, without Retry-After (or with `retryAfterMs`, when given).
 * Each way takes `oneWayMs`, and up to `jitterMs` more at random, or, given a `path`, what that path adds.
 */
export function strictRate(
  perSecond: number,
  { oneWayMs = 25, jitterMs = 0, seed = 1, retryAfterMs = undefined as number | undefined, path = undefined as number[] | undefined } = {},
): Service {
  const random = numbers(seed * 37 + 11);
  let last = -Infinity;
  const spacing = 1000 / perSecond;
  const way = () => oneWayMs + (path ? pathDelay(path, random) : jitterMs * random());
  return (t) => {
    const arrival = t + way();
    const back = arrival + way();
    if (Math.floor(arrival) - Math.floor(last) < spacing) return { at: back, answer: Answer.PushedBack, retryAfterMs };
    last = arrival;
    return { at: back, answer: Answer.Accepted };
  };
}

/**
 * A window limit without Retry-After (review15a O2, the commonest API limit: "N requests per second"): `fixed`, a counter
 * that starts over on each window's boundary (`phaseMs` into the batch's windows); `sliding`, at most N arrivals in any window.
 * 503 beyond; `oneWayMs` each way.
 */
export function windowLimit(
  kind: 'fixed' | 'sliding',
  count: number,
  windowMs: number,
  { jitterMs = 0, seed = 1, phaseMs = 0, oneWayMs = 25 } = {},
): Service {
  const random = numbers(seed * 41 + 3);
  const arrivals: number[] = []; // fixed: this window's; sliding: those of the last windowMs
  let window = -1;
  return (t) => {
    const arrival = t + oneWayMs + jitterMs * random();
    const back = arrival + oneWayMs + jitterMs * random();
    const at = Math.floor((arrival + windowMs - phaseMs) / windowMs);
    if (kind === 'fixed' && at !== window) [window, arrivals.length] = [at, 0];
    while (kind === 'sliding' && arrivals.length > 0 && arrivals[0]! <= arrival - windowMs) arrivals.shift();
    if (arrivals.length >= count) return { at: back, answer: Answer.PushedBack };
    arrivals.push(arrival);
    return { at: back, answer: Answer.Accepted };
  };
}

/**
 * 8 workers of 50 ms behind a FIFO queue, 25 ms each way, `moreMs` more on every answer to a request that arrives in [a, z):
 * a service slower for everyone for a spell (item 46). `roundTrips` keeps those of requests sent in [from, to).
 */
export function slowSpell(
  moreMs: number,
  [a, z]: [number, number],
  [from, to]: [number, number],
): { service: Service; roundTrips: number[] } {
  const free = new Array<number>(8).fill(0);
  const roundTrips: number[] = [];
  const service: Service = (t) => {
    const arrival = t + 25;
    const worker = free.indexOf(Math.min(...free));
    free[worker] = Math.max(arrival, free[worker]!) + 50;
    const at = free[worker]! + 25 + (arrival >= a && arrival < z ? moreMs : 0);
    if (t >= from && t < to) roundTrips.push(at - t);
    return { at, answer: Answer.Accepted };
  };
  return { service, roundTrips };
}

/**
 * strictRate behind a path whose delay each way grows from 25 ms: `steps` are [from ms, to ms each way, over ms] (B5; measure15's
 * req-40-grown); each way's delay is the one at the moment it passes, as scripts/pace-nginx.mjs's proxy does, and up to `jitterMs` more.
 */
export function strictGrowing(perSecond: number, steps: [number, number, number][], { jitterMs = 0, seed = 1 } = {}): Service {
  const random = numbers(seed * 37 + 11);
  const way = (t: number) => {
    let ms = 25;
    for (const [from, to, over] of steps) if (t >= from) ms = t < from + over ? ms + ((to - ms) * (t - from)) / over : to;
    return ms + jitterMs * random();
  };
  let last = -Infinity;
  return (t) => {
    const arrival = t + way(t);
    const back = arrival + way(arrival);
    if (Math.floor(arrival) - Math.floor(last) < 1000 / perSecond) return { at: back, answer: Answer.PushedBack };
    last = arrival;
    return { at: back, answer: Answer.Accepted };
  };
}

/** A token bucket holding a tenth of a second, 429 with Retry-After beyond (the bench's rate limit). */
export function tokenBucket(perSecond: number, latency = 50): Service {
  const size = perSecond / 10;
  let tokens = size;
  let last = 0;
  return (t) => {
    tokens = Math.min(size, tokens + ((t - last) * perSecond) / 1000);
    last = t;
    if (tokens >= 1) {
      tokens -= 1;
      return { at: t + latency, answer: Answer.Accepted };
    }
    return { at: t + latency, answer: Answer.PushedBack, retryAfterMs: 1000 };
  };
}

/**
 * Refuses `share` of requests at random whatever the pace: 503 + Retry-After: 1, as the emulator's
 * --fail-rate, or without Retry-After when `retryAfterMs` is null (not undefined: that gives the default).
 */
export function refusingAtRandom(share: number, seed: number, latency = 50, retryAfterMs: number | null = 1000): Service {
  const random = numbers(seed);
  const after = retryAfterMs ?? undefined;
  return (t) => ({ at: t + latency, answer: random() < share ? Answer.PushedBack : Answer.Accepted, retryAfterMs: after });
}

/**
 * A small slow service (review13's H1): `workers` of `workMs` behind a 1 s queue time-out, 25 ms each way, refusing
 * `share` at once at random: not a strict limit, whose refusals item 51 and item 56 must not take for one.
 */
export function smallFlaky(workers: number, workMs: number, share: number, seed: number): Service {
  const free = new Array<number>(workers).fill(0);
  const random = numbers(seed * 13 + 5);
  return (t) => {
    const arrival = t + 25;
    if (random() < share) return { at: arrival + 25, answer: Answer.PushedBack };
    const w = free.indexOf(Math.min(...free));
    const start = Math.max(arrival, free[w]!);
    if (start - arrival > 1_000) return { at: arrival + 1_025, answer: Answer.PushedBack };
    free[w] = start + workMs;
    return { at: start + workMs + 25, answer: Answer.Accepted };
  };
}

/**
 * When the client sees an answer that reaches it at `t`. On a quiet machine, at once. On a loaded
 * one: a fraction of a millisecond and more at random, and every 50-300 ms the event loop is held
 * up for 2-12 ms, which delays every answer that arrives meanwhile.
 */
export function clientDelay(loaded: boolean, seed: number): (t: number) => number {
  const random = numbers(seed * 7 + 1);
  let stall = { start: 0, end: 0 };
  let next = 0;
  return (t: number) => {
    if (!loaded) return t;
    while (next <= t) {
      stall = { start: next, end: next + 2 + 10 * random() };
      next += 50 + 250 * random();
    }
    const late = t + 0.3 - 0.7 * Math.log(1 - random());
    return stall.start <= t && t < stall.end ? Math.max(late, stall.end) : late;
  };
}

export interface SenderResult {
  accepted: number;
  answers: number;
  pushedBack: number;
  /** Answers (and push-backs among them) from `from` ms on. */
  answersLate: number;
  pushedBackLate: number;
  first: number;
  last: number;
  perSecond: number;
  /** When each accepted answer came (for shares over a window). */
  acceptedAt: number[];
  /** When each push-back came (for the worst second). */
  pushedBackAt: number[];
  lowest: number;
  highest: number;
}

export interface SenderPlan {
  rows: number;
  /** When this sender starts, ms. */
  startAt?: number;
}

/** How long a process starting up is slow (simulateSenders' startLateMs), ms. */
const START_MS = 2_000;

/** A min-heap of events by time (ties in the order they were added). */
class Events {
  readonly #heap: Array<{ at: number; seq: number; run: () => void }> = [];
  #seq = 0;
  get size(): number {
    return this.#heap.length;
  }
  push(at: number, run: () => void): void {
    const h = this.#heap;
    h.push({ at, seq: this.#seq++, run });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.#less(h[p]!, h[i]!)) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }
  pop(): { at: number; run: () => void } {
    const h = this.#heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.#less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.#less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }
  #less(a: { at: number; seq: number }, b: { at: number; seq: number }): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }
}

/**
 * Sends each plan's rows through its own Pace (max 64) to one service; pushed-back rows are sent
 * again. Senders share nothing but the service, as the shards of a matrix do.
 */
export function simulateSenders(
  service: Service,
  plans: SenderPlan[],
  {
    loaded = false,
    seed = 42,
    from = 0,
    max = 64,
    limitMs = 600_000,
    trace = undefined as ((who: number, now: number, pace: Pace, answer: Answer) => void) | undefined,
    lateMs = 0,
    startLateMs = 0,
    // Senders are shards of one batch (--shard), unless told they are separate batches.
    shared = plans.length > 1,
    // Each sender's clock ahead by this much (shards on different machines; default: one clock).
    clockOffsetsMs = [] as number[],
    // Shards take turns on a rota (--shard's default); false: they share the limit at once, as before the rota.
    rota = true,
  } = {},
): SenderResult[] {
  let now = 0;
  const events = new Events();
  const results = plans.map((plan, who) => {
    const random = numbers(seed * 101 + who);
    const seen = clientDelay(loaded, seed * 13 + who);
    // The client acts up to lateMs late, at random: a timer that fires late, the work per answer (0: at once).
    const late = numbers(seed * 17 + who);
    const after = (t: number) => t + lateMs * late();
    // In its first START_MS, a process starting up (four shards on two cores) sees each answer up to startLateMs late, and
    // counts it in the round trip (0: never). Drawn from its own numbers, so that the other options' figures stay as they were.
    const starting = numbers(seed * 19 + who);
    const startEnd = (plan.startAt ?? 0) + START_MS;
    // The offset is the wall clock's (the rota's): the pace's own clock is the process's, monotonic, never below 0 (the runner's).
    const clock = () => now + (clockOffsetsMs[who] ?? 0);
    const pace = new Pace({
      max,
      now: () => now,
      random,
      shared,
      rota: shared && rota ? { index: who, count: plans.length, clock } : undefined,
    });
    const result: SenderResult = {
      ...{ accepted: 0, answers: 0, pushedBack: 0, answersLate: 0, pushedBackLate: 0, first: -1, last: 0, perSecond: 0 },
      ...{ acceptedAt: [] as number[], pushedBackAt: [] as number[], lowest: 0, highest: 0 },
    };
    let left = plan.rows;
    let inFlight = 0;
    let wakeAt = -1;
    const pump = () => {
      while (left > 0 && !pace.stopReason && pace.take(inFlight)) {
        left--;
        inFlight++;
        const sent = now;
        const verdict = service(now, who);
        events.push(seen(verdict.at) + (verdict.at < startEnd ? startLateMs * starting() : 0), () => {
          inFlight--;
          result.answers++;
          if (now >= from) result.answersLate++;
          pace.answered(verdict.answer, now - sent, verdict.retryAfterMs);
          trace?.(who, now, pace, verdict.answer);
          if (verdict.answer === Answer.Accepted) {
            result.accepted++;
            result.acceptedAt.push(now);
            if (result.first < 0) result.first = now;
            result.last = now;
          } else {
            if (verdict.answer === Answer.PushedBack) {
              result.pushedBack++;
              result.pushedBackAt.push(now);
              if (now >= from) result.pushedBackLate++;
            }
            left++;
          }
          if (lateMs > 0) events.push(after(now), pump);
          else pump();
        });
      }
      const wait = pace.pausedFor();
      // As the runner, which waits 1 ms at least: a wait under the clock's precision still wakes it.
      if (left > 0 && wait > 0 && wakeAt !== now + Math.max(wait, 0.001)) {
        wakeAt = now + Math.max(wait, 0.001);
        events.push(after(wakeAt), pump);
      }
    };
    events.push(plan.startAt ?? 0, pump);
    return { result, pace };
  });
  while (events.size && now < limitMs) {
    const next = events.pop();
    now = next.at;
    next.run();
  }
  return results.map(({ result, pace }) => {
    result.perSecond = result.accepted > 1 ? ((result.accepted - 1) * 1000) / (result.last - result.first) : 0;
    result.lowest = pace.lowest;
    result.highest = pace.highest;
    return result;
  });
}

/** The most push-backs the senders got together in one second. */
export function worstSecond(results: SenderResult[]): number {
  const perSecond = new Map<number, number>();
  for (const t of results.flatMap((r) => r.pushedBackAt))
    perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
  return Math.max(0, ...perSecond.values());
}

/** Rows accepted a second from `fromMs` to the last one accepted. */
export function perSecondFrom(result: SenderResult, fromMs: number): number {
  return (result.acceptedAt.filter((t) => t >= fromMs).length * 1_000) / (result.last - fromMs);
}

/** One sender's batch: its result. */
/** One sender on a strict limit (2 ms of jitter when loaded): accepted a second from 5 s on and the share pushed back then (as bench-pace-sim.mjs). */
export function strictFromFiveSeconds(perSecond: number, loaded: boolean, seed: number): { rate: number; pushedBack: number } {
  const result = simulate(strictRate(perSecond, { jitterMs: loaded ? 2 : 0, seed }), 15 * perSecond, { loaded, seed, from: 5_000 });
  return { rate: perSecondFrom(result, 5_000), pushedBack: result.pushedBackLate / result.answersLate };
}

export function simulate(service: Service, rows: number, options: { loaded?: boolean; seed?: number; from?: number } = {}): SenderResult {
  return simulateSenders(service, [{ rows }], options)[0]!;
}

/**
 * What --concurrency n does against the same service, as the client does it: n lanes, a push-back
 * retried after its Retry-After (else the client's back-off: 0.5 s, doubling) up to `retries`
 * times, then the row fails. Returns the wall time and the rows failed.
 */
export function fixedConcurrency(service: Service, rows: number, n: number, retries = 2): { wallMs: number; failed: number } {
  let now = 0;
  const events = new Events();
  let next = 0;
  let failed = 0;
  let end = 0;
  const lane = () => {
    if (next >= rows) return;
    next++;
    const attempt = (k: number) => {
      const sent = now;
      const verdict = service(sent, 0);
      events.push(verdict.at, () => {
        end = now;
        if (verdict.answer === Answer.Accepted) return lane();
        if (k > retries) {
          failed++;
          return lane();
        }
        const wait = verdict.retryAfterMs ?? 500 * 2 ** (k - 1);
        events.push(now + wait, () => attempt(k + 1));
      });
    };
    attempt(1);
  };
  for (let i = 0; i < n; i++) events.push(0, lane);
  while (events.size) {
    const e = events.pop();
    now = e.at;
    e.run();
  }
  return { wallMs: end, failed };
}

/**
 * A busy client machine in front of `service` (issue 31's real runs: four shards and the proxy on
 * two loaded cores): every answer is seen later by `perInFlightMs` for each request that all the
 * senders together had in flight when it was sent. The round trip a sender sees then grows with
 * what its siblings send, not only with what it sends itself, and not with what the service does.
 */
export function busyClient(service: Service, perInFlightMs: number): Service {
  const out: number[] = [];
  return (t, who) => {
    const verdict = service(t, who);
    while (out.length && out[0]! <= t) out.shift();
    const at = verdict.at + perInFlightMs * out.length;
    out.splice(sortedIndex(out, at), 0, at);
    return { ...verdict, at };
  };
}

function sortedIndex(sorted: number[], value: number): number {
  let i = 0;
  while (i < sorted.length && sorted[i]! <= value) i++;
  return i;
}

/**
 * While all the senders send (from the last first answer to the first last one): their accepted
 * answers a second together, and the fewest and most of one sender against the median's (0 and
 * Infinity when they never all sent at once). scripts/bench-pace-sim.mjs's whileAllSend, typed.
 */
export function whileAllSend(results: SenderResult[]): { together: number; low: number; high: number } {
  const from = Math.max(...results.map((r) => r.first));
  const to = Math.min(...results.map((r) => (r.first < 0 ? -1 : r.last)));
  const counts = results.map((r) => r.acceptedAt.filter((t) => t >= from && t <= to).length).sort((a, b) => a - b);
  const mid = counts.length / 2;
  const median = counts.length % 2 ? counts[Math.floor(mid)]! : (counts[mid - 1]! + counts[mid]!) / 2;
  const together = (counts.reduce((a, b) => a + b, 0) * 1000) / Math.max(1, to - from);
  return median ? { together, low: counts[0]! / median, high: counts.at(-1)! / median } : { together, low: 0, high: Infinity };
}

/**
 * No pace: senders at fixed rates (requests a second), each evenly spaced from a random phase, for
 * `durationMs`; refused requests are not sent again. What `service` carries at that load and what
 * it refuses: the yardstick for a pace's share (a limit on requests at once is a loss system).
 */
export function fixedRates(service: Service, perSecond: number[], durationMs: number, seed = 1): { accepted: number; refused: number } {
  const random = numbers(seed * 977);
  const senders = perSecond.map((rate) => ({ next: (random() * 1000) / rate, spacing: 1000 / rate }));
  let accepted = 0;
  let refused = 0;
  for (;;) {
    const sender = senders.reduce((a, b) => (b.next < a.next ? b : a));
    if (sender.next > durationMs) return { accepted, refused };
    if (service(sender.next, 0).answer === Answer.Accepted) accepted++;
    else refused++;
    sender.next += sender.spacing;
  }
}

/** Pushed back at two, so one at a time and paced; then, with `gap`, refused after an accepted start and again: the relay. */
export function paced(gap: boolean, rttMs = 50) {
  const clock = { now: 0 };
  const pace = new Pace({ max: 64, initial: 1, now: () => clock.now, random: () => 0.5 });
  const answers = (n: number, answer: Answer, ms = rttMs) => {
    for (let i = 0; i < n; i++) {
      clock.now += Math.max(ms, pace.gapMs);
      pace.answered(answer, ms);
    }
  };
  answers(1, Answer.Accepted); // slow start: two at once
  answers(3, Answer.PushedBack, 0.5); // pushed back at two, no Retry-After: one at a time, paced
  if (gap) answers(2, Answer.PushedBack); // refused after an accepted start, then again: probing, a gap
  return { pace, clock, answers };
}

/**
 * The machine that runs the client, the delaying proxy and the service stalls now and then (a CI runner
 * at load 10: bisect10, "Two ways a conn-0 run holds low"): once every `everyMs`, at a random moment,
 * for `stallMs`, nothing moves. What reached the service meanwhile is handled at its end, at once; what
 * reached the client is seen at its end, in a heap, in the order it came.
 */
export function stalledMachine(service: Service, seed: number, { everyMs = 1_000, stallMs = 100, oneWayMs = 25 } = {}): Service {
  const stallAt = (t: number) => {
    const k = Math.floor(t / everyMs);
    const start = k * everyMs + (everyMs - stallMs) * numbers(seed * 1_009 + k)();
    return start <= t && t < start + stallMs ? start : -1;
  };
  const after = (t: number, start: number) => start + stallMs + (t - start) / 1_000;
  return (t, who) => {
    const start = stallAt(t + oneWayMs);
    const verdict = service(start < 0 ? t : after(t + oneWayMs, start) - oneWayMs, who);
    const seen = stallAt(verdict.at);
    return seen < 0 ? verdict : { ...verdict, at: after(verdict.at, seen) };
  };
}

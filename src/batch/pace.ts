/**
 * --concurrency auto: how many requests a batch keeps in flight, and how far apart it starts them,
 * found from the answers. docs/pace.md says why each rule is there (items 1-15, cited below) and
 * what it was measured against.
 *
 * Pure: the clock and the random numbers are passed in, so tests drive it with a simulated clock.
 * The runner calls `answered` synchronously for every attempt, with numbers only: nothing is
 * allocated per request.
 */

/** Why the pace stops a batch (worded in stop.ts, with the other reasons). */
export type PaceStop = { kind: 'retry-after'; seconds: number } | { kind: 'pushed-back'; seconds: number };

/** What one attempt came to, as the controller sees it (numbers, so that telling it allocates nothing). */
export const Answer = {
  /** 2xx: the service took it. */
  Accepted: 0,
  /** 429 or 503: the service asked to slow down; the row is sent again. */
  PushedBack: 1,
  /** No answer within the time limit. */
  TimedOut: 2,
  /** Any other answer or failure (a refusal, a reset): says nothing of the pace. */
  Other: 3,
} as const;
export type Answer = (typeof Answer)[keyof typeof Answer];

export interface PaceOptions {
  /** --max-concurrency: never above this. */
  max: number;
  /** The limit to start from (default 4, or max if lower). */
  initial?: number;
  /** A monotonic clock, ms. */
  now: () => number;
  /** A source of numbers in [0, 1), for the jitter of pauses. */
  random?: () => number;
  /** Stop when the service has pushed back and accepted nothing for this long (default 30 s). */
  stallMs?: number;
  /** Other senders share the limit (--shard): no rate is held under the round trip, which would shut a later one out (item 53). */
  shared?: boolean;
  /** Shard `index` (0-based) of `count`: paced, it takes turns with the others on a rota (see #rotaWait); `clock`: the wall clock, ms. */
  rota?: { index: number; count: number; clock?: () => number };
}

// The numbers below, and what each was measured against, are in docs/pace.md.

const MIN_RTT_MS = 1; // The shortest round trip the pace reckons with, ms (the client's are whole milliseconds).
/** The longest Retry-After a batch waits for; beyond it, it stops and keeps the rest. */
export const MAX_PAUSE_MS = 60_000;
const SLOW_START_TOLERANCE = 1.25; // Slow start goes on while a round trip is within this factor of the base.
const NOISE_MS = 2; // Round trips within this many ms of the base are the same: on loopback, the client's own scheduling.
// After slow start: grow within 10% of the base round trip, shrink by a tenth over 50% above it, hold between (a ratio, not
// Vegas's queue in requests: on a shared machine the client's own delays grow with the limit and read as a queue).
const GROW_BELOW = 1.1;
const SHRINK_ABOVE = 1.5;
const SHRINK_BY = 0.9;
const BURST_GAPS = 1.5; // A first burst's answers apart (not together) by gaps over this ratio of each other: jitter (see #burstAnswer).
const PACED_GROW_BELOW = 2; // Paced, a round trip with no push-back grows the limit by one up to this multiple of the base.
const TOLERATED_PUSH_BACKS = 2; // Push-backs tolerated within the last TOLERANCE_ANSWERS answers (more: a full service; fewer: random).
const TOLERANCE_ANSWERS = 100;
// Random refusals told from a limit by the share accepted at a lower and a higher pace (a limit's falls as the pace rises): each
// side needs NOISE_ANSWERS, a descent's DESCENT_ANSWERS (a service refusing half at random crawls while it waits for more).
const NOISE_ANSWERS = 20;
const DESCENT_ANSWERS = 10;
const MIN_NOISE = 0.02;
const MAX_NOISE = 0.25; // A service that refuses more than this at a lower pace is taken for a full one, whatever it does higher.
const MAX_DESCENT_NOISE = 0.9; // A descent tolerates up to this share, judged once the pace came down to half or less.
const MAX_DESCENT_RATIO = 0.5;
const MAX_TOLERATED = 0.8; // Whatever the share found, more than this share of the last answers pushed back is never tolerated (item 16).
/** From two at once, a push-back cuts to one at a time only when this share of the answers at two pushed back. */
const TWO_AT_ONCE_SHARE = 0.2;
const NOISE_BAND = 0.8; // The pace now is the limits from this fraction of the one a request was sent at, up to it.
const MAX_PACE_RATIO = 0.8; // The lower pace must be at most this fraction of the higher for a verdict.
const LEVEL_MEMORY = 400; // Answers remembered per limit (beyond, the older half is forgotten), halved every LEVEL_HALF_LIFE_MS.
const LEVEL_HALF_LIFE_MS = 1_500;
const CHANGES = 64; // Limit changes remembered, to tell at which limit an answer's request was sent.
const CEILING_MS = 3_000; // How long after a push-back its ceiling is remembered (then the limit grows by its square root again).
/** What the service took is counted over this many round trips (one is too few: answers come in bursts); a window's, a second, 8 up, edges 6 ms. */
const [TOOK_ROUND_TRIPS, WINDOW_MS, WINDOW_LEAST, EDGE_MS] = [2, 1_000, 8, 6];
const [STEP_MS, FAST_MS] = [2_000, 10_000]; // F1: a slow run at its round trip within STEP_MS of its start, FAST_MS after the last
const HOLD_ROUND_TRIPS = 2; // Round trips, and answers accepted, at one under the ceiling before probing one above it.
const HOLD_ANSWERS = 100;
const SHARED_HOLD_TRIPS = 20; // ...or, sharing with shards, this many round trips: in answers, the shard that sends more probed more often (f39600a).
const QUIET_MS = 100; // At one at a time, push-backs with Retry-After pause every sender after this long with nothing accepted.
const LIKELY_RUN = 0.001; // ...unless the share refused before the run makes a run that long at least this likely (item 15).
const GAP_WIDEN = 1.1; // Under one at a time, a push-back widens the gap between starts by GAP_WIDEN; accepted answers narrow it.
const GAP_NARROW_BY = 0.05;
const NARROW_EVERY_MS = 2_000; // The gap narrows every NARROW_EVERY_MS worth of accepted answers (at least 8, at most HOLD_ANSWERS).
const NARROW_MIN_ANSWERS = 8;
/**
 * Paced, one at a time, from RELAY_MIN_RTT_MS away (item 18, the relay): refused, unless alone, the next start is a
 * probe PROBE round trips later times 0.5-1.5 at random, and the gap stays. Alone: refused right after its one
 * accepted start OWN_RUNS runs in a row (each other run takes one off, down to 0, up to twice OWN_RUNS). Random
 * (item 20): PROBES_IN probes in more than refused first. With no gap, every ROOM_EVERY-th start a round trip late (item 21).
 */
const PROBE = 3;
const OWN_RUNS = 6;
const RELAY_MIN_RTT_MS = 10;
const PROBES_IN = 8;
/** Refusals by others' slots (not early) before a sender whose probes get in leaves the relay, once; the share then taken for random (item 28). */
const SLOTS_SEEN = 3;
const SLOTS_NOISE = 0.05;
const SLOTS_LEAVE_MS = 5_000;
const ROOM_EVERY = 15;
const SPACINGS = 8; // Accepted starts' spacings remembered to tell a sender's own limit from others' slots (item 22).
const NARROWINGS_BEFORE_FASTER = 3; // After this many narrowings in a row without a push-back, each narrows twice as much (up to half).
const MAX_GAP_MS = 2_000; // The widest gap between starts: a service that accepts nothing for long is stopped by stallMs.
const OUTAGE_REFUSALS = 5; // Accepted after this many push-backs in a row at one at a time, over this long: it was down, not slow.
const OUTAGE_MS = 1_500;
const PACE_SLACK_MS = 2; // How far paced starts may fall behind their schedule (see take).
const PACE_GAIN = 1.1; // Paced, the starts go at this much more than the limit over the round trip; in slow start, at twice it.
const SLOW_START_GAIN = 2;
// Paced and pushed back, the spacing widens by RATE_WIDEN; it narrows every RATE_NARROW_MS without one: in time, not answers, so
// that shards all narrow as often and the faster, pushed back more, comes down to the others (Chiu and Jain; docs/pace.md).
const RATE_WIDEN = 1.05;
const RATE_NARROW = 0.01;
const RATE_NARROW_MS = 300;
const RATE_HOLDS_BELOW = 10; // Below this many in flight, one more or fewer moves the pace by a tenth: the rate alone holds it.
/** A rebase on a service slower for everyone is tried again this often (from it, and on the clock), by fewer in flight for two windows (46). */
const PROBE_EVERY_MS = 10_000;
/** Retry-After (not paced): AIMD in rate within AIMD_MS of a cut, +INCREASE requests/ms per ms, xDECREASE a cut (item 12). */
const INCREASE = 45 / 1e6;
const DECREASE = 0.75;
const AIMD_MS = 10_000;
const JITTER = 2; // After a push-back with Retry-After, the next start waits up to this many spacings, at random (see #jitter).
// Refused with a Retry-After at one at a time, then accepted, it shares the limit (item 27): its turn ends after TURN
// accepted answers, and a run of refusals is the others' turns, as likely as at SHARED_SHARE refused.
const TURN = 40;
const SHARED_SHARE = 0.9;
/** Shards on a strict rate take turns of ROTA_MS on the wall clock (see #rotaWait); ROTA_PROBES in a row in another's: it is gone. */
const ROTA_MS = 2_000;
const ROTA_PROBES = 5;
const ROTA_MOST = 4; // Up to this many shards: more take turns too seldom, and find idle turns too slowly, to gain over sharing at once.
const ROTA_SEEN = 2; // A probe pushed back in another's turn: that shard is there, and its next ROTA_SEEN turns are left to it unprobed.
/** A gone shard's turn goes at this many times the spacing of its own last turn: its own limit does not refuse it there. */
const ROTA_SLOWER = 1.1;
const ROTA_EDGE_MS = 50; // Clocks apart by up to this much (ms) make turns overlap at their edges: push-backs there are not its limit's.
const RATE_ANSWERS = 10; // Answers accepted, and pushed back, before the rota tells a rate from slots held at once.

export class Pace {
  readonly max: number;
  /** Requests that may be in flight now (a whole number, 1..max). */
  limit: number;
  /** No request may start before this time (the shared gate); 0 when open. */
  pausedUntil = 0;
  /** The lowest and highest limit used so far. */
  lowest: number;
  highest: number;
  /** The widest gap between starts used under one at a time, ms (0: none was needed). */
  widestGapMs = 0;
  /** Under one at a time, the least time between two starts, ms (0 when the limit alone paces). */
  gapMs = 0;
  /** Answers that pushed back (429, 503), over the run. */
  pushedBack = 0;
  /** Set when the batch must stop; says why. */
  stopReason: PaceStop | undefined;

  readonly #now: () => number;
  readonly #random: () => number;
  readonly #stallMs: number;
  readonly #sharedOption: boolean;
  readonly #rota: Rota | undefined;
  /**
   * The turn on the wall clock last seen (NaN: not on the rota yet); `open`: 0 another's, probed; 1 its own; 2 another's, shut;
   * 3 a gone shard's, taken over. Probes in, the wait it set, no start before `from` (wall clock), the spacing taken over at.
   */
  #rotaTurn = { at: NaN, open: 0, probes: 0, until: 0, from: 0, spacing: 0 };
  #value: number;
  #slowStart = true;
  #baseRtt = Infinity; // The fastest round trip (mean over a window of accepted answers) seen: the service unloaded.
  #windowMs = -1; // The last window's mean round trip: how long a window lasts (the first lasts the first answer's).
  #lastAccepted: number;
  #refusingSince = -1; // When the current run of push-backs with nothing accepted began (-1: none).
  #win = { held: false, lo: 0, hi: 0, mark: 0 }; // held; the last run's last push-back (lo), the answer ending it (hi); let go under mark (#windowEnded)
  #lastPushBack = -Infinity;
  #used = 0; // the most in flight at once in this round trip
  #cutAt = -Infinity; // When the limit was last cut, or the machine seen to stall (item 36): push-backs to requests sent before do not cut.
  #stalledAt = -Infinity;
  #cutBy: 'push-back' | 'time-out' | undefined; // What the last cut was for, and how many requests sent since were accepted.
  #acceptedSinceCut = 0;
  #pauseEnd = -Infinity; // When the last pause ended (or ends).
  #nextStart = 0; // Under one at a time: the next start allowed (see gapMs).
  #holdUntil = 0; // No start before this (0: none), and when it was last set (see #jitter).
  #jitteredAt = -Infinity;
  #spacingMs = 0; // Once pushed back without Retry-After (#paced, for good): the least time between starts (0: none; item 9).
  #paced = false;
  /** Two starts within 2 ms both accepted: no strict limit; for the rota, thrice (once: send times whole-ms round trips misread, audit19). */
  #burstsTaken = 0;
  #startsInARow = 0; // Starts since the last answer, and whether two ever went out with no answer between them (a burst).
  #sentInBursts = false;
  /** The first burst: how many, its first answer (when), the last, the gaps between its answers, their round trips' sum, answers. */
  readonly #burst = { n: 0, at: 0, last: 0, gaps: [] as number[], sum: 0, seen: 0 };
  #rateGapMs = 0; // Paced, the pace also held as a rate: the least time between starts (0: none yet; see #holdRate).
  #rateMs = 0; // Time since the spacing held as a rate last narrowed, ms, and narrowings in a row.
  #rateNarrowings = 0;
  /** Refused at two after one a round trip got in: the spacing last refused, held as a rate under the round trip (0: not; item 51). */
  #tripGapMs = 0;
  #narrowings = 0; // Narrowings of the gap since the last push-back at one at a time.
  #narrowedFrom = 0; // The gap before the last narrowing since a push-back at one at a time (0: none), and the answers accepted then.
  #narrowedAt = 0;
  #ownGap = 0; // The gap at the last push-back at one at a time, if early (item 22; 0: not early).
  #acceptedAtRefusal = -1; // How many answers had been accepted at the last push-back at one at a time.
  #ownRuns = 0; // Runs of push-backs at one at a time in a row that came right after one accepted answer (item 18).
  #acceptedRtt = 0; // The last accepted answer's round trip (see #bunched).
  #acceptedSent = -Infinity; // When the last accepted request was sent, and the times between the last accepted starts (a ring; item 22).
  readonly #spacings = new Float64Array(SPACINGS).fill(Infinity);
  /** The relay's probes, those refused, the starts after those that got in (item 20); starts paced one at a time, no gap (21). */
  readonly #relay: Tally = [0, 0, 0];
  /** Its refusals in the relay that were not early, none a probe refused again (-Infinity: one was), and whether it left so (item 28). */
  #slotsSeen = 0;
  #leftSlots = false;
  #slotsLeftAt = -Infinity; // when it last left the relay so
  #startsAtOne = 0;
  /** Last Retry-After at one at a time (ms), answers accepted since (-1: never refused so), a turn just ended, found alone at (27). */
  #retryAfter = 0;
  #turn = -1;
  #afterTurn = false;
  #aloneAt = -Infinity;
  /** The round trip its gap was set from, its own limit not seen to refuse it since (0: none): the gap follows it down (item 41). */
  #gapRtt = 0;
  #followed = false; // Whether item 41 brought the gap down: among shards it then follows the fastest round trip (57).
  #crowded = false; // Whether, paced with a gap, it was ever refused again with nothing accepted between: others share the limit.
  #refusedInARow = 0; // Push-backs at one at a time with nothing accepted between them.
  #acceptedEvery = 0; // The time between the last two accepted answers: a service that takes one a second is not down after 100 ms.
  #ceiling = 0; // The limit at which the service last pushed back (0 before any push-back).
  #cutsToOne = 0; // Cuts to one at a time from two or three since the last restart.
  #held = 0; // Round trips held at one under the ceiling since the last cut or probe.
  #heldAnswers = 0; // Answers accepted in those round trips.
  readonly #acceptedAt: Float64Array; // When the last accepted answers came (a ring): what the service took is counted from it.
  #acceptedCount = 0;
  /** The last window's round trip if over SHRINK_ABOVE (0: not); the limit and round trip when, shrinking, it last moved (item 46). */
  #slowBefore = 0;
  #grown = 0; // B5: the round trip at the first one more (-1: grown since by half what one more costs, a queue of ours; none while slow at 2+)
  #atOne = 0; // B5: slow windows in a row within a tenth at one in flight (12: a path, not others' queue)
  #step = { fastSince: 0, lastSlow: 0, runFrom: 0, runRtt: NaN, baseAt: -Infinity, baseBefore: 0, refusedIn: Infinity, proof: 0 }; // F1 (#stepped)
  #slowFrom: [number, number] = [0, 0];
  /** Item 46: the base before the rebase (Infinity: none), when its last probe and it began, windows left, round trips rebased on and before. */
  #probe = { from: Infinity, since: -Infinity, at: 0, windows: 0, on: 0, before: 0 };
  // The current window.
  #windowStart: number;
  #accepted = 0;
  #rttSum = 0;
  #answers = 0; // Answers so far (accepted or pushed back).
  /** Whether each of the last TOLERANCE_ANSWERS answers pushed back (a ring), and how many did. */
  readonly #recent = new Uint8Array(TOLERANCE_ANSWERS);
  #recentPushBacks = 0;
  /** The pace each of those was sent at, their sum, and how many the ring holds since it was cleared. */
  readonly #recentPace = new Float64Array(TOLERANCE_ANSWERS);
  #recentPaceSum = 0;
  #recentCount = 0;
  // A descent (see #judgeDescent), from the first cut after a calm spell: when it began, the answers before it (from the ring),
  // the limit and slow start then, and the answers to requests sent since.
  #descent: { start: number; before: Tally; value: number; slowStart: boolean; since: Tally } | undefined;
  #pushedInARow = 0; // Push-backs since the last accepted answer.
  #noise = 0; // The share of requests the service refuses at random, whatever the pace (0: none seen).
  readonly #level: Tally[]; // Per limit: the answers to requests sent at it (see Tally).
  #counted = 0; // The pace the last answer was counted with under its limit (0: it was not counted).
  #agedAt: number; // When the answers counted under every limit were last halved.
  /** When the limit changed, and to what (a ring of CHANGES). */
  readonly #changedAt = new Float64Array(CHANGES);
  readonly #changedTo = new Uint16Array(CHANGES);
  #changes = 1;

  constructor(options: PaceOptions) {
    this.max = Math.max(1, Math.floor(options.max));
    this.#value = Math.min(this.max, Math.max(1, options.initial ?? 4));
    this.limit = Math.floor(this.#value);
    this.lowest = this.highest = this.limit;
    this.#now = options.now;
    this.#random = options.random ?? Math.random;
    this.#stallMs = options.stallMs ?? 30_000;
    this.#sharedOption = options.shared ?? false;
    const rota = options.rota;
    this.#rota = rota && rota.count > 1 && rota.count <= ROTA_MOST ? newRota(rota, options.now) : undefined;
    this.#windowStart = this.#lastAccepted = this.#step.fastSince = options.now();
    // Room for two round trips' answers at the maximum, and more: a fuller ring only undercounts.
    this.#acceptedAt = new Float64Array(Math.max(64, 4 * this.max));
    this.#level = Array.from({ length: this.max + 1 }, (): Tally => [0, 0, 0]);
    this.#agedAt = options.now();
    this.#changedAt[0] = -Infinity;
    this.#changedTo[0] = this.limit;
  }

  /** Told of every attempt as it ends: what it came to, its round trip (ms), a push-back's Retry-After (ms; negative: none). */
  answered(answer: Answer, rttMs: number, retryAfterMs = -1): void {
    const now = this.#now();
    // Round trips are whole ms, on loopback mostly 0: every answer would be news, what the service took nothing, a gap never closing.
    if (rttMs < MIN_RTT_MS) rttMs = MIN_RTT_MS;
    if (this.#windowMs < 0)
      [this.#windowMs, this.#win.lo, this.#win.hi, this.#burst.n, this.#burst.at] = [rttMs, now, now, this.#startsInARow, now];
    this.#startsInARow = 0;
    if (this.#theirs(answer, rttMs, retryAfterMs) || this.#refusedAt(answer, now - rttMs, rttMs, retryAfterMs)) return;
    // Accepted half a round trip (and 25 ms) late after as long with nothing accepted, first of a heap: the machine stalled (36).
    const late = Math.max(this.#windowMs / 2, QUIET_MS / 4);
    if (answer === Answer.Accepted) {
      if (rttMs - this.#windowMs > late && now - this.#lastAccepted > late && this.#pushedInARow === 0) this.#stalledAt = now;
      this.#count(now - rttMs, false, rttMs);
      if (now - rttMs < this.#burst.at - MIN_RTT_MS) this.#burstAnswer(now, rttMs);
      this.#accepted++;
      this.#rttSum += rttMs;
      // Faster than the gap before: a run of push-backs was the service down, not the others (item 18).
      const fast = !this.#spaced || this.#acceptedEvery < this.gapMs / 2;
      this.#acceptedEvery = now - this.#lastAccepted;
      this.#lastAccepted = now;
      this.#spacings[this.#acceptedCount % SPACINGS] = now - rttMs - this.#acceptedSent;
      if (Math.abs(now - rttMs - this.#acceptedSent) < 2 * MIN_RTT_MS) this.#burstsTaken++; // round trips are whole ms
      [this.#acceptedSent, this.#acceptedRtt] = [now - rttMs, rttMs];
      this.#acceptedAt[this.#acceptedCount++ % this.#acceptedAt.length] = now;
      if (now - rttMs >= this.#cutAt) {
        this.#acceptedSinceCut++;
        // Accepted after a long run of push-backs at one at a time: it was down, not slow.
        if (this.#refusedInARow >= OUTAGE_REFUSALS && now - this.#refusingSince >= OUTAGE_MS && fast) this.#restart();
        this.#refusedInARow = 0;
      }
      if (this.#refusingSince >= 0) this.#refusingSince = this.#windowEnded(now);
      this.#turnTaken(now);
    } else if (answer === Answer.PushedBack) {
      const stalledAt = retryAfterMs < 0 ? this.#stalledAt : -Infinity; // a Retry-After is never forgiven: every sender slows down
      const level = this.#count(now - rttMs, true, rttMs);
      if (retryAfterMs >= 0) this.#withRetryAfter(now);
      this.pushedBack++;
      this.#stopIfHopeless(now, retryAfterMs);
      // A few push-backs among many accepted answers are not a full service (items 2 and 7); nor one no wider spacing mends (#bunched).
      const news = now - rttMs >= Math.max(this.#cutAt, stalledAt) && !this.#bunched(now - rttMs, rttMs);
      let tolerated = !news || this.#win.held || this.#tolerated(level, now - rttMs);
      // Too many: unless the service turns out to refuse as many at a lower pace as at a higher one.
      // Not when paced with a gap, unless alone: there the slots are others', whatever this sender's pace (item 18).
      if (!tolerated && (!this.#spaced || this.#alone) && (this.#judgeDescent(now) || (level > 1 && this.#judgeNoise(level))))
        tolerated = this.#tolerated(level, now - rttMs);
      if (tolerated && news && now - rttMs >= this.#lastPushBack && !this.#win.held) tolerated = this.#heldPushBack(now);
      if (now - rttMs >= stalledAt) this.#lastPushBack = now;
      // To a request sent since the last cut, so news: act now, not a round trip later (the lanes keep sending meanwhile).
      if (!tolerated) {
        // The push-back that cuts leaves its limit for good: counted there, it would make every
        // limit passed on the way down look refused more than it is (a stopping rule's bias).
        if (this.#counted > 0) add(this.#level[level]!, -1, -this.#counted, -1);
        const alone = this.limit === 1;
        // Pushed back without a Retry-After (nginx's limit_req, limit_conn): paced from now on. Not rebased, nor lately: its queue (G2).
        const burst = retryAfterMs < 0 && !this.#paced && this.#sentInBursts && this.#slowStart;
        if (retryAfterMs < 0 && this.#baseRtt <= this.#probe.from && now >= this.#probe.since + CEILING_MS) this.#paced = true;
        const spacing = this.#spacingMs;
        const down = this.#cut(now, true);
        if (burst) {
          // Refused in a burst: says what the service takes in bursts, not paced. Slow start goes
          // on, paced, while the round trip holds (item 11).
          this.#slowStart = true;
          this.#respace();
        }
        if (this.#paced && spacing > 0) this.#holdRate(spacing, down);
        if (alone) this.#refusedAlone(now, rttMs, retryAfterMs, level);
        // Down to one at a time after others' slots refused it: it leaves room at once (item 18).
        else if (this.limit === 1 && this.#crowded && this.#paced) [this.gapMs, this.#gapRtt] = [GAP_WIDEN * this.#windowMs, 0];
        return;
      }
    } else if (answer === Answer.TimedOut && now - rttMs >= this.#cutAt) {
      this.#cut(now, false);
      return;
    }
    // One decision per round trip: a window lasts as long as the last one's answers took.
    if (now - this.#windowStart >= this.#windowMs) this.#decide(now);
  }

  /**
   * The first burst's answers, all accepted: a queue's come back a service time apart (or together, a worker each), a path's jitter's at
   * random. Jitter's: the first, the fastest of them, is no base (every later window read slow, down to one in flight); their mean is.
   */
  #burstAnswer(now: number, rttMs: number): void {
    const b = this.#burst;
    if (b.seen++ > 0) b.gaps.push(now - b.last);
    [b.last, b.sum] = [now, b.sum + rttMs];
    if (b.seen !== b.n) return;
    const [apart, mean] = [b.gaps.filter((gap) => gap > NOISE_MS + Math.max(...b.gaps) / 10), b.sum / b.n]; // together: a client's delays
    if (Math.max(...apart) > BURST_GAPS * Math.min(...apart) && mean > this.#baseRtt * GROW_BELOW + NOISE_MS) this.#baseRtt = mean;
  }

  /** A push-back (itself on time) to the start after one accepted late, paced: the path held that one, the service saw both bunched. */
  #bunched(sent: number, rttMs: number): boolean {
    const [after, late] = [sent - this.#acceptedSent, this.#acceptedRtt - this.#windowMs];
    const held = late >= Math.max(NOISE_MS, after / 6) && rttMs - this.#windowMs < NOISE_MS; // answers late together: the client stalled
    return held && !this.#shared && this.#spacingMs > 0 && after > 0 && after <= 1.5 * this.#spacingMs;
  }

  /** Accepted, on a limit shared with Retry-After (item 27): its turn counted, and ended. */
  #turnTaken(now: number): void {
    // Accepted first after its turn's wait: nobody took its place, so it is alone (one blip was no shards).
    if (this.#afterTurn) [this.#turn, this.#aloneAt, this.#afterTurn] = [-1, now, false];
    // Its turn over, it waits the Retry-After as those it held out did; not with a gap, alone faster than the limit (27).
    if (this.#turn >= 0 && !this.#paced && this.gapMs === 0 && ++this.#turn > TURN && this.limit === 1) {
      [this.#turn, this.#afterTurn] = [1, true];
      this.#pause(now, this.#retryAfter);
    }
  }

  /** A run of push-backs ended (-1): a window limit (N a second, or in any second; review15a O2) is held, its edge tolerated (docs/pace.md). */
  #windowEnded(now: number): number {
    const [win, took] = [this.#win, this.#took((this.#win.held ? now : this.#lastPushBack) - WINDOW_MS - NOISE_MS, 1) - 1];
    if (win.held && took >= 2) this.#tripGapMs = this.#rateGapMs = Math.max(this.#rateGapMs, WINDOW_MS / took); // no faster
    if (now - this.#refusingSince < 2 * this.#windowMs || 2 * (now - this.#lastPushBack) > now - this.#refusingSince) return -1; // a run
    const windows =
      win.lo === win.hi && took >= 2 * WINDOW_LEAST ? 0 : Math.max(1, Math.ceil((this.#lastPushBack - win.hi - EDGE_MS) / WINDOW_MS));
    const edge = windows * WINDOW_MS <= now - win.lo + EDGE_MS && 4 * took * Math.max(0, Math.min(...this.#spacings)) < WINDOW_MS; // a burst
    [win.lo, win.hi] = [this.#lastPushBack, now];
    if (win.held || !edge || took < Math.max(WINDOW_LEAST, (2 * WINDOW_MS) / this.#windowMs) || !this.#paced || this.#shared) return -1;
    [win.held, win.mark, this.gapMs] = [true, this.#answers - 20 * (this.pushedBack + TOLERATED_PUSH_BACKS + took / 2), 0];
    this.#set(this.#windowMs / (this.#tripGapMs = this.#rateGapMs = WINDOW_MS / took) + 1); // as many as the rate keeps out
    return -1;
  }

  /** With Retry-After: no share at random on a strict limit (#burstsTaken; beside others, tolerated, it storms: item 52); item 14's jitter. */
  #withRetryAfter(now: number): void {
    [this.#win.held, this.#noise] = [false, this.#burstsTaken > 0 ? this.#noise : 0]; // a window held is let go
    if (!this.#paced && this.#noise === 0) this.#jitter(now);
  }

  /** A Retry-After too long to wait, or push-backs with nothing accepted for stallMs: the batch stops. */
  #stopIfHopeless(now: number, retryAfterMs: number): void {
    if (this.stopReason) return;
    if (retryAfterMs > MAX_PAUSE_MS) {
      this.stopReason = { kind: 'retry-after', seconds: Math.round(retryAfterMs / 1000) };
      return;
    }
    // Pushed back, with nothing accepted, for stallMs: not one push-back after an idle spell.
    if (this.#refusingSince < 0) this.#refusingSince = now;
    if (this.#win.held && (now - this.#refusingSince >= WINDOW_MS || this.#answers - 20 * this.pushedBack < this.#win.mark))
      [this.#win.held, this.#rateGapMs, this.#tripGapMs] = [false, 0, 0];
    if (now - this.#refusingSince >= this.#stallMs) {
      this.stopReason = { kind: 'pushed-back', seconds: Math.round((now - this.#refusingSince) / 1000) };
    }
  }

  /** One at a time is still too many: a shared pause (see docs/pace.md), or the starts spaced out (item 5). */
  #refusedAlone(now: number, rttMs: number, retryAfterMs: number, level: number): void {
    const again = this.#acceptedCount === this.#acceptedAtRefusal;
    this.#afterTurn = false;
    if (retryAfterMs >= 0) this.#retryAfter = retryAfterMs;
    // One at a time a round trip after the cut: another's slot (27). Alone under two Retry-Afters ago: the others were between turns.
    const shared = now - this.#aloneAt < 2 * this.#retryAfter ? 1 : 0;
    if (retryAfterMs >= 0 && !this.#paced && level === 1 && this.#counted > 0) this.#turn = Math.max(shared, this.#turn);
    // Refused right after its one accepted start: the limit's own spacing, or a probe that got in.
    const own = this.#acceptedCount - this.#acceptedAtRefusal === 1;
    if (!again) this.#ownRuns = own ? Math.min(2 * OWN_RUNS, this.#ownRuns + 1) : Math.max(0, this.#ownRuns - 1);
    add(this.#relay, again ? 1 : 0, again ? 0 : this.#acceptedCount - this.#acceptedAtRefusal);
    if (this.#relay[2] > 200) halve(this.#relay);
    // A slow refusal counts as the round trips it took; one with Retry-After as one, or a slow one would pause below (item 50).
    const trips = retryAfterMs < 0 ? Math.floor(rttMs / Math.max(MIN_RTT_MS, this.#windowMs)) : 1;
    this.#refusedInARow = (again ? this.#refusedInARow : 0) + Math.max(1, trips);
    this.#acceptedAtRefusal = this.#acceptedCount;
    const since = Math.max(this.#lastAccepted, this.#pauseEnd);
    // Not beyond the Retry-After: one let in after seconds held out by others is no service that takes one so seldom (27).
    const quiet = Math.max(QUIET_MS, rttMs, this.#windowMs, Math.min(2 * this.#acceptedEvery, retryAfterMs));
    if (retryAfterMs >= 0 && this.#refusedInARow >= 3 && now - since >= quiet) {
      // A run the share refused before makes likely (half at random: three in a row, one in eight) is no outage: no pause (15).
      const run = this.#pushedInARow;
      let share = Math.max(0, this.#recentPushBacks - run) / Math.max(1, this.#recentCount - run);
      // Others share the limit; or never let in, and paused once already: nothing tells their turns from an outage (item 27).
      if (this.#turn > 0 || (this.#acceptedCount === 0 && this.#pauseEnd > 0)) share = Math.max(share, SHARED_SHARE);
      if (share ** run < LIKELY_RUN) this.#pause(now, retryAfterMs);
      return this.#restart();
    }
    // Paced with a gap, not alone: the slots are others'. The next start is a probe a few round trips later at random;
    // the gap stays, so that the one that gets in keeps it and leaves room for the next: the slots pass round (item 18).
    // Early (#early): its own limit. Alone, but not early: others took the slot (item 22).
    const least = Math.min(...this.#spacings);
    const spacing = now - rttMs - this.#acceptedSent;
    const early = this.#early(now - rttMs);
    this.#ownGap = early ? this.gapMs : 0;
    if (this.#spaced && (!this.#alone || !early)) {
      if (again) this.#crowded = true;
      // Not early, its probes in at once (none refused again), under a quarter of its answers refused: others hold slots
      // at once (limit_conn), not a rate, and one frees within a round trip: item 20's way out, once (item 28). Slots the rota's
      // round trips told (a shard come late to siblings that fill them sat here at 5-9 rows/s for 40 s): every SLOTS_LEAVE_MS.
      if (!early) this.#slotsSeen = again ? -Infinity : this.#slotsSeen + 1;
      const told = this.#rota?.fits === false && now - this.#slotsLeftAt >= SLOTS_LEAVE_MS;
      const slots = told || (!this.#leftSlots && this.#slotsSeen >= SLOTS_SEEN && 4 * this.#recentPushBacks < this.#recentCount);
      // Probes in more than out (alone: PROBES_IN in), refused as often as its other starts (within 2x), a quarter or
      // more: random (items 20, 22).
      const [probes, out, starts] = this.#relay;
      const share = (probes - out) / starts;
      const shown = (this.#alone ? probes - out : probes - 2 * out) >= PROBES_IN;
      const random = shown && share >= MAX_NOISE && Math.abs(Math.log2(out / probes / share)) < 1;
      if (slots || random) {
        this.#noise = Math.max(this.#noise, random ? this.#recentPushBacks / Math.max(1, this.#recentCount) : SLOTS_NOISE);
        if (slots) [this.#leftSlots, this.#slotsLeftAt] = [true, now];
        this.#slotsSeen = 0;
        this.#relay.fill(0);
        return this.#restart();
      }
      // A narrowing since the last push-back is taken back, and a tenth more: it may be what was refused. From twice the
      // round trip, not a tenth more for a collision answers after it, not early: each would widen the gap for good (item 25).
      // Not early, from twice the round trip, the narrowings in a row stay: collisions every few starts kept them slow (29).
      const wide = this.#narrowedFrom > 2 * this.#windowMs && !early && this.#acceptedCount - this.#narrowedAt > 1;
      // At no more than the least spacing it was accepted at, PROBES_IN probes in and none refused again (nobody else holds
      // the slots), under twice the round trip: its own limit, at a gap the jitter put under it, kept by the relay (item 30).
      const selfRefused = spacing <= least + 1 && !this.#crowded && this.#relay[0] >= PROBES_IN && this.gapMs < 2 * this.#windowMs;
      this.gapMs = Math.max(this.gapMs * (selfRefused ? GAP_WIDEN : 1), (wide ? 1 : GAP_WIDEN) * this.#narrowedFrom);
      // Refused by its own limit (early; not a shard's: a slow start-up's spacings make it so), or a narrowing taken back (41).
      if ((early && least < MAX_GAP_MS && !this.#shared) || selfRefused || this.#narrowedFrom > 0) this.#gapRtt = 0;
      if (early || this.gapMs < 2 * this.#windowMs) this.#narrowings = 0;
      this.#heldAnswers = this.#narrowedFrom = 0;
      this.#nextStart = this.#probeAt(now - rttMs);
      // Early: not before the least spacing it was accepted at, where its own limit lets it in (item 24).
      if (early && least < MAX_GAP_MS) this.#nextStart = Math.max(this.#nextStart, this.#acceptedSent + least);
      return;
    }
    // Alone, refused after an accepted start, the gap widens by a tenth; with nothing accepted since, twice (item 5).
    const widen = this.gapMs > 0 && again ? 2 : GAP_WIDEN;
    this.#gapRtt = this.gapMs > 0 ? 0 : this.#windowMs;
    this.gapMs = Math.min(MAX_GAP_MS, widen * (this.gapMs > 0 ? this.gapMs : Math.max(1, this.#windowMs)));
    this.#narrowings = 0;
    if (this.gapMs > this.widestGapMs) this.widestGapMs = this.gapMs;
  }

  /**
   * Shards on a strict rate take turns (one sender alone fills such a limit; four at once collide in its slots: 52.6 rows/s of 100):
   * shard i of n sends in every n-th turn of ROTA_MS on the wall clock, nothing started within a round trip of another's turn.
   * Another's turn is probed one at a time from a random point of its second quarter; ROTA_PROBES in a row in, that shard is gone
   * (done, not started, or a shard run alone), and its turns are taken over from then on, a little slower than its own (so that
   * a push-back there is that shard back: probed again at its next turn). A probe pushed back shuts the turn, and that shard's
   * next ROTA_SEEN. Returns the wait (ms) before a start may go (0: now).
   */
  #rotaWait(inFlight: number): number {
    const rota = this.#rota;
    if (!rota || !this.#onRota) return 0;
    const [t, of, { index, count, seen }] = [rota.clock(), this.#rotaTurn, rota];
    const at = Math.floor(t / ROTA_MS);
    const [owner, left] = [modulo(at, count), (at + 1) * ROTA_MS - t];
    // What it learnt while all sent at once (the relay among others' slots, noise) is no guide to a turn alone; nor is a gap
    // about the round trip (the relay's) when its own turn begins: a limit whose slot is wider than that keeps its gap.
    if (Number.isNaN(of.at) || (of.at !== at && owner === index && this.gapMs > 0 && this.gapMs < 2 * this.#windowMs)) {
      this.#restart();
      [this.#crowded, this.#noise] = [false, 0];
    }
    if (of.at !== at) {
      // Gone (see ROTA_SLOWER): taken over from the start, a little slower than its own turns go.
      const open = owner === index ? 1 : Number.isNaN(seen[owner]) ? (this.#heir(owner, at) ? 3 : 2) : seen[owner]! > at ? 2 : 0;
      const spacing = ROTA_SLOWER * (rota.ownSpacing || this.#windowMs);
      Object.assign(of, { at, open, probes: 0, spacing, from: (at + (open === 3 ? 0 : 0.25 + this.#random() / 4)) * ROTA_MS });
    }
    if (modulo(at + 1, count) !== index && left < this.#windowMs) return left;
    if (of.open === 2) return left;
    if (of.open !== 1 && t < of.from) return of.from - t;
    return of.open === 0 && inFlight > 0 ? Math.max(1, this.#windowMs / 4) : 0;
  }

  /** Whether a gone shard's turn `at` is this one's: one of those not found gone, in turn, as each of them sees them (no two at once). */
  #heir(owner: number, at: number): boolean {
    const { index, count, seen } = this.#rota!;
    const live = [...seen.keys()].filter((shard) => shard === index || !Number.isNaN(seen[shard]));
    return live[(Math.floor(at / count) + owner) % live.length] === index;
  }

  /** Told of every answer first: one to a start in another's turn is the rota's (true; #rotaWait), never one with a Retry-After (contract). */
  #theirs(answer: Answer, rttMs: number, retryAfterMs: number): boolean {
    const rota = this.#rota;
    if (rota && this.#paced) this.#strictRate(rota, answer, rttMs);
    if (!rota || !this.#onRota || retryAfterMs >= 0) return false;
    const [of, { index, count, seen }] = [this.#rotaTurn, rota];
    const at = Math.floor((rota.clock() - rttMs) / ROTA_MS);
    const owner = modulo(at, count);
    // Its own turns' pace, for another's taken over: the time a turn takes over the starts it got in.
    if (owner === index && answer === Answer.Accepted) {
      if (at !== rota.ownAt) [rota.ownSpacing, rota.ownAt, rota.ownIn] = [rota.ownIn > 0 ? ROTA_MS / rota.ownIn : 0, at, 0];
      rota.ownIn++;
    }
    // A push-back at its own turn's edges is another's clock a little apart (the turns overlap), not its limit.
    const into = rota.clock() - rttMs - at * ROTA_MS;
    const edge = into < ROTA_EDGE_MS || into > ROTA_MS - this.#windowMs - ROTA_EDGE_MS;
    if (owner === index && answer === Answer.PushedBack && edge) this.pushedBack++;
    if (owner === index && !edge && (answer === Answer.Accepted || answer === Answer.PushedBack)) this.#ownTurn(answer, rttMs);
    if (owner === index) return answer === Answer.PushedBack && edge;
    // Answers in another's turn teach the pace nothing (it is held there, see ROTA_SLOWER); a time-out still does.
    if (answer !== Answer.Accepted && answer !== Answer.PushedBack) return false;
    if (at === of.at && answer === Answer.Accepted && of.open === 0 && ++of.probes >= ROTA_PROBES) [of.open, seen[owner]] = [3, NaN];
    // Taken over at a pace its own limit does not refuse, a push-back is that shard back: probed again at its next turn.
    if (at === of.at && answer === Answer.PushedBack) [of.open, seen[owner]] = [2, of.open === 3 ? at + 1 : at + ROTA_SEEN * count];
    if (answer === Answer.PushedBack) this.pushedBack++;
    // Still counted towards stopping: pushed back in every turn, nothing accepted for stallMs, it stops (contract).
    if (answer === Answer.PushedBack) this.#stopIfHopeless(this.#now(), -1);
    else this.#refusingSince = -1;
    return true;
  }

  /**
   * An answer in its own turn, where it sends alone. A rate seldom refuses a start spaced as far as most it got in (3%; 22% at a slow limit
   * whose slots others' probes take); refusals at random take their share at any spacing. 35% of 80 such: no rate, the rota left for good
   * (four shards of a service refusing half at random crawled on it at 2 rows/s each; at once, the judge of noise takes them).
   */
  #ownTurn(answer: Answer, rttMs: number): void {
    const { got, wide } = this.#rota!;
    const refused = answer === Answer.PushedBack ? 1 : 0;
    const spacing = this.#now() - rttMs - this.#acceptedSent;
    if (got.length >= 8 && spacing >= [...got].sort((a, b) => a - b)[got.length >> 1]!)
      [wide[0], wide[1]] = [wide[0] + refused, wide[1] + 1];
    if (!refused && got.push(spacing) > 16) got.shift();
    if (wide[1] < 80) return;
    this.#rota!.random ||= wide[0] >= 0.35 * wide[1];
    [wide[0], wide[1]] = [wide[0] / 2, wide[1] / 2];
  }

  /**
   * Whether the limit is a rate, for the rota: its fastest push-back comes back as soon as its fastest accepted answer. Slots an
   * app holds at once (limit_conn) are refused before the app's time, and shards share those well at once (bench-pace-conn): no
   * rota there. The fastest of each, as a late client or a slow path only adds to a round trip.
   */
  #strictRate(rota: Rota, answer: Answer, rttMs: number): void {
    const r = rota.rtts; // answers accepted and pushed back, and the fastest round trip of each
    if (answer === Answer.Accepted) [r[0], r[1]] = [r[0] + 1, Math.min(r[1], rttMs)];
    if (answer === Answer.PushedBack) [r[2], r[3]] = [r[2] + 1, Math.min(r[3], rttMs)];
    if (r[0] >= RATE_ANSWERS && r[2] >= RATE_ANSWERS) rota.fits = r[3] >= r[1] - Math.max((3 * NOISE_MS) / 2, r[1] / 20);
  }

  /** The relay's probe, from twice the fastest round trip at most: one slow answer spaced them seconds, a shard or a batch beside others stopped (R3). */
  #probeAt(sent: number): number {
    return sent + PROBE * Math.min(this.#windowMs, 2 * this.#baseRtt) * (0.5 + this.#random());
  }

  /** Sharing the limit with other shards at once: not while taking turns. */
  get #shared(): boolean {
    return this.#sharedOption && !this.#onRota;
  }

  /** Shards take turns on a strict rate: pushed back without Retry-After, refused as soon as accepted (#strictRate), no two starts at once taken. */
  get #onRota(): boolean {
    return this.#rota?.fits === true && !this.#rota.random && this.#paced && this.#burstsTaken < 3;
  }

  /** Paced, one at a time with a gap, from RELAY_MIN_RTT_MS away (item 18). */
  get #spaced(): boolean {
    return this.gapMs > 0 && this.#paced && this.#baseRtt >= RELAY_MIN_RTT_MS;
  }

  /** Refused right after its one accepted start OWN_RUNS times running, and rarely since: a sender alone (item 18). */
  get #alone(): boolean {
    return this.#ownRuns >= OWN_RUNS;
  }

  /**
   * Takes a turn to start a request, if one may start now: below the limit, not paused, and (under
   * one at a time) the gap since the last start kept. A caller that gets true starts a request.
   */
  take(inFlight: number): boolean {
    // F1's base just taken: one start at once beside the one in flight, which a strict limit refuses at the path's round trip (#refusedAt).
    if (this.#step.proof < 0 && inFlight > 0 && this.#now() >= this.pausedUntil) return (this.#step.proof = this.#now()) > 0;
    if (inFlight >= this.limit) return false;
    const wait = this.#rotaWait(inFlight);
    // A wait under its clock's precision (the rota's is another) would leave pausedFor() at 0, and nothing to wake a simulated lane.
    this.#rotaTurn.until = wait > 0 ? this.#now() + Math.max(wait, 0.001) : 0;
    if (wait > 0) return false;
    const open = this.pausedUntil === 0 && this.gapMs === 0 && this.#spacingMs === 0 && this.#holdUntil === 0;
    if (!open && !this.#scheduled(inFlight)) return false;
    this.#used = Math.max(this.#used, inFlight + 1);
    if (++this.#startsInARow > 1) this.#sentInBursts = true;
    // In another's turn taken over, a little slower than its own pace (see #rotaWait).
    if (this.#rotaTurn.open === 3) this.#rotaTurn.from = this.#rota!.clock() + this.#rotaTurn.spacing;
    return true;
  }

  /** A start that must wait for a pause, the gap, the pacing or a jitter: whether it may go now (it then keeps the schedule). */
  #scheduled(inFlight: number): boolean {
    const now = this.#now();
    if (now < this.#holdUntil) return false;
    this.#holdUntil = 0;
    // Paced, a request alone is no burst: it goes (and a clock that moves only with answers, as
    // in tests, never waits on a schedule that nothing in flight would move).
    if (now < this.pausedUntil || (now < this.#nextStart && (this.gapMs > 0 || inFlight > 0))) return false;
    // A pause that is over is forgotten, so that the next turns take the fast path again.
    if (this.pausedUntil !== 0) this.pausedUntil = 0;
    if (this.gapMs > 0) this.#nextStart = now + this.gapMs;
    else if (this.#spacingMs > 0) {
      // On schedule, not from each start: a timer that fires late does not lower the pace. Behind by
      // at most PACE_SLACK_MS (less one spacing): a stall is not made up in a burst, which a limit
      // without burst would refuse, and a few starts per timer keep timers from capping the pace.
      const slack = Math.max(0, PACE_SLACK_MS - this.#spacingMs);
      // Nor run ahead by more than a round trip: requests alone went at once, and the starts held back behind it went together (H6).
      const ahead = this.#shared ? Infinity : now + this.#windowMs;
      this.#nextStart = Math.max(Math.min(this.#nextStart, ahead), now - slack) + this.#spacingMs;
      // One at a time, answered a round trip after each start, it could keep a strict limit's every slot: room (item 21).
      if (this.limit === 1 && ++this.#startsAtOne % ROOM_EVERY === 0) this.#holdUntil = now + 2 * this.#windowMs;
    }
    return true;
  }

  /** Counts an answer to a request sent at `sent` in the ring of the last answers and under the limit it was sent at (returned). */
  #count(sent: number, pushedBack: boolean, rttMs: number): number {
    if (sent + rttMs - this.#agedAt >= LEVEL_HALF_LIFE_MS) {
      this.#agedAt = sent + rttMs;
      this.#level.forEach(halve);
    }
    const [slot, flag] = [this.#answers++ % TOLERANCE_ANSWERS, pushedBack ? 1 : 0];
    this.#recentPushBacks += flag - this.#recent[slot]!;
    this.#pushedInARow = pushedBack ? this.#pushedInARow + 1 : 0;
    this.#recent[slot] = flag;
    // The limit at the time it was sent: the last change before then.
    let i = this.#changes - 1;
    const oldest = Math.max(0, this.#changes - CHANGES);
    while (i > oldest && this.#changedAt[i % CHANGES]! > sent) i--;
    const level = this.#changedTo[i % CHANGES]!;
    // Paced, the spacing may hold the pace below the limit over the round trip: the lower of the two.
    const paced = this.#spacingMs > 0 ? 1 / this.#spacingMs : Infinity;
    const pace = Math.min(level / Math.max(rttMs, this.gapMs), paced);
    this.#recentPaceSum += pace - this.#recentPace[slot]!;
    this.#recentPace[slot] = pace;
    if (this.#recentCount < TOLERANCE_ANSWERS) this.#recentCount++;
    if (this.#descent && sent >= this.#descent.start) add(this.#descent.since, flag, pace);
    // Sent within a round trip of the limit coming down: the requests sent before were still out,
    // so the service saw more than this limit. Not counted.
    this.#counted = 0;
    const cameDown = i > oldest && level < this.#changedTo[(i - 1) % CHANGES]!;
    if (cameDown && sent - this.#changedAt[i % CHANGES]! < this.#windowMs) return level;
    const at = this.#level[level]!;
    this.#counted = pace;
    add(at, flag, pace);
    if (at[0] >= LEVEL_MEMORY) halve(at);
    return level;
  }

  /** The answers counted under the limits from..to, summed. */
  #levels(from: number, to: number): Tally {
    const sum: Tally = [0, 0, 0];
    for (const at of this.#level.slice(from, to + 1)) add(sum, at[1], at[2], at[0]);
    return sum;
  }

  /** Refused sooner after its last accepted start than its last accepted starts came: its own limit, not others' slots (item 22). */
  #early(sent: number): boolean {
    return sent - this.#acceptedSent < Math.min(...this.#spacings) - 1;
  }

  /** Whether the last answers' push-backs (the last sent at `level`) are few enough to be random refusals (items 2 and 7). */
  #tolerated(level: number, sent: number): boolean {
    // In the relay, item 28's way out spent or barred, refused by others' slots (not early, 22) under half item 20's share: shared (35).
    const early = this.#early(sent);
    const shared =
      this.#spaced && (this.#leftSlots || this.#slotsSeen < 0) && !early && this.#recentPushBacks < (MAX_NOISE / 2) * this.#recentCount;
    if (shared) this.#noise = Math.max(this.#noise, SLOTS_NOISE);
    // One at a time with no share found at random, or paced with a gap and not shared: every push-back is news (items 17, 18).
    if (this.limit <= 1 && (this.#noise === 0 || this.#spaced) && !shared) return false;
    // Most of the last answers pushed back: a limit, whatever a judge found (item 16: no push-back storm).
    if (this.#recentCount >= DESCENT_ANSWERS && this.#recentPushBacks > MAX_TOLERATED * this.#recentCount) return false;
    // A quarter more than the share found at random (and 2 in 100), and the pace now accepted clearly less than
    // a lower one (at random, what is accepted grows with the pace; under a limit, not): a limit after all (item 19).
    const over =
      this.#noise > 0 && this.#recentCount >= DESCENT_ANSWERS && this.#recentPushBacks > (1.25 * this.#noise + 0.02) * this.#recentCount;
    const from = Math.ceil(NOISE_BAND * level);
    if (over && this.#noiseBetween(1, from - 1, from, level) < 0) {
      this.#noise = 0;
      return false;
    }
    // The random refusals expected among the last answers, and as many more as chance gives (3.5
    // standard deviations: once in thousands of answers).
    const expected = this.#noise * TOLERANCE_ANSWERS;
    if (this.#recentPushBacks <= TOLERATED_PUSH_BACKS + expected + 3.5 * Math.sqrt(expected)) return true;
    // From two at once to one at a time only on a large share (item 7), counted with four accepted
    // answers more so that the first few do not decide; two in a row are not random.
    if (level !== 2 || this.#pushedInARow > 1) return false;
    const [answers, refused] = this.#level[2]!;
    return refused / (answers + 4) < TWO_AT_ONCE_SHARE;
  }

  /**
   * Too many push-backs, to a request sent at `level`: does the service refuse this share at random, whatever the pace (item 7)? The pace
   * now against the paces above it, and those below against it. Says whether the share tolerated grew; when it did not, it comes down.
   */
  #judgeNoise(level: number): boolean {
    const from = Math.max(1, Math.ceil(NOISE_BAND * level));
    const found = Math.max(this.#noiseBetween(from, level, level + 1, this.max), this.#noiseBetween(1, from - 1, from, level));
    if (found > this.#noise) {
      this.#noise = found;
      this.#ceiling = 0;
      return true;
    }
    // Not seen again: what is tolerated comes down (a service changes). A share beyond what the
    // limits can be compared by was found by a descent: not unseen here.
    if (this.#noise > MAX_NOISE) return false;
    const halved = this.#noise / 2;
    this.#noise = found > 0 ? found : halved < MIN_NOISE / 2 ? 0 : halved;
    return false;
  }

  /**
   * Too many push-backs during a descent: did coming down bring them down (item 10)? Refusals that did not follow the pace are tolerated
   * from now on, and the limit goes back to where the descent began. Says whether they were random.
   */
  #judgeDescent(now: number): boolean {
    const descent = this.#descent;
    if (!descent || descent.since[0] < DESCENT_ANSWERS) return false;
    if (descent.before[0] < DESCENT_ANSWERS) {
      // Begun before there were answers enough to compare with: the answers since take their place.
      [descent.before, descent.since, descent.start] = [descent.since, [0, 0, 0], now];
      return false;
    }
    const share = randomShare(descent.since, descent.before, [MAX_NOISE, MAX_DESCENT_NOISE], MAX_DESCENT_RATIO);
    if (share > 0) {
      this.#noise = Math.max(this.#noise, share);
      this.#restart();
      this.#slowStart = descent.slowStart;
      this.#set(Math.max(this.#value, descent.value));
      this.#lastPushBack = now;
      return true;
    }
    if (share < 0) {
      // It followed the pace: a limit. What was tolerated as random comes down to what is left.
      const left = descent.since[1] / descent.since[0];
      if (this.#noise > left) this.#noise = left < MIN_NOISE ? 0 : left;
      this.#descent = undefined;
    }
    return false;
  }

  /** The share refused at random, judged from the limits low..lowTop against high..highTop (0: none; -1: a limit). */
  #noiseBetween(low: number, lowTop: number, high: number, highTop: number): number {
    const [lower, higher] = [this.#levels(low, lowTop), this.#levels(high, highTop)];
    if (lower[0] < NOISE_ANSWERS || higher[0] < NOISE_ANSWERS) return 0;
    return randomShare(lower, higher, [MIN_NOISE, MAX_NOISE], MAX_PACE_RATIO);
  }

  #decide(now: number): void {
    // Held as a rate: time without a push-back narrows the spacing (docs/pace.md, "The pace held as a rate").
    if (this.#rateGapMs > 0 && this.#accepted > 0) {
      if (now - this.#lastPushBack < this.#windowMs) this.#rateMs = this.#rateNarrowings = 0;
      else if ((this.#rateMs += now - this.#windowStart) >= RATE_NARROW_MS) {
        this.#rateMs = 0;
        // Near the spacing last refused under the round trip, 1% a step, not past it; a fifth under it at two, the limit moved (51).
        if (this.limit > 1 && 1.25 * this.#rateGapMs < this.#tripGapMs) this.#tripGapMs = this.#slowBefore ? this.#rateGapMs : 0;
        const near = RATE_WIDEN ** 2 * this.#tripGapMs;
        // Past it at two or more without a push-back, it was no edge (a slow start's burst): faster again (54).
        if (this.#rateGapMs <= near && (this.limit === 1 || this.#win.held || this.#rateGapMs >= this.#tripGapMs)) this.#rateNarrowings = 0;
        const faster = Math.max(0, ++this.#rateNarrowings - NARROWINGS_BEFORE_FASTER);
        this.#rateGapMs = Math.max(this.#rateGapMs * (1 - Math.min(0.5, RATE_NARROW * 2 ** faster)), this.#rateGapMs > near ? near : 0);
      }
    }
    if (now - this.#lastPushBack >= CEILING_MS) this.#descent = undefined; // a calm spell ends a descent: the next cut starts another
    const [accepted, rtt, elapsed] = [this.#accepted, this.#rttSum / this.#accepted, now - this.#windowStart];
    if (accepted > 0) [this.#baseRtt, this.#windowMs] = [Math.min(this.#baseRtt, rtt), rtt];
    // Not paced, the base allows for jitter, which leaves the round trip at half the limit or less where it is now; a queue
    // grows it with the limit (item 45): the harmonic mean of the answers there (their limit over their pace), if slower.
    // Slow is a quarter above it (a queue doubles it), or, as before, half above the fastest window.
    let [answers, perMs] = [0, 0];
    for (let level = 1; level <= this.limit / 2; level++)
      [answers, perMs] = [answers + this.#level[level]![0], perMs + this.#level[level]![2] / level];
    const base = this.#paced || !(answers > 0) ? this.#baseRtt : Math.max(this.#baseRtt, answers / perMs);
    let slow = false;
    if (accepted > 0 && this.gapMs > 0) this.#narrowGap(accepted, elapsed);
    else if (accepted > 0) {
      if (this.#slowStart && rtt <= this.#baseRtt * SLOW_START_TOLERANCE + NOISE_MS) this.#set(this.#value * 2);
      else this.#slowStart = false;
      if (!this.#slowStart) {
        slow = rtt > Math.max(this.#baseRtt * SHRINK_ABOVE, base * SLOW_START_TOLERANCE) + NOISE_MS;
        // Cut back to one at a time from two or three thrice: it takes one a round trip, and growing
        // past two every CEILING_MS costs five push-backs (a strict 20/s at 50 ms): only probes.
        const kept = this.#paced && this.limit <= 2 && this.#cutsToOne >= 3;
        const aimd = !this.#paced && this.#ceiling > 0 && this.#cutBy === 'push-back' && now - this.#cutAt < AIMD_MS;
        if (this.#probed(now, rtt)) {
          // A rebase tried again (item 46): nothing else decides in its windows.
        } else if (!slow && aimd) {
          // Additive increase in rate (the pace, requests a ms, times the round trip).
          this.#set(this.#value + INCREASE * elapsed * rtt);
        } else if (this.#paced && !slow && this.#ceiling > 0 && (now - this.#lastPushBack < CEILING_MS || kept)) {
          // Near where the service pushed back: back to one under it, hold, then probe (item 4).
          if (this.#value + 1 < this.#ceiling) this.#set(this.#value + 1);
          else {
            const enough = (this.#heldAnswers += accepted) >= HOLD_ANSWERS || (this.#shared && this.#held + 1 >= SHARED_HOLD_TRIPS);
            if (++this.#held >= HOLD_ROUND_TRIPS && enough) {
              this.#held = this.#heldAnswers = 0;
              this.#set(this.#value + 1);
              this.#ceiling = Math.max(this.#ceiling, this.limit + 1);
            }
          }
        } else if (this.#paced && !this.#shared && this.limit < RATE_HOLDS_BELOW && this.#used > 0 && this.#used < this.limit) {
          // Paced, a limit not filled in its round trip does not grow (RFC 7661): filled by a stall's bunched starts, it is refused.
        } else if (rtt <= base * GROW_BELOW + NOISE_MS) {
          // By the square root (as Gradient2 allows for a queue): 32 back to 64 in six round trips.
          this.#set(this.#value + Math.sqrt(this.#value));
        } else if (this.#paced && now - this.#lastPushBack >= this.#windowMs && rtt <= this.#baseRtt * PACED_GROW_BELOW) {
          // A service that pushes back without Retry-After says when it is full: a slower round trip with no push-back
          // is as often its other clients' load (the other shards', the machine's) as a queue of ours. One more a round
          // trip, as Reno and Vector's ARC do, so that push-backs share it out (AIMD); with them, the round trip counts
          // again. Not past twice the base: a service that slows with the load would be driven to the maximum.
          this.#set(this.#value + 1);
        } else if (slow && this.#slowBefore) {
          // Two slow round trips in a row: a tenth fewer. Unless, not paced nor pushed back lately, down to 2 in flight, the round trip
          // held within 5% as the limit fell to a quarter: slower for everyone, the base (item 46). Shards' queue moves as they come down.
          const [from, fromRtt] = this.#slowFrom;
          const flat = Math.abs((rtt + this.#slowBefore) / 2 - fromRtt) <= fromRtt / 20 + NOISE_MS;
          if (!flat) this.#slowFrom = [this.#value, (rtt + this.#slowBefore) / 2];
          if (!this.#paced && now - this.#lastPushBack >= CEILING_MS && flat && this.#value <= Math.min(2, from / 4)) {
            this.#probe = { from: Math.min(this.#probe.from, this.#baseRtt), since: now, at: now, windows: 0, on: rtt, before: 0 };
            [this.#baseRtt, this.#slowFrom] = [rtt, [0, 0]];
          } else this.#set(this.#value * SHRINK_BY);
        }
      }
    }
    this.#grown = slow ? this.#grownFor(now, rtt, elapsed / accepted) : 0; // grown for good: one more (B5) or the base (F1), not a queue (F5)
    this.#slowBefore = slow ? rtt : 0;
    this.#nextWindow(now);
  }

  /**
   * Held under the round trip and slow (B5): two slow windows in a row within a tenth, one more; returns the round trip at the first
   * one more. Grown since by half what one more costs (`cost`, ms a row), a queue of ours (F5): one back, -1 while slow. At one in
   * flight nothing of ours queues: 12 slow windows in a row there within a tenth (others' queue moves: review15a F3), B5 anew (measure15).
   */
  #grownFor(now: number, rtt: number, cost: number): number {
    const steady = Math.abs(rtt - this.#slowBefore) < rtt / 10;
    const one = (this.#atOne = this.limit === 1 && steady ? this.#atOne + 1 : 0) >= 12 && now - this.#lastPushBack >= CEILING_MS;
    if (this.#tripGapMs === 0) return this.#stepped(now, rtt, one);
    const grown = this.#grown < 0 && one ? 0 : this.#grown; // a path grown over a second, or twice
    const queue = grown > 0 && rtt > grown + cost / 2; // grown with the count: a queue of ours, one back
    if (queue) this.#set(this.#value - 1);
    if (queue || grown < 0) return -1;
    if (!steady) return grown;
    this.#set(this.#value + 1);
    return grown || rtt;
  }

  /** Not held (review15a F1), one sender: a round trip a slow run reached in STEP_MS after FAST_MS with no slow spell (a step; not others'
   * queue found at the start: F4), held 12 windows at one in flight, is the base, proved at once (#refusedAt); -1 while slow after a proof failed. */
  #stepped(now: number, rtt: number, one: boolean): number {
    const step = this.#step;
    if (!this.#slowBefore && step.lastSlow - step.runFrom >= STEP_MS) step.fastSince = step.lastSlow; // a slow spell, not a blip, ended then
    if (!this.#slowBefore) [step.runFrom, step.runRtt] = [now, now - step.fastSince >= FAST_MS ? rtt : NaN];
    else if (now - step.runFrom <= STEP_MS && !Number.isNaN(step.runRtt)) step.runRtt = rtt;
    step.lastSlow = now;
    if (this.#grown < 0) return -1;
    const calm = one && now - this.#lastPushBack >= FAST_MS && !this.#crowded && !this.#sharedOption; // no other sender seen for 10 s (E)
    if (this.#paced && calm && Math.abs(rtt - step.runRtt) <= rtt / 10)
      [step.baseAt, step.baseBefore, this.#baseRtt, step.proof] = [now, this.#baseRtt, rtt, -1];
    return 0;
  }

  /** F1's proof: a strict limit refuses at the path's round trip, the app's time less than the base as before the step; the refusal of a start
   * beside the one in flight faster than that by an eighth: the step was another's queue behind the limit (review19 R2, review17 B), undone. */
  #refusedAt(answer: Answer, sent: number, rttMs: number, retryAfterMs: number): boolean {
    const step = this.#step;
    const refused = answer === Answer.PushedBack && retryAfterMs < 0; // a strict limit's refusal: no Retry-After
    // Its refusal not back in four round trips (a bucket with a burst let it in: limit_req burst=1): nothing proved, undone (review25).
    const unproved = step.proof > 0 && sent + rttMs - step.proof > 4 * this.#baseRtt;
    if (step.baseAt === -Infinity) return refused && (step.refusedIn = Math.min(step.refusedIn, rttMs)) < 0;
    if (!unproved && (!refused || step.proof <= 0 || Math.abs(sent - step.proof) > MIN_RTT_MS)) return false;
    if (unproved || step.refusedIn + this.#baseRtt - step.baseBefore - rttMs > this.#baseRtt / 8) {
      [this.#baseRtt, step.baseAt, step.runRtt, this.#grown] = [step.baseBefore, -Infinity, NaN, -1]; // the base before, for this slow run
      this.#set(1);
    }
    step.proof = 0;
    if (unproved) return false; // the answer that found it so is an answer as any other
    this.pushedBack++; // the refusal it asked for: no news of the pace
    return true;
  }

  /**
   * Rebased (item 46): every 10 s from the rebase, and every 10 s on the clock (shards of one machine drain their one queue together,
   * as BBR's ProbeRTTs fall in step: review46d H1; shards rebased together on other machines by the first: review14b K1; on the clock, a
   * boundary 5 s or more after the rebase, not one inside the spell that gave it: review14b K3), for two windows,
   * 3/4 of the count the rate needs at the round trip rebased on (a queue of ours falls a quarter under it; review46d G1). Off it by a tenth,
   * or pushed back (the service says where it is full; review46c): the old base, the levels forgotten (item 45 read them as jitter), the
   * next descent counted from before the probe (it may end at one).
   */
  #probed(now: number, rtt: number): boolean {
    const [probe, full] = [this.#probe, this.#paced || now - this.#lastPushBack < CEILING_MS];
    const onClock = Math.floor(now / PROBE_EVERY_MS) > Math.floor(Math.max(probe.since, probe.at + PROBE_EVERY_MS / 2) / PROBE_EVERY_MS);
    const due = onClock || Math.floor((now - probe.at) / PROBE_EVERY_MS) > Math.floor((probe.since - probe.at) / PROBE_EVERY_MS);
    if (this.#baseRtt <= probe.from || (!full && probe.windows === 0 && !due)) return false;
    if (probe.windows === 0) Object.assign(probe, { since: now, windows: 3, before: rtt });
    const f = 0.75 * Math.min(1, probe.on / probe.before);
    const off = full || (--probe.windows === 0 && Math.abs(rtt - probe.on) > probe.on / 10 + NOISE_MS);
    if (off) this.#level.forEach((at) => at.fill(0));
    if (off) [this.#baseRtt, this.#slowFrom] = [probe.from, [this.#value / f, probe.before]];
    else if (probe.windows !== 1) this.#set(this.#value * (probe.windows ? f : 1 / f));
    return true;
  }

  /** Under one at a time, the gap between starts narrows as answers are accepted. */
  #narrowGap(accepted: number, elapsed: number): void {
    if (!this.#paced) {
      // AIMD under one at a time too (the gap is the pace's inverse): a crowded-out shard comes back
      // as fast as the others grow. Gone at the fastest round trip (a slow one would close it early).
      const rtt = this.#windowMs;
      this.gapMs = rtt / (rtt / this.gapMs + INCREASE * elapsed * rtt);
      if (this.gapMs <= Math.min(rtt, this.#baseRtt)) this.gapMs = this.#nextStart = 0;
      return;
    }
    // Set from a round trip a start-up stretched (a tenth over the one now), its own limit not seen: down with it (item 41).
    // Among shards, once so, on down to the fastest (within NOISE_MS) while the round trip is back near it: a window is one answer,
    // the first after a slow start-up late too, and the relay favours the narrowest gap (a tenth wider took 0.16x: item 57).
    const followed = this.#shared && this.#followed && this.#windowMs <= GAP_WIDEN * this.#baseRtt + NOISE_MS;
    const rtt = followed ? this.#baseRtt + NOISE_MS : this.#windowMs;
    if (this.#gapRtt > (followed ? rtt : GAP_WIDEN * rtt + NOISE_MS))
      [this.gapMs, this.#gapRtt, this.#followed] = [(this.gapMs * rtt) / this.#gapRtt, rtt, true];
    // Starts spaced out: a little closer every few accepted answers (more often the wider the gap,
    // so that coming back from a long one does not take minutes), until no longer than a round trip.
    // Over twice the round trip and twice the gap its own limit last refused (item 22), in time: 2 answers at least (item 26).
    const wide = this.gapMs > 2 * Math.max(this.#windowMs, this.#ownGap);
    const every = Math.max(wide ? 2 : NARROW_MIN_ANSWERS, Math.min(HOLD_ANSWERS, Math.ceil(NARROW_EVERY_MS / this.gapMs)));
    if ((this.#heldAnswers += accepted) < every) return;
    this.#heldAnswers = 0;
    // Faster once three narrowings in a row brought no push-back (a limit lifted: item 5).
    const faster = Math.max(0, ++this.#narrowings - NARROWINGS_BEFORE_FASTER);
    this.#narrowedFrom = this.gapMs;
    this.#narrowedAt = this.#acceptedCount;
    this.gapMs *= 1 - Math.min(0.5, GAP_NARROW_BY * 2 ** faster);
    // Paced with a gap, never under a tenth over the round trip: every sender leaves room (item 18).
    const floor = this.#spaced ? GAP_WIDEN * this.#windowMs : this.#windowMs;
    if (this.gapMs > floor) return;
    // The limit alone paces again: from a slow start if the limit seems gone, else under two at once.
    if (faster > 0) return this.#restart();
    if (this.#spaced) return void (this.gapMs = floor);
    this.gapMs = this.#nextStart = 0;
    this.#ceiling = 2;
  }

  /**
   * A push-back or a time-out to a request sent since the last cut: the limit comes down at once.
   * Push-back: to what the service took, and under the limit it pushed back at. A time-out: by half.
   */
  #cut(now: number, pushedBack: boolean): boolean {
    if (pushedBack && !this.#descent) {
      const before: Tally = [this.#recentCount, this.#recentPushBacks, this.#recentPaceSum];
      this.#descent = { start: now, before, value: this.#value, slowStart: this.#slowStart, since: [0, 0, 0] };
    }
    const slowStart = this.#slowStart;
    [this.#slowStart, this.#cutAt] = [false, now];
    // Cuts start a new round trip; what this one saw of the round trip still counts.
    if (this.#accepted > 0) this.#windowMs = this.#rttSum / this.#accepted;
    // Nothing sent since the last cut was accepted, and this was pushed back: the answers the service accepted lately were to requests sent
    // before, so what it took says too much (a service that has just gone down). Halve, as TCP does.
    const down = pushedBack && this.#acceptedSinceCut === 0 && this.#cutBy === 'push-back';
    if (pushedBack) {
      const took = down ? this.#value / 2 : this.#took(now - TOOK_ROUND_TRIPS * (this.#windowMs > 0 ? this.#windowMs : this.#baseRtt));
      [this.#ceiling, this.#held, this.#heldAnswers] = [this.limit, 0, 0];
      if (this.#paced || slowStart || down) this.#set(Math.min(this.#value, this.#ceiling - 1, took));
      else this.#set(took < this.#value / 2 ? took : this.#value * DECREASE); // AIMD (see INCREASE)
      if (this.limit === 1 && this.#ceiling <= 3) this.#cutsToOne++;
      // Down to under half: the service has changed (or slow start overshot it far). What the
      // limits above were answered says nothing of it now.
      if (2 * this.limit < this.#ceiling) for (const at of this.#level.slice(this.limit + 1)) at.fill(0);
    } else {
      this.#set(this.#value / 2);
    }
    this.#cutBy = pushedBack ? 'push-back' : 'time-out';
    this.#acceptedSinceCut = 0;
    // The push-backs that made this cut do not count towards the next: that takes three answers more (those to requests sent before the cut
    // among them; only one sent after it acts). Not when down to one at a time, where each counts: so that a probe back at two that is
    // pushed back again returns to one at once.
    if (this.limit > 1) {
      this.#recent.fill(0);
      this.#recentPace.fill(0);
      this.#recentPushBacks = this.#recentPaceSum = this.#recentCount = 0;
    }
    this.#nextWindow(now);
    return down;
  }

  /** What the service took, as a number in flight (Little's law): the answers accepted since `since`, per round trip (`per` of them). */
  #took(since: number, per = TOOK_ROUND_TRIPS): number {
    const ring = this.#acceptedAt;
    const oldest = Math.max(0, this.#acceptedCount - ring.length);
    let count = 0;
    for (let i = this.#acceptedCount - 1; i >= oldest && ring[i % ring.length]! > since; i--) count++;
    return (count < ring.length ? count : Infinity) / per; // the ring full: more than it holds
  }

  #nextWindow(now: number): void {
    this.#used = 0;
    this.#respace();
    [this.#windowStart, this.#accepted, this.#rttSum] = [now, 0, 0];
  }

  /** A slow start with no ceiling, as TCP after a time-out (item 6). */
  #restart(): void {
    this.#descent = undefined;
    this.gapMs = this.#nextStart = this.#ceiling = this.#refusedInARow = this.#held = this.#heldAnswers = this.#cutsToOne = 0;
    this.#rateGapMs = this.#tripGapMs = this.#narrowings = this.#gapRtt = 0;
    this.#acceptedAtRefusal = -1;
    this.#slowStart = true;
  }

  /** The spacing of starts for the limit and round trip now (see #spacingMs). */
  #respace(): void {
    // Only once paced: a service that sends Retry-After has a bucket that takes bursts (item 9).
    const gain = !this.#paced ? 0 : this.#slowStart ? (this.#value < this.max ? SLOW_START_GAIN : 0) : PACE_GAIN;
    this.#spacingMs = gain > 0 && this.gapMs === 0 && this.#windowMs > 0 ? Math.max(MIN_RTT_MS, this.#windowMs) / (gain * this.#value) : 0;
    if (this.#spacingMs > 0 && this.#rateGapMs > this.#spacingMs) this.#spacingMs = this.#rateGapMs;
  }

  /**
   * Paced, a push-back that cut: the starts go a little further apart than those it was sent at, and the count in flight comes back up to
   * what that rate keeps out, so that the rate sets the pace (docs/pace.md, "The pace held as a rate"). `down`: the count was halved, and
   * the rate is kept (item 11). Under the round trip (item 51), every push-back, tolerated or not, widens it, but for one to a request sent
   * before the last push-back came (item 54: two at once would widen it twice); says whether it is still under it.
   */
  #holdRate(spacing: number, down: boolean): boolean {
    // Refused at two, one a round trip accepted, nobody else seen: a strict limit's slot under the round trip (item 51); or at
    // three, two a round trip accepted, none faster than its spacing at two (56). Not refusals at random (54): under a tenth
    // refused under it, or, before it was there, a third or more at it.
    const least = Math.min(...this.#spacings);
    const under = this.limit === 1 || (this.limit === 2 && 2.75 * least > this.#windowMs);
    const enter = under && this.#ceiling === this.limit + 1 && this.gapMs === 0 && !this.#crowded && !this.#noise && !this.#shared;
    const [last, atOne, atTwo] = [this.#tripGapMs, this.#level[this.limit]!, this.#level[Math.min(this.#ceiling, this.max)]!];
    if (enter && (atOne[0] > 0 && atOne[0] >= this.limit - 1 ? 10 * atOne[1] <= atOne[0] : atTwo[0] > 0 && 3 * atTwo[1] >= atTwo[0]))
      this.#tripGapMs = spacing;
    if (this.limit === 1 && this.#tripGapMs === 0) return false;
    this.#rateMs = this.#rateNarrowings = 0;
    const trip = this.#tripGapMs > 0;
    // Held, the spacing refused is the rate's: one the round trip set wider (a stalled machine's) is no edge (54).
    if (last > 0) spacing = Math.min(spacing, this.#rateGapMs);
    // Entered at three, the edge is a widening under the least spacing accepted: three in flight were refused far under it (56).
    if (trip) this.#tripGapMs = last > 0 || this.limit < 2 ? spacing : Math.max(spacing, least / RATE_WIDEN);
    // There, halfway to one a round trip (two, entered at three), which got in; refused again at the edge last refused (its own
    // limit, found by 1% steps), two widenings over it, where those steps start. The start already scheduled goes at it too.
    // No faster than one a round trip: one at a time, where the relay shares a strict limit's slots.
    const wider =
      spacing <= RATE_WIDEN ** 2 * last ? RATE_WIDEN ** 2 * spacing : (spacing + this.#windowMs / (last > 0 ? 1 : this.limit)) / 2;
    this.#rateGapMs = Math.max(spacing * RATE_WIDEN, trip ? wider : 0);
    if (trip) this.#nextStart += this.#rateGapMs - spacing;
    if (this.limit > 1 && this.#windowMs < GAP_WIDEN * this.#rateGapMs) this.#tripGapMs = 0;
    // Held under it, a round trip a stall stretched keeps no more in flight: the next stall's heap would be refused (H6).
    const rtt = trip && this.#now() - this.#stalledAt < this.#windowMs ? this.#baseRtt : this.#windowMs;
    const inFlight = Math.max(MIN_RTT_MS, rtt) / this.#rateGapMs + 1;
    if (down && !trip) this.#respace();
    else if (this.limit < RATE_HOLDS_BELOW && (this.limit > 1 || (trip && inFlight > 1 + GAP_WIDEN)))
      this.#set(Math.max(this.#value, Math.min(this.#ceiling, inFlight)));
    return this.#tripGapMs > 0;
  }

  /** A push-back tolerated, held under the round trip (item 51): the spacing widens, but for a lone one (none other in 1 s) at over 2.5 (55). */
  #heldPushBack(now: number): boolean {
    return this.#tripGapMs === 0 || (this.#value > 2.5 && now - this.#lastPushBack >= 1_000) || this.#holdRate(this.#spacingMs, true);
  }

  /** Every sender waits `ms`, plus up to half as much again at random, so that shards do not come back in lockstep. */
  #pause(now: number, ms: number): void {
    const until = now + ms * (1 + this.#random() / 2);
    if (until > this.pausedUntil) this.pausedUntil = this.#pauseEnd = until;
  }

  /** After a push-back with Retry-After, once a round trip, the next start waits at random (item 14). */
  #jitter(now: number): void {
    if (now - this.#jitteredAt < this.#windowMs) return;
    this.#jitteredAt = now;
    this.#holdUntil = Math.max(this.#holdUntil, now + (this.#random() * JITTER * this.#windowMs) / this.limit);
  }

  #set(value: number): void {
    // Held as a rate under the round trip, no more than the rate keeps out: a service that hangs gets no more at once (item 51).
    const kept = this.#tripGapMs > 0 && this.#rateGapMs > 0 ? Math.ceil(this.#windowMs / this.#rateGapMs) + 1 : this.max;
    this.#value = Math.min(this.max, kept, Math.max(1, value));
    this.#respace();
    const limit = Math.floor(this.#value);
    if (limit !== this.limit) {
      const i = this.#changes++ % CHANGES;
      this.#changedAt[i] = this.#now();
      this.#changedTo[i] = limit;
    }
    this.limit = limit;
    if (this.limit < this.lowest) this.lowest = this.limit;
    if (this.limit > this.highest) this.highest = this.limit;
  }

  /** The time the gate opens again, if a request cannot start now because of a pause. */
  pausedFor(): number {
    const until = Math.max(this.pausedUntil, this.#nextStart, this.#holdUntil, this.#rotaTurn.until);
    return until === 0 ? 0 : Math.max(0, until - this.#now());
  }
}

/** Shards' turns (see #rotaWait): where this one is, who was seen, its own turns' pace, whether the limit is a rate. */
function newRota({ index, count, clock }: NonNullable<PaceOptions['rota']>, now: () => number) {
  return {
    index,
    count,
    clock: clock ?? now,
    seen: new Float64Array(count), // Per shard: the turn until which it is taken to be there (NaN: gone).
    // Its own last turn, the starts got in there, and the spacing they came to in the turn before.
    ownAt: -1,
    ownIn: 0,
    ownSpacing: 0,
    // Whether the limit is a rate (undefined: not known yet), from answers accepted and pushed back: [count, fastest round trip] each.
    fits: undefined as boolean | undefined,
    rtts: [0, Infinity, 0, Infinity] as [number, number, number, number],
    // Its own turns (#ownTurn): spacings it got in at; starts spaced as far as most, and refused; refused at random: off for good.
    got: [] as number[],
    wide: [0, 0] as [number, number],
    random: false,
  };
}
type Rota = ReturnType<typeof newRota>;

/** Answers to requests sent at some pace: how many, the push-backs among them, and the sum of their paces (requests a ms). */
type Tally = [answers: number, refused: number, pace: number];

/** a mod n, from 0 to n - 1 for a negative too (a clock before 1970, or a test's). */
function modulo(a: number, n: number): number {
  return ((a % n) + n) % n;
}

function add(at: Tally, refused: number, pace: number, answers = 1): void {
  at[0] += answers;
  at[1] += refused;
  at[2] += pace;
}

/** Halves a tally (the older half forgotten: a service changes). */
function halve(at: Tally): void {
  for (let k = 0; k < 3; k++) at[k]! /= 2;
}

/** What an attempt's status (0: no answer) comes to, for the controller. */
export function answerOf(status: number, timedOut: boolean): Answer {
  if (status >= 200 && status < 300) return Answer.Accepted;
  if (status === 429 || status === 503) return Answer.PushedBack;
  return timedOut ? Answer.TimedOut : Answer.Other;
}

/**
 * The share of requests a service refuses at random whatever the pace, judged from answers at a lower pace against answers at a higher one
 * ([answers, push-backs, sum of paces], each side with the answers its caller asks for): more than 0 when random, -1 when the refusals
 * clearly followed the pace (a limit), 0 when it cannot tell. Under a limit, the share accepted at the higher pace is that at the lower one
 * times the ratio of the two paces (no more accepted per round trip); at random, the same.
 */
function randomShare(low: Tally, high: Tally, [minShare, maxShare]: [number, number], maxRatio: number): number {
  const [lowAnswers, lowRefused, lowPace] = low;
  const [highAnswers, highRefused, highPace] = high;
  const refused = lowRefused / lowAnswers;
  const accepted = 1 - highRefused / highAnswers;
  const expectedAtRandom = 1 - refused;
  const error = Math.sqrt((refused * expectedAtRandom) / lowAnswers + (accepted * (1 - accepted)) / highAnswers);
  // The lower pace accepted clearly more: the refusals followed the pace.
  if (expectedAtRandom - accepted > Math.max(2.5 * error, 0.05)) return -1;
  if (lowAnswers < NOISE_ANSWERS && refused < 0.3) return 0;
  if (refused < minShare || refused > maxShare) return 0;
  // The ratio of the two paces (requests a ms: the limit over the round trip). Too close to
  // tell apart (on loopback, the round trip grows with the limit): no verdict.
  const ratio = lowPace / lowAnswers / (highPace / highAnswers);
  if (ratio > maxRatio) return 0;
  const expectedUnderALimit = expectedAtRandom * ratio;
  // Nearer what random refusals would give than what a limit would; the share refused at the higher pace at most a quarter larger (and 2 in
  // 100); and the two no further apart than chance (1.5 standard errors): a higher pace accepted more is a service that changed (a limit
  // that fell since the higher pace was tried), not one that refuses at random.
  const atRandom =
    accepted > expectedAtRandom - (expectedAtRandom - expectedUnderALimit) / 3 &&
    1 - accepted <= 1.25 * refused + 0.02 &&
    Math.abs(expectedAtRandom - accepted) < 1.5 * error;
  // What it refuses at random, at the least (so that a few answers do not make it tolerate much).
  return atRandom ? Math.max(0, refused - Math.sqrt((refused * expectedAtRandom) / lowAnswers)) : 0;
}

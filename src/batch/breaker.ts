/**
 * A service that is down, or a key it refuses, fails every row the same way. After a run of such
 * failures the batch stops sending and keeps the rest, rather than fail a million rows one by one.
 */
import { NetworkError, ServiceError } from '../errors.js';
import type { Outcome } from './runner.js';
import type { StopReason } from './stop.js';

type Tripped = Extract<StopReason, { kind: 'breaker' }>;

export class Breaker {
  readonly #concurrency: number | (() => number);
  #streak = 0;
  /** Why this breaker tripped, once it has. */
  reason: Tripped | undefined;

  /** A fixed concurrency, or (--concurrency auto) a function giving the current limit. */
  constructor(concurrency: number | (() => number)) {
    this.#concurrency = concurrency;
  }

  /** How many such failures in a row trip it: twice the requests in flight, at least 10. */
  get limit(): number {
    const concurrency = typeof this.#concurrency === 'number' ? this.#concurrency : this.#concurrency();
    return Math.max(10, 2 * concurrency);
  }

  /** Counts an outcome; returns the reason when this one trips the breaker. */
  record(outcome: Outcome): Tripped | undefined {
    if (outcome.kind === 'accepted') this.#streak = 0;
    if ((outcome.kind !== 'failed' && outcome.kind !== 'unknown') || !outcome.error || this.reason) return undefined;
    const error = outcome.error;
    const hopeless = error instanceof NetworkError || (error instanceof ServiceError && (error.status === 401 || error.status === 403));
    this.#streak = hopeless ? this.#streak + 1 : 0;
    if (this.#streak < this.limit) return undefined;
    const answer = error instanceof ServiceError ? `${error.status} ${error.statusText}`.trim() : 'no answer';
    this.reason = { kind: 'breaker', failures: this.#streak, answer };
    return this.reason;
  }
}

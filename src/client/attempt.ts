/**
 * One attempt of one request, as an undici dispatch handler. A batch makes thousands a second, so an
 * attempt is one object with its methods on the prototype (no closures per request), the time limits
 * of all attempts share one timer (see Deadlines), and the usual answer is recognised by its bytes.
 */
import type { Dispatcher } from 'undici';
import { MAX_BODY_BYTES, parseJsonBody } from './response.js';
import { monotonicMs } from '../clock.js';

export type AttemptOutcome =
  | {
      kind: 'answer';
      status: number;
      headers: Record<string, string | string[] | undefined>;
      text: string;
      json: unknown;
      truncated: boolean;
      ms: number;
    }
  | { kind: 'failed'; error: unknown; timedOut: boolean; interrupted: boolean; ms: number };

const SUCCESS_TEXT = '{"success":true}';
const SUCCESS_BYTES = Buffer.from(SUCCESS_TEXT);

export class Attempt implements Dispatcher.DispatchHandler {
  readonly promise: Promise<AttemptOutcome>;
  /** monotonicMs() after which the attempt has taken too long. */
  readonly deadline: number;
  done = false;
  readonly #started: number;
  readonly #timeoutMs: number;
  readonly #deadlines: Deadlines;
  readonly #signal: AbortSignal | undefined;
  #resolve!: (outcome: AttemptOutcome) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #status = 0;
  #headers: Record<string, string | string[] | undefined> = {};
  #first: Buffer | undefined;
  #more: Buffer[] | undefined;
  #size = 0;
  #truncated = false;
  #timedOut = false;
  #interrupted = false;

  constructor(timeoutMs: number, deadlines: Deadlines, signal: AbortSignal | undefined) {
    this.#started = monotonicMs();
    this.#timeoutMs = timeoutMs;
    this.deadline = this.#started + timeoutMs;
    this.#deadlines = deadlines;
    this.#signal = signal;
    this.promise = new Promise((resolve) => (this.#resolve = resolve));
    deadlines.add(this);
    if (signal?.aborted) this.interrupt();
    else signal?.addEventListener('abort', this, { once: true });
  }

  /** The abort listener (an object listener, so no closure is made per attempt). */
  handleEvent(): void {
    this.interrupt();
  }

  #finish(outcome: AttemptOutcome): void {
    if (this.done) return;
    this.done = true;
    this.#deadlines.delete(this);
    this.#signal?.removeEventListener('abort', this);
    this.#resolve(outcome);
  }

  #ms(): number {
    return Math.round(monotonicMs() - this.#started);
  }

  #answer(): void {
    const first = this.#first;
    let text: string;
    let json: unknown;
    if (!this.#more && first?.equals(SUCCESS_BYTES)) {
      text = SUCCESS_TEXT; // the usual answer, at batch rates: no decoding, no parsing
      json = { success: true };
    } else {
      text = first ? (this.#more ? Buffer.concat([first, ...this.#more]) : first).toString('utf8') : '';
      json = parseJsonBody(text);
    }
    this.#finish({ kind: 'answer', status: this.#status, headers: this.#headers, text, json, truncated: this.#truncated, ms: this.#ms() });
  }

  #stop(reason: Error): void {
    this.#controller?.abort(reason); // not yet on a connection: onRequestStart aborts it when it gets one
    this.#finish({ kind: 'failed', error: reason, timedOut: this.#timedOut, interrupted: this.#interrupted, ms: this.#ms() });
  }

  /** The time limit passed without a whole answer. */
  expire(): void {
    this.#timedOut = true;
    this.#stop(new Error(`no response within ${this.#timeoutMs / 1000} s`));
  }

  /** Ctrl-C: stop waiting; the event may or may not have been recorded. */
  interrupt(): void {
    this.#interrupted = true;
    this.#stop(new Error('interrupted'));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.done) controller.abort(new Error('the attempt already ended'));
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // At most 1 MiB is read: keep what came, and drop the connection rather than read the rest.
    const room = MAX_BODY_BYTES - this.#size;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (!this.#first) this.#first = part;
    else (this.#more ??= []).push(part);
    this.#size += part.length;
    if (chunk.length > room) {
      this.#truncated = true;
      this.#answer(); // first: abort reports an error synchronously
      controller.abort(new Error('response body over 1 MiB'));
    }
  }

  onResponseEnd(): void {
    this.#answer();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#finish({ kind: 'failed', error, timedOut: this.#timedOut, interrupted: this.#interrupted, ms: this.#ms() });
  }
}

/**
 * The time limits of attempts that all have the same length: deadlines come in the order the
 * attempts started, so one timer for the oldest is enough.
 */
export class Deadlines {
  readonly #attempts = new Set<Attempt>();
  #timer: NodeJS.Timeout | undefined;

  add(attempt: Attempt): void {
    this.#attempts.add(attempt);
    if (!this.#timer) this.#arm(attempt.deadline);
  }

  delete(attempt: Attempt): void {
    this.#attempts.delete(attempt);
    if (this.#attempts.size === 0 && this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Every attempt in flight, oldest first. */
  all(): Attempt[] {
    return [...this.#attempts];
  }

  #arm(deadline: number): void {
    this.#timer = setTimeout(() => this.#sweep(), Math.max(0, deadline - monotonicMs()) + 1);
  }

  #sweep(): void {
    this.#timer = undefined;
    const now = monotonicMs();
    for (const attempt of this.#attempts) {
      if (attempt.deadline > now) break;
      attempt.expire(); // removes itself
    }
    const oldest = this.#attempts.values().next();
    if (!oldest.done) this.#arm(oldest.value.deadline);
  }
}

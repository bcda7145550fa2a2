/**
 * One attempt, as an undici dispatch handler. A batch makes thousands a second, so an attempt is one object with its methods on the
 * prototype (no closures per request), all attempts' time limits share one timer (Deadlines), and the usual answer is known by its bytes.
 */
import type { Transform } from 'node:stream';
import type { Dispatcher } from 'undici';
import { headerValue, MAX_BODY_BYTES, parseJsonBody, type AnswerHeaders } from './response.js';
import { contentCoding, DecodeError, decoderFor, type Coding } from './decode.js';
import { monotonicMs } from '../clock.js';
import { asProxyError, type ProxyChoice } from './proxy.js';

/** What an attempt came to, and how long it took (ms). */
export type AttemptOutcome = { ms: number } & (
  | { kind: 'answer'; status: number; headers: AnswerHeaders; text: string; json: unknown; truncated: boolean; closed: boolean }
  | {
      kind: 'failed';
      error: unknown;
      timedOut: boolean;
      interrupted: boolean;
      /** Whether the request was handed to a connection to be written (else the service cannot have it); the status that began an answer (0: none). */
      sent: boolean;
      status: number;
      headers: AnswerHeaders; // of an answer that began (none: {})
    }
);

export const SUCCESS_TEXT = '{"success":true}';
const SUCCESS_BYTES = Buffer.from(SUCCESS_TEXT);

/** Whether a body is the usual answer. A loop: Buffer#equals calls into C++, and cost more per answer. */
function isSuccessBody(body: Buffer): boolean {
  if (body.length !== SUCCESS_BYTES.length) return false;
  for (let i = 0; i < body.length; i++) if (body[i] !== SUCCESS_BYTES[i]) return false;
  return true;
}

const NO_HEADERS: AnswerHeaders = {};

/** One attempt, on the handler interface undici 7 and 8 share (onRequestStart ... onResponseError). */
export class Attempt implements Dispatcher.DispatchHandler {
  readonly promise: Promise<AttemptOutcome>;
  readonly deadline: number; // monotonicMs() after which the attempt has taken too long.
  done = false;
  /** Its neighbours in the Deadlines list while it is in flight. */
  older: Attempt | undefined;
  newer: Attempt | undefined;
  readonly #deadlines: Deadlines;
  readonly #started: number;
  readonly #timeoutMs: number;
  readonly signal: AbortSignal | undefined; // heard by the client's one listener on it (TriggerClient.#wake), not one an attempt
  readonly #proxy: ProxyChoice | undefined; // The proxy the request goes through, if any: a failure there is named as the proxy's.
  #resolve!: (outcome: AttemptOutcome) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #status = 0;
  #headers = NO_HEADERS;
  #first: Buffer | undefined; // The body kept (decoded, for a compressed answer), and its size.
  #more: Buffer[] | undefined;
  #size = 0;
  #truncated = false;
  #closed = false; // The connection closed before the body ended (a refusal's answer is still that refusal).
  #timedOut = false;
  #interrupted = false;
  #sent = false;
  #began = false; // An answer's first byte came (its status line, headers yet to end: see expire).
  #bodyEnded = false; // The body has been read as far as it will be (the answer may still be decoding).
  #read = 0; // The bytes of the body read (before decoding), held to MAX_BODY_BYTES.
  #coding: Coding | undefined; // For a compressed answer (see decode.ts): its coding, and its decoder once the first bytes come.
  #decoder: Transform | undefined;

  /** `started` is now, on the monotonicMs() clock (given when the caller has just read it). */
  constructor(timeoutMs: number, deadlines: Deadlines, signal: AbortSignal | undefined, started = monotonicMs(), proxy?: ProxyChoice) {
    this.#started = started;
    this.#timeoutMs = timeoutMs;
    this.deadline = this.#started + timeoutMs;
    this.signal = signal;
    this.#proxy = proxy;
    this.#deadlines = deadlines;
    this.promise = new Promise((resolve) => (this.#resolve = resolve));
    deadlines.add(this);
    if (signal?.aborted) this.interrupt();
  }

  #finish(outcome: AttemptOutcome): void {
    if (this.done) return;
    this.done = true;
    this.#deadlines.remove(this);
    this.#dropDecoder();
    this.#resolve(outcome);
  }

  #answered(text: string, json: unknown, truncated: boolean): void {
    const ms = Math.round(monotonicMs() - this.#started);
    this.#finish({ kind: 'answer', status: this.#status, headers: this.#headers, text, json, truncated, closed: this.#closed, ms });
  }

  /** The body ended, or was cut at the limit. */
  #answer(): void {
    // A compressed body answers once it is decoded (its decoder's 'end').
    if (this.#decoder) this.#decoder.end();
    else this.#answerKept();
  }

  #answerKept(): void {
    const first = this.#first;
    // The usual answer, at batch rates: no decoding, no parsing.
    if (!this.#more && first !== undefined && isSuccessBody(first)) return this.#answered(SUCCESS_TEXT, { success: true }, false);
    const text = first ? (this.#more ? Buffer.concat([first, ...this.#more]) : first).toString('utf8') : '';
    this.#answered(text, parseJsonBody(text), this.#truncated);
  }

  /** Keeps a chunk of the body, up to MAX_BODY_BYTES in all; false when it had to be cut there. */
  #keep(chunk: Buffer): boolean {
    const room = MAX_BODY_BYTES - this.#size;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#size += part.length;
    if (!this.#first) this.#first = part;
    else (this.#more ??= []).push(part);
    return chunk.length <= room;
  }

  /** At the limit: the answer is what was kept, and the connection is dropped rather than read on. */
  #cut(reason: string): void {
    this.#truncated = true;
    this.#stopReading(reason);
    this.#answer();
  }

  #stopReading(reason: string): void {
    if (this.#bodyEnded) return;
    this.#bodyEnded = true; // first: abort reports an error synchronously (see onResponseError)
    this.#controller?.abort(new Error(reason));
  }

  #openDecoder(coding: Coding, first: Buffer): Transform {
    const decoder = decoderFor(coding, first);
    decoder.on('data', (decoded: Buffer) => {
      if (this.#keep(decoded)) return;
      this.#dropDecoder();
      this.#cut('response body over 1 MiB once decoded');
    });
    decoder.on('end', () => {
      this.#decoder = undefined;
      if (!this.done) this.#answerKept();
    });
    decoder.on('error', (error) => this.#undecodable(new DecodeError(coding, error)));
    return decoder;
  }

  /** An undecodable body is a malformed answer under a 2xx (a `"success": false` in it cannot be read); another status says enough. */
  #undecodable(error: DecodeError): void {
    if (this.done) return;
    this.#dropDecoder();
    this.#stopReading('response body could not be decoded');
    if (this.#status >= 200 && this.#status < 300) this.#failed(error);
    else this.#answerKept();
  }

  #dropDecoder(): void {
    this.#decoder
      ?.removeAllListeners()
      .on('error', () => {})
      .destroy(); // an error after this is nobody's concern
    this.#decoder = undefined;
  }

  #stop(reason: Error): void {
    this.#controller?.abort(reason); // not yet on a connection: onRequestStart aborts it when it gets one
    this.#failed(reason);
  }

  #failed(cause: unknown): void {
    const ms = Math.round(monotonicMs() - this.#started);
    const error = this.#proxy ? (asProxyError(cause, this.#proxy, this.#sent, this.#timedOut) ?? cause) : cause;
    const [timedOut, interrupted, sent, status] = [this.#timedOut, this.#interrupted, this.#sent, this.#status];
    this.#finish({ kind: 'failed', error, timedOut, interrupted, sent, status, headers: this.#headers, ms });
  }

  /** The time limit passed without a whole answer. */
  expire(): void {
    this.#timedOut = true;
    // An answer that began is not "no response"; after its status line, tagged as undici.ts tags a close there.
    const error = new Error(`${this.#began ? 'no whole answer' : 'no response'} within ${this.#timeoutMs / 1000} s`);
    this.#stop(this.#began && !this.#status ? Object.assign(error, { afterStatus: true }) : error);
  }

  /** Ctrl-C: stop waiting; the event may or may not have been recorded. */
  interrupt(): void {
    this.#interrupted = true;
    this.#stop(new Error('interrupted'));
  }

  // undici calls onRequestStart on a connected socket just before it writes the request: an attempt
  // that ends before then (refused, DNS, a proxy's refusal, a time-out while connecting) sent nothing.
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.done) controller.abort(new Error('the attempt already ended'));
    else this.#sent = true;
  }

  onResponseStarted(): void {
    this.#began = true;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: AnswerHeaders): void {
    // A 1xx (100 Continue, 103 Early Hints) comes before the answer: skipped, as RFC 9110 says (undici.ts passes an unasked-for 100).
    if (statusCode < 200) return;
    this.#status = statusCode;
    this.#headers = headers;
    const encoding = headerValue(headers, 'content-encoding');
    const coding = encoding === undefined ? undefined : contentCoding(encoding);
    if (typeof coding === 'object') this.#undecodable(new DecodeError(coding.unsupported, undefined, true));
    else this.#coding = coding;
  }

  /** A chunk of the body: kept, or for a compressed answer decoded as it comes; at most 1 MiB is read. */
  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.done || this.#bodyEnded) return;
    const room = MAX_BODY_BYTES - this.#read;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#read += part.length;
    if (this.#coding === undefined) this.#keep(part);
    else if (part.length > 0) (this.#decoder ??= this.#openDecoder(this.#coding, part)).write(part);
    if (chunk.length > room) this.#cut('response body over 1 MiB');
  }

  onResponseEnd(): void {
    this.#bodyEnded = true;
    this.#answer();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.#bodyEnded) return; // once the body has been read (and is being decoded), the dropped connection is our own doing
    // A refusal (4xx, 503) cut short is still what its status says: not recorded (a 503 was "outcome unknown", not sent again: review24).
    if (!((this.#status >= 400 && this.#status < 500) || this.#status === 503)) return this.#failed(error);
    this.#closed = this.#bodyEnded = true; // what came of its body is its answer, said to be cut short (review24b)
    this.#answer();
  }
}

/**
 * The time limits of attempts that all have the same length: deadlines come in the order the attempts started, so a list in that order and
 * one timer for the oldest are enough. An attempt takes itself out of the list when it ends (two links, no search), so it is freed at once,
 * however long an older one stays in flight. The timer does not keep Node running: an attempt in flight has a socket that does.
 */
export class Deadlines {
  #oldest: Attempt | undefined;
  #newest: Attempt | undefined;
  #timer: NodeJS.Timeout | undefined;

  add(attempt: Attempt): void {
    attempt.older = this.#newest;
    if (this.#newest) this.#newest.newer = attempt;
    else this.#oldest = attempt;
    this.#newest = attempt;
    if (!this.#timer) this.#arm(attempt.deadline);
  }

  remove(attempt: Attempt): void {
    const { older, newer } = attempt;
    if (older) older.newer = newer;
    else this.#oldest = newer;
    if (newer) newer.older = older;
    else this.#newest = older;
    attempt.older = attempt.newer = undefined;
  }

  /** Every attempt in flight, oldest first. */
  all(): Attempt[] {
    const list: Attempt[] = [];
    for (let attempt = this.#oldest; attempt; attempt = attempt.newer) list.push(attempt);
    return list;
  }

  #arm(deadline: number): void {
    this.#timer = setTimeout(() => this.#sweep(), Math.max(0, deadline - monotonicMs()) + 1);
    this.#timer.unref();
  }

  /** Expires the attempts whose limit has passed (each leaves the list), then waits for the oldest left. */
  #sweep(): void {
    this.#timer = undefined;
    const now = monotonicMs();
    while (this.#oldest && this.#oldest.deadline <= now) this.#oldest.expire();
    if (this.#oldest) this.#arm(this.#oldest.deadline);
  }
}

/**
 * The service client: one kept-alive, proxy-aware connection pool and the one request helper that adds base URL, auth and headers. No other
 * code touches the key. `trigger fire` sends one event through it; `trigger batch` sends many through the same pool.
 */
import type { Dispatcher } from 'undici';
import { InterruptedError, UsageError, type AttemptInfo } from '../errors.js';
import { CHECKED, checkCleartext, normalizeApiKey, maskKey, parseBaseUrl, type BaseUrl } from '../settings/validate.js';
import { gotType, isPrepared, prepareEvent, requestHeaders, type EventInput, type PreparedEvent } from './request.js';
import { Attempt, Deadlines, SUCCESS_TEXT, type AttemptOutcome } from './attempt.js';
import { parseJsonBody, requestIdOf, type AnswerHeaders } from './response.js';
import { Redactor } from '../output/redact.js';
import { isTlsAlert, MAX_RETRY_AFTER_MS, networkError, serviceError, statusText, unreadable } from './messages.js';
import {
  backoffMs,
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
  errorCodes,
  isConnectionNotMade,
  isRetryableStatus,
  parseRetryAfter,
} from './retry.js';
import { openDispatcher } from './undici.js';
import { isTlsCode, proxyFor, type ProxyChoice } from './proxy.js';
import { monotonicMs } from '../clock.js';

export interface ClientOptions {
  baseUrl: string | BaseUrl;
  apiKey: string;
  /** Bound on one whole attempt (connect, headers, body), ms. Default 30 000. */
  timeoutMs?: number;
  /** Retries after the first attempt, for failures that cannot have recorded the event. Default 2. */
  retries?: number;
  /** Connections kept per origin (batch concurrency). Default 1. */
  connections?: number;
  /** Accept plain http to a host other than loopback. */
  allowHttp?: boolean;
  /** First back-off ceiling, ms (default 500). */
  retryBaseMs?: number;
  /** Where the key came from, for hints ("--api-key", "TRIGGER_API_KEY", ...). */
  keySource?: string;
  /** Where the base URL came from, for hints ("--base-url", "TRIGGER_BASE_URL", ...). */
  baseUrlSource?: string;
  /** Observes each request, response and retry (for --verbose). Receives no key. */
  onEvent?: (event: ClientEvent) => void;
  /** Where the proxy variables are read (default process.env). */
  env?: NodeJS.ProcessEnv | undefined;
  /** A W3C traceparent to send, so the event joins the trace of the job that fired it. */
  traceparent?: string | undefined;
}

/** A body cut at 1 MiB (truncated), or cut short by a close: a 4xx or 503 shown as its error says it (closed). */
type Cut = { truncated: boolean; closed: boolean };
export type ClientEvent =
  | { type: 'request'; attempt: number; method: string; url: string; headers: Record<string, string>; body: string }
  | ({ type: 'response'; attempt: number; status: number; headers: AnswerHeaders; body: string; ms: number } & Cut)
  | { type: 'error'; attempt: number; message: string; code: string | undefined; ms: number }
  | { type: 'retry'; attempt: number; delayMs: number; reason: string };

export interface FireOptions {
  /** Aborting stops waiting; the result is an InterruptedError. */
  signal?: AbortSignal;
  /**
   * Aborting ends a wait before a retry, and starts no new attempt: the result is an InterruptedError
   * with `notSent` (the answers so far recorded nothing). A request in flight goes on.
   */
  stopRetries?: AbortSignal;
  /**
   * Told of every attempt as it ends, synchronously and with numbers only (nothing allocated): the status (0 when no answer came), the
   * attempt's round trip in ms, whether it timed out, and for a 429 or 503 the Retry-After in ms (-1 for none). For --concurrency auto.
   */
  onAttempt?: (status: number, ms: number, timedOut: boolean, retryAfterMs: number) => void;
  /** A 429 or 503 is not retried here but thrown at once: the caller sends the event again later. */
  throwPushBack?: boolean;
  /** Shared by many calls: no retry starts before `pausedUntil` (monotonic ms, as monotonicMs()). */
  gate?: { readonly pausedUntil: number };
}

export interface FireResult {
  ok: true;
  status: number;
  statusText: string;
  triggerId: string;
  userId: string;
  /** The value as sent (JSON number text), or undefined when none was sent. */
  value: string | undefined;
  attempts: number;
  durationMs: number;
  requestId: string | undefined;
  /** Parsed JSON body, or its text when it is not JSON. */
  response: unknown;
}

export class TriggerClient {
  readonly baseUrl: BaseUrl;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly #apiKey: string;
  readonly #options: ClientOptions;
  #dispatcher: Dispatcher | undefined;
  #proxy: ProxyChoice | undefined; // The proxy the dispatcher goes through, if any: its failures are named as the proxy's.
  readonly #deadlines = new Deadlines();
  /** The waits before a retry, each by its interrupt, with the signals that end it (see abortAll). */
  readonly #waits = new Map<() => void, AbortSignal[]>();
  /**
   * Ends the attempts and waits whose signal was aborted: the one listener on every signal they are on. A batch's lanes share one stop
   * signal, and a 429/503 storm under --concurrency 64 had 64 waits each adding its own listener to it (Node warns from 11:
   * MaxListenersExceededWarning, even with --quiet); a program's shutdown signal is shared by its events' attempts (audit28).
   */
  readonly #wake = () => {
    for (const attempt of this.#deadlines.all()) if (attempt.signal?.aborted) attempt.interrupt();
    for (const [stop, signals] of this.#waits) if (signals.some((s) => s.aborted)) stop();
  };
  readonly #listening = new Map<AbortSignal, number>(); // The attempts and waits each signal's #wake serves: added with the first, off with the last.
  #listen(signal: AbortSignal, by: 1 | -1): void {
    const count = (this.#listening.get(signal) ?? 0) + by;
    if (count === 1 && by === 1) signal.addEventListener('abort', this.#wake);
    if (count === 0) signal.removeEventListener('abort', this.#wake);
    if (count === 0) this.#listening.delete(signal);
    else this.#listening.set(signal, count);
  }
  readonly #headerList: string[]; // The same headers for every request, names and values in turn, as undici takes them with the least work.
  #mask: Redactor | undefined; // Masks the key in server text; made when an answer first needs it.

  constructor(options: ClientOptions) {
    const { baseUrl: given, apiKey } = Object(options) as Partial<ClientOptions>; // the key's type only is named, never its text
    const store = apiKey === undefined ? ' (resolveSettings has no key kept in the OS credential store: use loadSettings)' : '';
    if (typeof apiKey !== 'string') throw new UsageError(`apiKey must be a string (the API key); got ${gotType(apiKey)}${store}`);
    const b = Object(given) as BaseUrl; // one from resolveSettings is taken as it is: checked there, with the consent (--allow-http) it had
    // A URL object (review24b: retried for ever), or a BaseUrl made by hand (audit28: the key sent in clear text), is checked as its text.
    const url = (given as unknown) instanceof URL ? String(given) : typeof b.prefix === 'string' ? `${b.origin}${b.prefix}` : given;
    if (typeof url !== 'string') throw new UsageError(`baseUrl must be a URL such as https://api.example.com; got ${gotType(url)}`);
    this.baseUrl = CHECKED.has(b) ? b : parseBaseUrl(url, { allowHttp: options.allowHttp === true });
    if (this.baseUrl !== b) checkCleartext(this.baseUrl, proxyFor(this.baseUrl.origin, options.env), options.allowHttp === true);
    this.#apiKey = normalizeApiKey(options.apiKey, options.keySource ?? 'the client options');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_SECONDS * 1000;
    this.retries = options.retries ?? DEFAULT_RETRIES;
    const t = this.timeoutMs; // a day at most, as --timeout: a longer one overflows Node's timers, then fired every millisecond (audit24)
    if (!(typeof t === 'number' && t > 0 && t <= 86_400_000))
      throw new UsageError('timeoutMs must be a number over 0 and up to 86400000 (a day)');
    if (!Number.isInteger(this.retries) || this.retries < 0) throw new UsageError(`retries must be a whole number, 0 or more`);
    const { connections = 1, traceparent = '' } = options; // undici's own error for a bad count, or no limit for 0 (audit28)
    if (!Number.isInteger(connections) || connections < 1) throw new UsageError('connections must be a whole number, 1 or more');
    if (/[^\t\x20-\x7e]/.test(traceparent)) throw new UsageError('traceparent must be printable ASCII (a W3C traceparent), one line');
    this.#options = options;
    this.#headerList = Object.entries(requestHeaders(this.#apiKey, options.traceparent)).flat();
  }

  /** Headers as they are sent, with the key masked: for --verbose. */
  displayHeaders(): Record<string, string> {
    return requestHeaders(maskKey(this.#apiKey), this.#options.traceparent);
  }

  /** Loads undici and opens the pool (no connection yet): start-up work, done before the first fire. */
  async ready(): Promise<void> {
    if (this.#dispatcher) return;
    const pool = {
      connections: this.#options.connections ?? 1,
      connect: { timeout: this.timeoutMs },
      headersTimeout: 0, // off: the attempt's deadline bounds it whole and ends first; undici's were a timer a request (perf27)
      bodyTimeout: 0,
      keepAliveTimeout: 4_000,
      maxHeaderSize: 16 * 1024, // Node's default (what undici would read from node:http, which is then not loaded at all)
    };
    ({ dispatcher: this.#dispatcher, proxy: this.#proxy } = await openDispatcher(this.baseUrl.origin, pool, this.#options.env));
  }

  /** Sends one event. Resolves on success; throws ServiceError, NetworkError, InterruptedError or UsageError. */
  async fire(input: EventInput | PreparedEvent, options: FireOptions = {}): Promise<FireResult> {
    const event = isPrepared(input) ? input : prepareEvent(input, 'value');
    if (!this.#dispatcher) await this.ready(); // loading undici is start-up, not the service's time
    const started = monotonicMs();
    // A small loop, the judging done in #judge: an await saves and restores all of a function's locals, measurably at batch rates.
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#attempt(event, attempt, options.signal, attempt === 1 ? started : monotonicMs());
      const next = this.#judge(event, outcome, attempt, started, options);
      if (next.ok) return next;
      const gate = options.gate ? options.gate.pausedUntil - monotonicMs() : 0;
      await this.#wait(attempt, Math.max(next.delayMs, gate), next.reason, options, next.info);
    }
  }

  /**
   * What an attempt's outcome means, decided here once: recorded (the result), not recorded (retried after a delay while retries remain,
   * else thrown with `recorded: "no"`), or unknown (thrown with `recorded: "unknown"`, never retried). The errors carry that word to exit
   * codes, the failed file and replays. The observers (FireOptions.onAttempt, in numbers; ClientOptions.onEvent) are told first.
   */
  #judge(event: PreparedEvent, outcome: AttemptOutcome, attempt: number, started: number, options: FireOptions): FireResult | Retry {
    const canRetry = attempt <= this.retries;
    const info = { attempts: attempt, durationMs: Math.round(monotonicMs() - started) };
    const onEvent = this.#options.onEvent;
    if (outcome.kind === 'failed') {
      options.onAttempt?.(0, outcome.ms, outcome.timedOut, -1);
      onEvent?.({ type: 'error', attempt, message: (outcome.error as Error).message, code: errorCodes(outcome.error)[0], ms: outcome.ms });
      const notRecorded = !outcome.sent || isConnectionNotMade(outcome.error) || isTlsAlert(outcome.error);
      if (outcome.interrupted) {
        const message = notRecorded
          ? 'interrupted before the event was sent; it was not recorded'
          : 'interrupted before the service answered; the event may or may not have been recorded';
        throw new InterruptedError(message, { ...info, notSent: notRecorded, cause: options.signal?.reason });
      }
      const { baseUrlSource } = this.#options;
      const connection = { where: this.baseUrl.origin, timeoutMs: this.timeoutMs, baseUrlSource, began: outcome.status };
      // An answer that began has its request id (a corrupt gzip 2xx, a body cut short): it is what such a row is checked by.
      const [requestId, recorded] = [this.#requestId(outcome.headers), notRecorded ? ('no' as const) : ('unknown' as const)];
      const error = networkError(outcome.error, outcome.timedOut, connection, { ...info, requestId, recorded });
      if (canRetry && notRecorded && !isPermanent(outcome.error))
        return { ok: false, delayMs: backoffMs(attempt, { baseMs: this.#options.retryBaseMs }), reason: error.message, info };
      throw error;
    }
    const { status, json, text, truncated, closed, ms } = outcome;
    // Headers are looked at only for a push-back, which is rare: an accepted answer costs nothing more.
    const retryAfter = isRetryableStatus(status) ? parseRetryAfter(outcome.headers['retry-after']) : undefined;
    options.onAttempt?.(status, outcome.ms, false, retryAfter ?? -1);
    if (onEvent) {
      const [headers, body] = [this.#maskedHeaders(outcome.headers), this.#masked(text, json).text]; // "receives no key" (audit28)
      onEvent({ type: 'response', attempt, status, headers, body, truncated, closed, ms });
    }
    const requestId = this.#requestId(outcome.headers);
    const saysFailure = typeof json === 'object' && json !== null && (json as Record<string, unknown>).success === false;
    // A 2xx whose JSON object does not parse (cut at 1 MiB, or mangled) may say "success": false: malformed, unknown (audit26 #2).
    if (status >= 200 && status < 300 && json === undefined && /^\s*\{/.test(text)) {
      const why = `its JSON body ${truncated ? 'is over 1 MiB, read only to there' : 'does not parse'}`;
      throw unreadable(this.baseUrl.origin, why, { ...info, requestId, status, recorded: 'unknown' });
    }
    if (status >= 200 && status < 300 && !saysFailure) {
      // The usual answer holds no key; anything else is masked here, so a library caller never sees the server's echo of the key either.
      const safe = text === SUCCESS_TEXT ? outcome : this.#masked(text, json);
      const { triggerId, userId, value } = event;
      const response = safe.json ?? safe.text;
      return { ok: true, status, statusText: statusText(status), triggerId, userId, value: value?.json, ...info, requestId, response };
    }
    const headers = this.#maskedHeaders(outcome.headers);
    if (isRetryableStatus(status) && canRetry && !options.throwPushBack && (retryAfter === undefined || retryAfter <= MAX_RETRY_AFTER_MS)) {
      const delayMs = retryAfter ?? backoffMs(attempt, { baseMs: this.#options.retryBaseMs });
      return { ok: false, delayMs, reason: `${`${status} ${statusText(status)}`.trim()}${closed ? ' (cut short)' : ''}`, info };
    }
    const [path, maskedKey, { keySource }] = [`${this.baseUrl.prefix}${event.path}`, maskKey(this.#apiKey), this.#options];
    const context = { triggerId: event.triggerId, path, maskedKey, keySource, retries: this.retries };
    throw serviceError({ status, headers, closed, ...this.#masked(text, json) }, context, { ...info, requestId });
  }

  /** The answer's request id, the key masked in it as in a body: a server may echo the key there too (audit28). */
  #requestId(headers: AnswerHeaders): string | undefined {
    const id = requestIdOf(headers);
    return id === undefined ? undefined : (this.#mask ??= new Redactor(this.#apiKey)).server(id);
  }

  /** The headers as server JSON: the key, and pieces of it, masked in their names and values. */
  #maskedHeaders = (headers: AnswerHeaders) => this.#masked(JSON.stringify(headers), headers).json as AnswerHeaders;

  /** The server's text and JSON with the key, and pieces of it, masked (for errors and unusual answers). */
  #masked(text: string, json: unknown): { text: string; json: unknown } {
    const mask = (this.#mask ??= new Redactor(this.#apiKey));
    if (json === undefined) return { text: mask.server(text), json };
    const safe = mask.serverJson(text);
    return safe === text ? { text, json } : { text: safe, json: parseJsonBody(safe) };
  }

  /** Waits before a retry; an interrupt or a stop ends the wait (the event was not recorded). */
  async #wait(attempt: number, delayMs: number, reason: string, options: FireOptions, info: AttemptInfo) {
    const { signal, stopRetries } = options;
    const notSent = () =>
      new InterruptedError('stopped while waiting to retry; the event was not recorded', { ...info, notSent: true, cause: signal?.reason });
    if (signal?.aborted || stopRetries?.aborted) throw notSent();
    this.#options.onEvent?.({ type: 'retry', attempt, delayMs, reason });
    const signals = [signal, stopRetries].filter((s) => s !== undefined);
    const interrupted = await new Promise<boolean>((resolve) => {
      const end = (value: boolean) => {
        clearTimeout(timer);
        this.#waits.delete(stop);
        for (const s of signals) this.#listen(s, -1);
        resolve(value);
      };
      const stop = () => end(true);
      const timer = setTimeout(() => end(false), delayMs);
      this.#waits.set(stop, signals);
      for (const s of signals) this.#listen(s, 1);
    });
    if (interrupted) throw notSent();
  }

  /**
   * Interrupts every request in flight and every wait before a retry, as an aborted signal would:
   * they end with InterruptedError. For the batch's second Ctrl-C, without a signal per request.
   */
  abortAll(): void {
    for (const attempt of this.#deadlines.all()) attempt.interrupt();
    for (const stop of [...this.#waits.keys()]) stop();
  }

  /** One attempt through undici's dispatch API: no stream or signal objects per request. */
  #attempt(event: PreparedEvent, attempt: number, signal: AbortSignal | undefined, started: number): Promise<AttemptOutcome> {
    const dispatcher = this.#dispatcher;
    if (!dispatcher) return this.ready().then(() => this.#attempt(event, attempt, signal, monotonicMs()));
    const { origin, prefix } = this.baseUrl;
    const path = `${prefix}${event.path}`;
    const onEvent = this.#options.onEvent;
    onEvent?.({ type: 'request', attempt, method: 'POST', url: `${origin}${path}`, headers: this.displayHeaders(), body: event.body });
    const current = new Attempt(this.timeoutMs, this.#deadlines, signal, started, this.#proxy);
    const request: Dispatcher.DispatchOptions = { origin, path, method: 'POST', headers: this.#headerList, body: event.body };
    if (!current.done) dispatcher.dispatch(request, current);
    if (!signal || current.done) return current.promise;
    this.#listen(signal, 1);
    return current.promise.finally(() => this.#listen(signal, -1));
  }

  /** Closes kept-alive connections; requests in flight finish first. */
  async close(): Promise<void> {
    await this.#dispatcher?.close();
    this.#dispatcher = undefined;
  }

  /** Closes every connection at once, failing requests in flight. */
  async destroy(): Promise<void> {
    await this.#dispatcher?.destroy();
    this.#dispatcher = undefined;
  }
}

/** An attempt to be made again, after a wait. */
type Retry = { ok: false; delayMs: number; reason: string; info: AttemptInfo };

/** A failure that the same attempt would meet again: a refused certificate, a proxy's 407. */
function isPermanent(error: unknown): boolean {
  const codes = errorCodes(error);
  return codes.some(isTlsCode) || codes.includes('ERR_PROXY_AUTH_REQUIRED') || isTlsAlert(error);
}

/** The full URL of an event below a base URL, as sent: origin + prefix + path, never normalised. */
export const eventUrl = (baseUrl: BaseUrl, event: PreparedEvent): string => `${baseUrl.origin}${baseUrl.prefix}${event.path}`;

export const createClient = (options: ClientOptions): TriggerClient => new TriggerClient(options);

/** Sends one event and closes the connection: what `trigger fire` does, for Node programs. */
export async function fireEvent(event: EventInput, options: ClientOptions & FireOptions): Promise<FireResult> {
  const client = new TriggerClient(options);
  try {
    return await client.fire(event, options);
  } finally {
    await client.destroy();
  }
}

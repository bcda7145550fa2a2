/**
 * The service client: one kept-alive, proxy-aware connection pool and the one request helper that
 * adds base URL, auth and headers. No other code touches the key. `trigger fire` sends one event
 * through it; `trigger batch` sends many through the same pool.
 */
import type { Dispatcher } from 'undici';
import { InterruptedError, NetworkError, ServiceError, UsageError } from '../errors.js';
import { VERSION } from '../version.js';
import { checkCleartext, normalizeApiKey, maskKey, parseBaseUrl, type BaseUrl } from '../settings/validate.js';
import { prepareEvent, type EventInput, type PreparedEvent } from './request.js';
import { Attempt, Deadlines, type AttemptOutcome } from './attempt.js';
import { excerpt, headerValue, requestIdOf, serverMessage } from './response.js';
import { backoffMs, errorCodes, isConnectionNotMade, isRetryableStatus, parseRetryAfter } from './retry.js';
import { loadUndici, proxyFor } from './undici.js';

export const USER_AGENT = `trigger-cli/${VERSION} node/${process.versions.node}`;
export const MAX_RETRY_AFTER_MS = 60_000;

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
  /** A W3C traceparent to send, so the event joins the trace of the job that fired it. */
  traceparent?: string | undefined;
}

export type ClientEvent =
  | { type: 'request'; attempt: number; method: string; url: string; headers: Record<string, string>; body: string }
  | {
      type: 'response';
      attempt: number;
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: string;
      truncated: boolean;
      ms: number;
    }
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

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found',
  303: 'See Other', 307: 'Temporary Redirect', 308: 'Permanent Redirect', 400: 'Bad Request',
  401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict',
  413: 'Payload Too Large', 414: 'URI Too Long', 415: 'Unsupported Media Type', 422: 'Unprocessable Content', 429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? '';
}

export class TriggerClient {
  readonly baseUrl: BaseUrl;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly #apiKey: string;
  readonly #options: ClientOptions;
  #dispatcher: Dispatcher | undefined;
  /** The attempts in flight and their time limits. */
  readonly #deadlines = new Deadlines();
  /** Interrupts for the waits before a retry (see abortAll). */
  readonly #waits = new Set<() => void>();
  /** The same headers for every request (undici copies them; nothing here changes them). */
  readonly #requestHeaders: Record<string, string>;

  constructor(options: ClientOptions) {
    if (typeof options.baseUrl === 'string') {
      this.baseUrl = parseBaseUrl(options.baseUrl, { allowHttp: options.allowHttp === true });
      checkCleartext(this.baseUrl, proxyFor(this.baseUrl.origin), options.allowHttp === true);
    } else {
      this.baseUrl = options.baseUrl;
    }
    this.#apiKey = normalizeApiKey(options.apiKey, options.keySource ?? 'the client options');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 2;
    if (!(this.timeoutMs > 0) || !Number.isFinite(this.timeoutMs)) {
      throw new UsageError(`timeout must be a positive number of seconds`);
    }
    if (!Number.isInteger(this.retries) || this.retries < 0) {
      throw new UsageError(`retries must be a whole number, 0 or more`);
    }
    this.#options = options;
    this.#requestHeaders = {
      authorization: `Bearer ${this.#apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': USER_AGENT,
    };
    if (options.traceparent) this.#requestHeaders.traceparent = options.traceparent;
  }

  /** Headers as they are sent, with the key masked: for --verbose. */
  displayHeaders(): Record<string, string> {
    return { ...this.#requestHeaders, authorization: `Bearer ${maskKey(this.#apiKey)}` };
  }

  async #pool(): Promise<Dispatcher> {
    if (!this.#dispatcher) {
      const create = await loadUndici();
      this.#dispatcher = create(this.baseUrl.origin, {
        connections: this.#options.connections ?? 1,
        connect: { timeout: this.timeoutMs },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        keepAliveTimeout: 4_000,
      });
    }
    return this.#dispatcher;
  }

  /** The full URL of an event, as sent (never normalised). */
  urlOf(event: PreparedEvent): string {
    return eventUrl(this.baseUrl, event);
  }

  /** Loads undici and opens the pool (no connection yet): start-up work, done before the first fire. */
  async ready(): Promise<void> {
    await this.#pool();
  }

  /** Sends one event. Resolves on success; throws ServiceError, NetworkError, InterruptedError or UsageError. */
  async fire(input: EventInput | PreparedEvent, options: FireOptions = {}): Promise<FireResult> {
    const event = 'path' in input ? input : prepareEvent(input);
    if (!this.#dispatcher) await this.#pool(); // loading undici is start-up, not the service's time
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#attempt(event, attempt, options.signal);
      const canRetry = attempt <= this.retries;
      if (outcome.kind === 'failed') {
        const info = { attempts: attempt, durationMs: elapsed() };
        if (outcome.interrupted) {
          throw new InterruptedError('interrupted before the service answered; the event may or may not have been recorded', info);
        }
        const error = this.#networkError(outcome.error, outcome.timedOut, info);
        if (canRetry && !outcome.timedOut && isConnectionNotMade(outcome.error)) {
          await this.#wait(attempt, backoffMs(attempt, { baseMs: this.#options.retryBaseMs }), error.message, options, info);
          continue;
        }
        throw error;
      }
      const { status, headers, json, text } = outcome;
      const requestId = requestIdOf(headers);
      const saysFailure =
        typeof json === 'object' && json !== null && (json as Record<string, unknown>).success === false;
      if (status >= 200 && status < 300 && !saysFailure) {
        return {
          ok: true,
          status,
          statusText: statusText(status),
          triggerId: event.triggerId,
          userId: event.userId,
          value: event.value?.json,
          attempts: attempt,
          durationMs: elapsed(),
          requestId,
          response: json ?? text,
        };
      }
      if (isRetryableStatus(status) && canRetry) {
        const retryAfter = parseRetryAfter(headerValue(headers, 'retry-after'));
        if (retryAfter === undefined || retryAfter <= MAX_RETRY_AFTER_MS) {
          const delay = retryAfter ?? backoffMs(attempt, { baseMs: this.#options.retryBaseMs });
          const info = { attempts: attempt, durationMs: elapsed() };
          await this.#wait(attempt, delay, `${status} ${statusText(status)}`.trim(), options, info);
          continue;
        }
      }
      throw this.#serviceError(event, status, headers, json, text, { attempts: attempt, durationMs: elapsed(), requestId });
    }
  }

  /** Waits before a retry; an interrupt or a stop ends the wait (the event was not recorded). */
  async #wait(attempt: number, delayMs: number, reason: string, options: FireOptions, info: { attempts: number; durationMs: number }) {
    const signals = [options.signal, options.stopRetries].filter((s) => s !== undefined);
    const notSent = () => new InterruptedError('stopped while waiting to retry; the event was not recorded', { ...info, notSent: true });
    if (signals.some((s) => s.aborted)) throw notSent();
    this.#options.onEvent?.({ type: 'retry', attempt, delayMs, reason });
    const interrupted = await new Promise<boolean>((resolve) => {
      const end = (value: boolean) => {
        clearTimeout(timer);
        this.#waits.delete(stop);
        for (const s of signals) s.removeEventListener('abort', stop);
        resolve(value);
      };
      const stop = () => end(true);
      const timer = setTimeout(() => end(false), delayMs);
      this.#waits.add(stop);
      for (const s of signals) s.addEventListener('abort', stop, { once: true });
    });
    if (interrupted) throw notSent();
  }

  /**
   * Interrupts every request in flight and every wait before a retry, as an aborted signal would:
   * they end with InterruptedError. For the batch's second Ctrl-C, without a signal per request.
   */
  abortAll(): void {
    for (const attempt of this.#deadlines.all()) attempt.interrupt();
    for (const stop of [...this.#waits]) stop();
  }

  /** One attempt through undici's dispatch API: no stream or signal objects per request. */
  #attempt(event: PreparedEvent, attempt: number, signal: AbortSignal | undefined): Promise<AttemptOutcome> {
    const dispatcher = this.#dispatcher;
    if (!dispatcher) return this.#pool().then(() => this.#attempt(event, attempt, signal));
    const onEvent = this.#options.onEvent;
    onEvent?.({ type: 'request', attempt, method: 'POST', url: this.urlOf(event), headers: this.displayHeaders(), body: event.body });

    const current = new Attempt(this.timeoutMs, this.#deadlines, signal);
    if (!current.done) {
      dispatcher.dispatch(
        { origin: this.baseUrl.origin, path: `${this.baseUrl.prefix}${event.path}`, method: 'POST', headers: this.#requestHeaders, body: event.body },
        current,
      );
    }
    if (!onEvent) return current.promise;
    return current.promise.then((outcome) => {
      if (outcome.kind === 'answer') {
        const { status, headers, text, truncated, ms } = outcome;
        onEvent({ type: 'response', attempt, status, headers, body: text, truncated, ms });
      } else {
        const message = outcome.timedOut ? `no response within ${this.timeoutMs / 1000} s` : (outcome.error as Error).message;
        onEvent({ type: 'error', attempt, message, code: errorCodes(outcome.error)[0], ms: outcome.ms });
      }
      return outcome;
    });
  }

  #networkError(error: unknown, timedOut: boolean, info: { attempts: number; durationMs: number }): NetworkError {
    const where = this.baseUrl.origin;
    const tries = info.attempts > 1 ? ` (${info.attempts} attempts)` : '';
    if (timedOut || errorCodes(error).some((c) => c === 'UND_ERR_HEADERS_TIMEOUT' || c === 'UND_ERR_BODY_TIMEOUT')) {
      return new NetworkError('timeout', `no response from ${where} within ${this.timeoutMs / 1000} s${tries}`, {
        ...info,
        code: 'ETIMEDOUT',
        hint: 'the event may or may not have been recorded, so it was not retried; raise --timeout if the service is slow',
        cause: error,
      });
    }
    const codes = errorCodes(error);
    const code = codes.find((c) => !c.startsWith('UND_ERR_')) ?? codes[0];
    const reason = describeNetworkError(code, (error as Error)?.message ?? String(error));
    const notMade = isConnectionNotMade(error);
    const tls = codes.some(isTlsCode);
    let hint: string;
    if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'EPROTO') {
      hint = `nothing was sent: the server there does not speak TLS; is this port plain http? (a local port usually is: use http://${this.baseUrl.origin.replace(/^https:\/\//, '')})`;
    } else if (tls) {
      hint = 'nothing was sent: the TLS handshake failed before the request; for a private certificate authority set NODE_EXTRA_CA_CERTS';
    } else if (notMade) {
      hint = `nothing was sent; check the base URL${this.#options.baseUrlSource ? ` (from ${this.#options.baseUrlSource})` : ''} and that the service is up`;
    } else {
      hint = 'the outcome is unknown: the connection failed after the request was sent, so the event may or may not have been recorded; it was not retried';
    }
    return new NetworkError('network', `cannot reach ${where}: ${reason}${tries}`, { ...info, code, hint, cause: error });
  }

  #serviceError(
    event: PreparedEvent,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    json: unknown,
    text: string,
    info: { attempts: number; durationMs: number; requestId: string | undefined },
  ): ServiceError {
    const rawLocation = headerValue(headers, 'location');
    const location = rawLocation === undefined ? undefined : excerpt(rawLocation, 300); // server text: no controls
    const message = serverMessage(json, text);
    const label = `${status} ${statusText(status)}`.trim();
    let hint: string | undefined;
    let summary: string;
    if (status >= 300 && status < 400) {
      summary = `the service redirected (${label}) to ${location ?? 'no Location'}`;
      hint = 'redirects are not followed, so the key never goes to another host; set the base URL to where the service really is';
    } else if (status >= 200 && status < 300) {
      summary = `the service answered ${label} but said "success": false`;
    } else {
      summary = `the service refused the event: ${label}${info.attempts > 1 ? ` (after ${info.attempts} attempts)` : ''}`;
    }
    if (status === 401 || status === 403) {
      hint = `check the API key (${maskKey(this.#apiKey)}${this.#options.keySource ? ` from ${this.#options.keySource}` : ''}); set a new one with: trigger config set-key`;
    } else if (status === 404) {
      hint = `check the trigger id "${event.triggerId}": it must exist in the dashboard with type Custom (and the base URL must point at the service)`;
    } else if (status === 429 || status === 503) {
      const after = parseRetryAfter(headerValue(headers, 'retry-after'));
      hint =
        after !== undefined && after > MAX_RETRY_AFTER_MS
          ? `the service asked to wait ${Math.round(after / 1000)} s before retrying, longer than the 60 s the tool waits; try again later`
          : `the service is busy; try again later${this.retries === 0 ? ' or allow retries with --retries' : ''}`;
    } else if (status >= 500) {
      hint = 'not retried, because the service may have recorded the event before it failed';
    } else if (status === 400 || status === 422) {
      hint = 'the service did not accept the request as sent; check the value and ids';
    } else if (status === 431 || status === 414) {
      hint = 'the service found the request too large (its headers or URL); a very long user id can do this';
    } else if (status >= 400) {
      hint = 'the service did not accept the request as sent; it was not retried';
    }
    return new ServiceError(message ? `${summary}: ${message}` : summary, {
      status,
      statusText: statusText(status),
      serverMessage: message,
      body: json ?? text,
      location,
      hint,
      ...info,
    });
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

function describeNetworkError(code: string | undefined, message: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_NONAME':
      return 'host not found (DNS)';
    case 'EAI_AGAIN':
      return 'DNS lookup failed, temporarily';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      // undici says "bad response" for an answer it cannot parse, such as an unsolicited 100 Continue.
      if (/bad response/i.test(message)) return 'its answer could not be read (an unexpected 1xx or a malformed response)';
      return 'connection closed by the other side before it answered';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'UND_ERR_INFO':
    case 'HPE_INVALID_CONSTANT':
      return 'the answer could not be read (an unexpected 1xx or malformed response)';
    default:
      if (code && isTlsCode(code)) return `TLS handshake failed (${code})`;
      return code ? `${message.split('\n')[0]} (${code})` : message;
  }
}

function isTlsCode(code: string): boolean {
  return /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|EPROTO/.test(code);
}

/** The full URL of an event below a base URL, as sent: origin + prefix + path, never normalised. */
export function eventUrl(baseUrl: BaseUrl, event: PreparedEvent): string {
  return `${baseUrl.origin}${baseUrl.prefix}${event.path}`;
}

export function createClient(options: ClientOptions): TriggerClient {
  return new TriggerClient(options);
}

/** Sends one event and closes the connection: what `trigger fire` does, for Node programs. */
export async function fireEvent(
  event: EventInput,
  options: ClientOptions & FireOptions,
): Promise<FireResult> {
  const client = new TriggerClient(options);
  try {
    return await client.fire(event, options);
  } finally {
    await client.destroy();
  }
}

/**
 * The client's types: its options, what it tells an observer (--verbose), and what a fire returns.
 */
import type { BaseUrl } from '../settings/validate.js';
import type { AnswerHeaders } from './response.js';

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

export type ClientEvent =
  | { type: 'request'; attempt: number; method: string; url: string; headers: Record<string, string>; body: string }
  | { type: 'response'; attempt: number; status: number; headers: AnswerHeaders; body: string; truncated: boolean; ms: number }
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
   * Told of every attempt as it ends, synchronously and with numbers only (nothing is allocated for
   * it): the status (0 when no answer came), the attempt's round trip in ms, whether it timed out,
   * and for a 429 or 503 the Retry-After in ms (-1 when none was given). For --concurrency auto.
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

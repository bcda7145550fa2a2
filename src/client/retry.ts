/**
 * The retry policy. An attempt is repeated only when the service cannot have recorded the event: the connection was never made, or the
 * service said 429 or 503. A reset, a time-out or any other status may come after the event was recorded, so those are never retried.
 */

/** Retries when the event cannot have been recorded: the client's default and --retries'. */
export const DEFAULT_RETRIES = 2;

/** The time limit of each attempt: the client's default and --timeout's. */
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** Error codes of a connection that could not be made (refused, no such host, unreachable, too slow). */
// prettier-ignore
export const CONNECT_FAILURES = [
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT',
] as const;

/**
 * Error codes that mean no connection was made, so nothing can have been recorded. A failure at the proxy (proxy.ts) too: the request never
 * reached the service, even when it had been handed to the connection to a forwarding proxy that then asked for credentials (407).
 */
const NOT_CONNECTED = new Set<string>([...CONNECT_FAILURES, 'ERR_PROXY_AUTH_REQUIRED', 'ERR_PROXY_REFUSED', 'ERR_PROXY_UNREACHABLE']);

/** Error codes of an error and its causes, outermost first (five at most: a cycle of causes ends too). */
export function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let e = error as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth++, e = e.cause as typeof e) if (typeof e.code === 'string') codes.push(e.code);
  return codes;
}

export const isConnectionNotMade = (error: unknown): boolean => errorCodes(error).some((code) => NOT_CONNECTED.has(code));

export const isRetryableStatus = (status: number): boolean => status === 429 || status === 503;

/**
 * Parses Retry-After (delay-seconds or an HTTP date) into milliseconds from now, at most a day; undefined when absent or unparseable.
 * Sent twice (two headers, or `1, 100` merged), the longest wait asked for: the order the server wrote them in does not matter (audit26 #12).
 */
export function parseRetryAfter(header: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const values = typeof header === 'string' && /^[\d\s]+(?:,[\d\s]+)+$/.test(header) ? header.split(',') : [header ?? []].flat();
  let longest: number | undefined;
  for (const value of values) {
    const text = value.trim();
    const date = /[a-z]/i.test(text) ? Date.parse(text) : NaN; // a date names its day or month; bare numbers are not dates
    const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Number.isNaN(date) ? undefined : Math.max(0, date - now);
    if (ms !== undefined) longest = Math.min(Math.max(longest ?? 0, ms), 86_400_000);
  }
  return longest;
}

/** Full-jitter exponential back-off for the retry that follows attempt number `attempt` (1-based), at most 8 s. */
export function backoffMs(attempt: number, options: { baseMs?: number | undefined; random?: () => number } = {}): number {
  const ceiling = Math.min(8000, (options.baseMs ?? 500) * 2 ** (attempt - 1));
  return Math.floor((options.random ?? Math.random)() * ceiling);
}

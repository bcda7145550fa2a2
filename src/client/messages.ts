/**
 * What an answer or a failed connection means to a person: the status words, the message and the hint for each case. Pure functions, tested
 * as a table (test/unit/messages.test.ts); client.ts keeps the connections and the retries.
 */
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import { NetworkError, ServiceError, type AttemptInfo, type Recorded } from '../errors.js';
import { excerpt, headerValue, serverMessage, type AnswerHeaders } from './response.js';
import { errorCodes, parseRetryAfter } from './retry.js';
import { isTlsCode, ProxyError } from './proxy.js';
import { excerpt as excerptOf, quotedExcerpt } from '../output/excerpt.js';

/** The longest Retry-After the client waits; a longer one ends the command with the failure. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** The words of the statuses services and gateways give, a class a line. */
const STATUS_WORDS = `200 OK, 201 Created, 202 Accepted, 204 No Content
301 Moved Permanently, 302 Found, 303 See Other, 307 Temporary Redirect, 308 Permanent Redirect
400 Bad Request, 401 Unauthorized, 403 Forbidden, 404 Not Found, 405 Method Not Allowed, 408 Request Timeout, 409 Conflict
413 Payload Too Large, 414 URI Too Long, 415 Unsupported Media Type, 422 Unprocessable Content, 429 Too Many Requests
431 Request Header Fields Too Large
500 Internal Server Error, 502 Bad Gateway, 503 Service Unavailable, 504 Gateway Timeout`;
const STATUS_TEXT = new Map(STATUS_WORDS.split(/, |\n/).map((words) => [Number(words.slice(0, 3)), words.slice(4)] as const));

// Others (425 Too Early, 410 Gone...) from node:http's list, loaded only for such an answer (audit26 #14: `425: e425`).
export const statusText = (status: number): string =>
  STATUS_TEXT.get(status) ?? process.getBuiltinModule('node:http').STATUS_CODES[status] ?? '';

export type Answer = { status: number; headers: AnswerHeaders; json: unknown; text: string; closed?: boolean };

interface RequestContext {
  triggerId: string;
  path?: string | undefined; // The path that was asked for, below the origin (for the 404 hint).
  maskedKey: string; // The key as shown (••••abcd), for the 401/403 hint.
  keySource: string | undefined;
  retries: number;
}

/** A wait as said to a person: one of a day, as parseRetryAfter reads any longer, is "a day or more", not "86400 s". */
export const waitWords = (ms: number): string => (ms < 86_400_000 ? `${Math.round(ms / 1000)} s` : 'a day or more');

/** The hint for a status, in words that say what to check or do next. */
export function statusHint(status: number, headers: AnswerHeaders, context: RequestContext): string | undefined {
  if (status === 304)
    return 'a 304 answers only a request asking whether a copy changed, which this is not: a cache or proxy may answer for the service, or the base URL points elsewhere; the event can be sent again once that is fixed';
  if (status >= 300 && status < 400)
    return 'redirects are not followed, so the key never goes to another host; set the base URL to where the service really is';
  if (status === 401 || status === 403)
    return `check the API key (${context.maskedKey}${context.keySource ? ` from ${context.keySource}` : ''}); set a new one with: trigger config set-key`;
  if (status === 404) {
    const asked = context.path === undefined ? '' : ` (asked for ${excerptOf(context.path)})`; // long ids cut, as echoed input is
    const doubled = context.path !== undefined && /\/v1\/v1\//.test(context.path);
    return doubled
      ? `the path has /v1 twice${asked}: the tool adds /v1 itself, so set the base URL without it (trigger config set-base-url)`
      : `check the trigger id ${quotedExcerpt(context.triggerId)}: it must exist in the dashboard with type Custom, and the base URL must point at the service${asked}`;
  }
  if (status === 429 || status === 503) {
    const after = parseRetryAfter(headers['retry-after']);
    return after !== undefined && after > MAX_RETRY_AFTER_MS
      ? `the service asked to wait ${waitWords(after)} before retrying, longer than the 60 s the tool waits; try again later`
      : `the service is busy; try again later${context.retries === 0 ? ' or allow retries with --retries' : ''}`;
  }
  if (status === 408) return 'the service gave up waiting for the request; it did not record the event, so it is safe to send again';
  if (status >= 500)
    return 'the event may or may not have been recorded (the service or a gateway failed after the request reached it), so it was not retried; check before sending it again';
  if (status === 400 || status === 422) return 'the service did not accept the request as sent; check the value and ids';
  if (status === 431 || status === 414)
    return 'the service found the request too large (its headers or URL); a very long user id can do this';
  if (status >= 400) return 'the service did not accept the request as sent; it was not retried';
  return undefined;
}

/** The error for an answer that is not a success: message (with the server's own words) and hint. */
export function serviceError(answer: Answer, context: RequestContext, info: AttemptInfo): ServiceError {
  const { status, headers, json, text } = answer;
  const raw = headerValue(headers, 'location'); // undici reads a header as latin1: its bytes as UTF-8 when they are (audit25)
  const bytes = raw && /^[^\u0100-\uffff]*[\x80-\xff][^\u0100-\uffff]*$/.test(raw) ? Buffer.from(raw, 'latin1') : undefined;
  const rawLocation = bytes && isUtf8(bytes) ? bytes.toString() : raw;
  const location = rawLocation === undefined ? undefined : excerpt(rawLocation, 300); // server text: no controls
  const label = `${status} ${statusText(status)}`.trim().replace(/^\d+$/, 'HTTP $&'); // `599: e599` read as no status (review26b F10)
  const message = withoutLabel(serverMessage(json, text), label);
  const after = info.attempts > 1 ? ` (after ${info.attempts} attempts)` : '';
  const summary =
    status === 304
      ? `the service answered ${label}, which is no redirect and no answer to an event: it was not recorded`
      : status >= 300 && status < 400
        ? `the service redirected (${label}) to ${location ?? 'no Location'}`
        : status >= 200 && status < 300
          ? `the service answered ${label} but said "success": false`
          : status >= 500 && status !== 503
            ? `no definitive answer: ${label}${after}`
            : status === 408 || status === 429 || status === 503
              ? `not recorded: the service answered ${label}${after}`
              : `the service refused the event: ${label}${after}`;
  const toTls = status === 400 && /HTTP request (?:was sent )?to (?:an )?HTTPS/i.test(message ?? ''); // nginx's, Go's words (audit26 #10)
  const hint = toTls ? 'the port speaks https, not plain http: write the base URL with https://' : statusHint(status, headers, context);
  const details = { status, statusText: statusText(status), serverMessage: message, body: json ?? text, location, hint, ...info };
  return new ServiceError(`${message ? `${summary}: ${message}` : summary}${answer.closed ? ' (cut short)' : ''}`, details);
}

/** A page titled with the status the message already gives ("403 Forbidden: nginx"): said once. */
function withoutLabel(message: string | undefined, label: string): string | undefined {
  const rest = message?.replace(new RegExp(`^${label.replace(/^HTTP /, '(?:HTTP )?')}(?:[\\s:,;.\u2013\u2014-]+|$)`), ''); // a label is digits and words
  return rest === '' ? undefined : rest;
}

interface ConnectionContext {
  where: string; // The origin the connection was made to.
  timeoutMs: number;
  baseUrlSource: string | undefined;
  began?: number; // The status of an answer cut short (0: none began).
}

type FailureInfo = AttemptInfo & { recorded: Recorded };
type Tagged = { afterStatus?: true }; // a connection's error after an answer's status line (undici.ts)

/** The error for an attempt that got no usable answer: what happened, and whether anything was sent. */
export function networkError(error: unknown, timedOut: boolean, context: ConnectionContext, info: FailureInfo): NetworkError {
  const tries = info.attempts > 1 ? ` (${info.attempts} attempts)` : '';
  const codes = errorCodes(error);
  const notMade = info.recorded === 'no';
  // An answer had begun: its status, or (undici.ts tells) its status line only; it did not come whole (review24 F8).
  const began = context.began ? ` (${context.began} ${statusText(context.began)})` : (error as Tagged)?.afterStatus && "'s headers";
  if (timedOut || codes.some((c) => c === 'UND_ERR_HEADERS_TIMEOUT' || c === 'UND_ERR_BODY_TIMEOUT')) {
    const proxy = error instanceof ProxyError ? ` through the proxy ${error.proxy} (from ${error.variable})` : ''; // no tunnel yet (audit25)
    const none = `${began ? 'no whole answer' : 'no response'} from ${context.where}${proxy} within ${context.timeoutMs / 1000} s${tries}`;
    const message = began ? `${none}: its answer${began} began but did not finish in time` : none; // not "stopped" (review27 F9)
    const hint = notMade
      ? `nothing was sent: the connection was not made in time; check that ${proxy ? 'the proxy is running and can reach the service' : 'the service is up'}, or raise --timeout`
      : 'the event may or may not have been recorded, so it was not retried; check before sending it again, and raise --timeout if the service is slow';
    return new NetworkError('timeout', message, { ...info, code: 'ETIMEDOUT', hint, cause: error });
  }
  if (error instanceof ProxyError) return proxyNetworkError(error, context, info, tries); // the Attempt named it
  const code = mainCode(error);
  let reason = isTlsAlert(error)
    ? 'it answered with a TLS alert: the server there speaks https'
    : describeNetworkError(code, (error as Error)?.message ?? String(error));
  if (reason === CLOSED && began) reason = `connection closed by the other side in the middle of its answer${began}`;
  const failed = notMade ? 'cannot reach' : 'no whole answer came from'; // sent, it was reached: a body cut short, a bad header (audit23)
  if (code === 'ERR_BODY_DECODE') return unreadable(context.where, `${reason}${tries}`, { ...info, status: context.began ?? 0 }, error);
  const hint = networkHint(error, code, context, notMade);
  return new NetworkError('network', `${failed} ${context.where}: ${reason}${tries}`, { ...info, code, hint, cause: error });
}

/** A 2xx whose body cannot be read whole (undecodable, or a JSON object that does not parse): a malformed answer, outcome unknown. */
export function unreadable(where: string, reason: string, info: FailureInfo & { status: number }, cause?: unknown): NetworkError {
  const hint = `the outcome is unknown: the service answered, but whether its body says "success": false cannot be read, so the event may or may not have been recorded; it was not retried`;
  const details = { ...info, code: 'ERR_BODY_DECODE', hint, cause };
  return new NetworkError('network', `the answer from ${where} could not be read: ${reason}`, details);
}

/** The code that names what happened: the system's (ECONNREFUSED) rather than undici's wrapper of it. */
function mainCode(error: unknown): string | undefined {
  const codes = errorCodes(error);
  return codes.find((c) => !c.startsWith('UND_ERR_')) ?? codes[0];
}

/** A failure at the proxy, named as the proxy's: nothing reached the service. */
function proxyNetworkError(proxy: ProxyError, context: ConnectionContext, info: FailureInfo, tries: string): NetworkError {
  const named = `the proxy ${proxy.proxy} (from ${proxy.variable})`;
  const { host, hostname: direct } = new URL(context.where);
  let message = `cannot reach ${named}: ${describeNetworkError(mainCode(proxy.cause), (proxy.cause as Error)?.message ?? '')}`;
  let hint = `nothing was sent; check ${proxy.variable} and that the proxy is running (or add ${direct} to NO_PROXY to go direct)`;
  if (proxy.code === 'ERR_PROXY_AUTH_REQUIRED') {
    message = `${named} asked for credentials: 407 Proxy Authentication Required`;
    hint = `nothing was sent to the service; check the proxy's user name and password (set them in ${proxy.variable} as http://user:password@host:port)`;
  } else if (proxy.code === 'ERR_PROXY_TLS') {
    message = `cannot reach ${context.where} through ${named}: ${describeNetworkError(mainCode(proxy.cause), (proxy.cause as Error)?.message ?? '')}`;
    const check = `check that the proxy speaks https (else write it http://) and that both certificates are trusted (${privateCa()})`;
    hint = `nothing was sent: the TLS handshake failed with the proxy or, through it, with the service; ${tlsProblem(proxy.cause) ?? check}`;
  } else if (proxy.code === 'ERR_PROXY_REFUSED') {
    message = `${named} would not open the way to ${context.where}: ${`${proxy.status ?? ''} ${statusText(proxy.status ?? 0)}`.trim()}`;
    hint = `nothing was sent to the service; check that the proxy may reach ${host}, or add ${direct} to NO_PROXY if it can be reached directly`;
  }
  return new NetworkError('network', `${message}${tries}`, { ...info, code: proxy.code, hint, cause: proxy });
}

/** What a refused handshake's code or words say (review23: a certificate for other names; audit26 #9: expired, a chain, TLS 1.0). */
function tlsProblem(error: unknown): string | undefined {
  let e = error as { code?: unknown; reason?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth++, e = e.cause as typeof e) {
    const said = `${String(e.code)} ${String(e.message)}`;
    if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID')
      return `the certificate is trusted but not for this host (${String(e.reason).replace(/[.:\s]+$/, '')}): use a name it is for, or give it one for this host`;
    if (/CERT_HAS_EXPIRED|CERT_NOT_YET_VALID/.test(said))
      return `the server's certificate ${/EXPIRED/.test(said) ? 'has expired' : 'is not valid yet'}: it needs a new one, or this machine's clock is wrong`;
    if (/PROTOCOL_VERSION|protocol version|UNSUPPORTED_PROTOCOL/.test(said))
      return 'the server speaks only an old TLS (1.0 or 1.1), which Node refuses: it must allow TLS 1.2 or later';
    if (/UNABLE_TO_VERIFY_LEAF_SIGNATURE/.test(said))
      return `${privateCa()}; or the server does not send its intermediate certificate: fix its chain, or add the intermediate to NODE_EXTRA_CA_CERTS's file`;
  }
  return undefined;
}

/** What to do for a private certificate authority: set NODE_EXTRA_CA_CERTS, or, set, check the file it names (audit23). */
function privateCa(file = process.env.NODE_EXTRA_CA_CERTS): string {
  if (!file) return 'for a private certificate authority set NODE_EXTRA_CA_CERTS';
  return `NODE_EXTRA_CA_CERTS names ${file}: check that it holds the authority's certificate in PEM (Node reads it as a process starts, and ${fs.existsSync(file) ? 'skips what is not a certificate' : 'there is no such file'})`;
}

function networkHint(error: unknown, code: string | undefined, context: ConnectionContext, notMade: boolean): string {
  const codes = errorCodes(error);
  if (code === 'EMFILE' || code === 'ENFILE')
    return `${notMade ? 'nothing was sent: ' : ''}the limit on open files was reached; lower --concurrency (trigger batch), or raise the limit (ulimit -n 4096) before running trigger`;
  if (isTlsAlert(error))
    return `nothing was recorded: a TLS server cannot read a plain-http request; use https://${context.where.replace(/^http:\/\//, '')}`;
  const tls = tlsProblem(error);
  if (tls) return `nothing was sent: the TLS handshake failed before the request; ${tls}`;
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'EPROTO')
    return `nothing was sent: the server there does not speak TLS; is this port plain http? (a local port usually is: use http://${context.where.replace(/^https:\/\//, '')})`;
  if (codes.some(isTlsCode)) return `nothing was sent: the TLS handshake failed before the request; ${privateCa()}`;
  if (notMade)
    return `nothing was sent; check the base URL${context.baseUrlSource ? ` (from ${context.baseUrlSource})` : ''} and that the service is up`;
  return 'the outcome is unknown: the connection failed after the request was sent, so the event may or may not have been recorded; it was not retried';
}

/**
 * An answer that is a TLS alert record (0x15 0x03), as an https server sends to plain http (audit26 #10): it read no request. Only
 * where the answer's first bytes failed (undici: "Expected HTTP/"): the same bytes in a chunk size after `200 OK` are no alert (review26b).
 */
export const isTlsAlert = (error: unknown): boolean =>
  String((error as { data?: unknown })?.data).startsWith('\u0015\u0003') && String((error as Error)?.message).includes('Expected HTTP/');

const UNREADABLE = 'its answer could not be read (an unexpected 1xx or a malformed response)';
const CLOSED = 'connection closed by the other side before it answered';

/** What a failure's code means, in words. */
// prettier-ignore
const REASONS = new Map([
  ['ECONNREFUSED', 'connection refused'], ['UND_ERR_CONNECT_TIMEOUT', 'connection timed out'],
  ['ENOTFOUND', 'host not found (DNS)'], ['EAI_NONAME', 'host not found (DNS)'], ['EAI_AGAIN', 'DNS lookup failed, temporarily'],
  ['ECONNRESET', CLOSED], ['UND_ERR_SOCKET', CLOSED], ['EHOSTUNREACH', 'network unreachable'], ['ENETUNREACH', 'network unreachable'],
  ['EMFILE', 'too many open files (EMFILE, the limit ulimit -n sets): lower --concurrency, or raise the limit'],
  ['ENFILE', 'too many open files on the system (ENFILE): lower --concurrency'],
  ['UND_ERR_INFO', UNREADABLE], ['HPE_INVALID_CONSTANT', UNREADABLE],
]);

export function describeNetworkError(code: string | undefined, message: string): string {
  if (code === undefined || code === 'ERR_BODY_DECODE') return message;
  // undici says "bad response" for an answer it cannot parse, such as an unsolicited 100 Continue.
  if (REASONS.get(code) === CLOSED && /bad response/i.test(message)) return UNREADABLE;
  return REASONS.get(code) ?? (isTlsCode(code) ? `TLS handshake failed (${code})` : `${message.split('\n')[0]} (${code})`);
}

/** Checks for the two settings that decide where the key goes: the API key and the base URL. Messages never include the key itself. */
import { UsageError } from '../errors.js';
import { quotedExcerpt } from '../output/excerpt.js';

export interface BaseUrl {
  /** scheme://host[:port], what the connection is made to */
  origin: string;
  /** path prefix without a trailing slash ("" or "/api") */
  prefix: string;
  /** origin + prefix, for display */
  href: string;
  secure: boolean;
  loopback: boolean;
}

/** What is wrong with one character of a key, in words that do not show the key. */
function describeKeyCharacter(char: string): string {
  const code = char.codePointAt(0)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (code === 0x20) return 'a space';
  if (code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f)) return `a control character (${hex})`;
  if (/[\u200b-\u200f\u2060\ufeff\u00ad]/u.test(char)) return `an invisible character (${hex})`;
  if (/\s/u.test(char)) return `white space (${hex})`;
  if (/[\u2018\u2019\u201c\u201d]/u.test(char)) return `a curly quote (${hex}), as a word processor writes it`;
  return `a non-ASCII character (${hex})`;
}

/**
 * The shortest key taken (docs/choices.md). A key is masked wherever it appears in what the tool writes, the user's own data included; a
 * short key (`abc`, `purchase`) equals ordinary data and would mask it (`"triggerId":"••••"`) while files that must replay keep it. Real
 * keys are random and much longer; twelve is also where masking looks for pieces of a key and its base64 (redact.ts, SHORT_KEY).
 */
export const MIN_KEY_LENGTH = 12;

/**
 * Trims an API key, unwraps it from what a paste brings (a .env line's `TRIGGER_API_KEY=`, `Bearer `, straight quotes: docs/choices.md),
 * and refuses one that is not printable ASCII without spaces (what an HTTP header can carry: undici refusing the header would surface as a
 * misleading connection failure). A key shorter than MIN_KEY_LENGTH is refused too. The message never shows the key.
 */
export function normalizeApiKey(raw: string, source: string): string {
  const key = raw.trim().replace(/^(?:(?:export\s+)?TRIGGER_API_KEY=|Bearer\s+)?(["']?)(.*)\1$/, '$2');
  const refuse = (what: string, hint: string) => new UsageError(`the API key from ${source} ${what}; nothing was stored or sent`, { hint });
  if (key === '') throw new UsageError(`the API key from ${source} is empty`);
  const chars = [...key];
  const bad = chars.findIndex((char) => char <= ' ' || char > '~');
  if (bad >= 0) {
    const problem = `contains ${describeKeyCharacter(chars[bad]!)} at position ${bad + 1}`;
    throw refuse(problem, 'copy the key again from the dashboard, as plain text');
  }
  if (key.length < MIN_KEY_LENGTH) {
    const length = `${key.length} character${key.length === 1 ? '' : 's'}`;
    const problem = `is ${length} long, too short to be an API key (trigger needs ${MIN_KEY_LENGTH} or more)`;
    throw refuse(problem, 'copy the whole key from the dashboard (a password or a word is not the key)');
  }
  return key;
}

/** Shows a key as its last four characters, as in ••••abcd. */
export const maskKey = (key: string): string => `••••${key.length > 8 ? key.slice(-4) : ''}`;

/** localhost, 127.0.0.0/8 and ::1; also 127.0.0.0/8 mapped into IPv6 (`[::ffff:127.0.0.1]`, which URL writes `[::ffff:7f00:1]`; audit26). */
const LOOPBACK = /^(localhost|::1|(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::ffff:7f[\da-f]{2}:[\da-f]{1,4})$/;
export const isLoopbackHost = (hostname: string): boolean => LOOPBACK.test(hostname.toLowerCase().replace(/^\[|\]$/g, ''));

/**
 * Parses a base URL: absolute http(s), no credentials, query or fragment; a path prefix is kept and
 * a trailing slash ignored. Plain http is refused for hosts other than loopback unless allowHttp.
 */
export function parseBaseUrl(raw: string, options: { allowHttp?: boolean; source?: string } = {}): BaseUrl {
  const source = options.source ? ` (from ${options.source})` : '';
  const text = raw.trim();
  if (!URL.canParse(text))
    throw new UsageError(`base URL ${quotedExcerpt(text)}${source} is not an absolute URL; use e.g. https://api.example.com`);
  const url = new URL(text);
  const refused = [
    !['https:', 'http:'].includes(url.protocol) && `must start with https:// (got ${url.protocol}//)`,
    (url.username || url.password) && 'must not contain credentials; the API key is sent as a Bearer token',
    (url.search || text.includes('?')) && 'must not contain a query string ("?...")',
    (url.hash || text.includes('#')) && 'must not contain a fragment ("#...")',
    url.port === '0' && 'must not use port 0, which no service listens on; leave the port out for 443, or give the real one',
    /%(?![\da-f]{2})/i.test(url.pathname) && 'has a "%" in its path that is not followed by two hex digits; write it as %25',
    /[^.]{64}|^.{254}/.test(url.hostname) && 'has a host name longer than DNS allows (63 characters a label, 253 in all)',
  ].find(Boolean);
  if (refused) throw new UsageError(`base URL${source} ${refused}`);
  if (url.hostname === 'localhost.') url.hostname = 'localhost'; // the same name; as written, looked up by DNS, not in /etc/hosts (audit26)
  const loopback = isLoopbackHost(url.hostname);
  const secure = url.protocol === 'https:';
  const message = `base URL ${url.origin}${source} uses plain http, which would send the API key in clear text; use https, or pass --allow-http if you must`;
  if (!secure && !loopback && !options.allowHttp) throw new UsageError(message);
  const prefix = url.pathname.replace(/\/+$/, '');
  return Object.freeze({ origin: url.origin, prefix, href: `${url.origin}${prefix}`, secure, loopback }); // checked once: not changed after (review28b)
}

/**
 * A base URL that already ends in /v1: the tool adds /v1 itself, so every request would go to /v1/v1/... and fail with a 404 that seems to
 * be about the trigger. Kept (a gateway may really mount the service under /v1), but said when the URL is set or given.
 */
export function versionedBaseUrlWarning(baseUrl: BaseUrl, source?: string): string | undefined {
  if (!/\/v1$/i.test(baseUrl.prefix)) return undefined;
  const without = `${baseUrl.origin}${baseUrl.prefix.slice(0, -3)}`;
  const from = source ? ` (from ${source})` : '';
  return `warning: the base URL ${baseUrl.href}${from} ends in /v1, and trigger adds /v1 itself, so requests go to ${baseUrl.href}/v1/triggers/...; if the service is at ${without}, use that`;
}

export const CHECKED = new WeakSet<object>(); // base URLs parsed and let through here: a client takes resolveSettings' own as it is
/**
 * The cleartext rule applied to where the key travels: an http:// base URL on loopback is fine, unless a proxy that is not on loopback
 * carries the request (the key would cross the network in clear to the proxy). `proxy` is the proxy in effect for the base URL, if any.
 */
export function checkCleartext(baseUrl: BaseUrl, proxy: string | undefined, allowHttp: boolean): void {
  if (baseUrl.secure || allowHttp || proxy === undefined) return void CHECKED.add(baseUrl);
  const proxyHost = URL.canParse(proxy) ? new URL(proxy).hostname : proxy;
  if (isLoopbackHost(proxyHost)) return void CHECKED.add(baseUrl);
  const message = `base URL ${baseUrl.origin} is plain http and goes through the proxy ${proxyHost} (HTTP_PROXY), so the API key would cross the network in clear text`;
  throw new UsageError(message, { hint: `use https, add the host to NO_PROXY, or pass --allow-http if you must` });
}

/**
 * The one line for NODE_TLS_REJECT_UNAUTHORIZED=0 (Node's switch that turns certificate checks off): the tool verifies the service's
 * certificate whatever it says (VERIFIED in client/undici.ts), as curl does, and says so rather than leave Node's "insecure" warning alone.
 */
export function insecureTlsWarning(env: NodeJS.ProcessEnv): string | undefined {
  if (env.NODE_TLS_REJECT_UNAUTHORIZED !== '0') return undefined;
  return 'warning: NODE_TLS_REJECT_UNAUTHORIZED=0 is ignored: trigger always verifies the certificate of the service and of a proxy (for a private certificate authority, set NODE_EXTRA_CA_CERTS to its certificate file)';
}

/**
 * The environment the CLI's commands read. With NODE_TLS_REJECT_UNAUTHORIZED=0 it is a copy that keeps the variable (so that the commands
 * can say it is ignored), while the variable leaves this process's own environment: Node reads it on every TLS connection and would print
 * that connections are insecure, which the tool's are not. Only the CLI calls this; the library leaves its host's environment alone.
 */
export function cliEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.NODE_TLS_REJECT_UNAUTHORIZED !== '0') return env;
  const copy = { ...env };
  delete env.NODE_TLS_REJECT_UNAUTHORIZED;
  return copy;
}

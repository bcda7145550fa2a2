/**
 * Checks for the two settings that decide where the key goes: the API key and the base URL.
 * Messages never include the key itself.
 */
import { UsageError } from '../errors.js';

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

// eslint-disable-next-line no-control-regex
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f]/;

/** Trims an API key and refuses one that still contains white space or control characters. */
export function normalizeApiKey(raw: string, source: string): string {
  const key = raw.trim();
  if (key === '') {
    throw new UsageError(`the API key from ${source} is empty`);
  }
  if (WHITESPACE_OR_CONTROL.test(key)) {
    throw new UsageError(
      `the API key from ${source} contains white space or control characters; copy it again from the dashboard`,
    );
  }
  return key;
}

/** Shows a key as its last four characters, as in ••••abcd. */
export function maskKey(key: string): string {
  return `••••${key.length > 8 ? key.slice(-4) : ''}`;
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Parses a base URL: absolute http(s), no credentials, query or fragment; a path prefix is kept and
 * a trailing slash ignored. Plain http is refused for hosts other than loopback unless allowHttp.
 */
export function parseBaseUrl(raw: string, options: { allowHttp?: boolean; source?: string } = {}): BaseUrl {
  const source = options.source ? ` (from ${options.source})` : '';
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`base URL ${JSON.stringify(text)}${source} is not an absolute URL; use e.g. https://api.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`base URL${source} must start with https:// (got ${url.protocol}//)`);
  }
  if (url.username || url.password) {
    throw new UsageError(`base URL${source} must not contain credentials; the API key is sent as a Bearer token`);
  }
  if (url.search || text.includes('?')) {
    throw new UsageError(`base URL${source} must not contain a query string ("?...")`);
  }
  if (url.hash || text.includes('#')) {
    throw new UsageError(`base URL${source} must not contain a fragment ("#...")`);
  }
  const loopback = isLoopbackHost(url.hostname);
  const secure = url.protocol === 'https:';
  if (!secure && !loopback && !options.allowHttp) {
    throw new UsageError(
      `base URL ${url.origin}${source} uses plain http, which would send the API key in clear text; use https, or pass --allow-http if you must`,
    );
  }
  const prefix = url.pathname.replace(/\/+$/, '');
  return { origin: url.origin, prefix, href: `${url.origin}${prefix}`, secure, loopback };
}

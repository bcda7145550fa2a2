/** Which proxy a request takes, from the environment as curl decides, and the error for a failure there. Pure (no undici: undici.ts). */
import net from 'node:net';
import { UsageError } from '../errors.js';
import { maskProxyCredentials } from '../output/redact.js';
import { CONNECT_FAILURES } from './retry.js';

/** The proxy for one origin: its URL as written (with `http://` added when it had no scheme) and where it came from. */
export type ProxyChoice = { url: string; variable: string };

/** curl takes `host:port` without a scheme as `http://host:port`. */
export const withScheme = (proxy: string): string => (/^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`);

/** The proxy for `origin`: http_proxy / HTTP_PROXY (for https, https_proxy / HTTPS_PROXY first); undefined when direct or in NO_PROXY. */
export function proxyChoice(origin: string, env: NodeJS.ProcessEnv = process.env): ProxyChoice | undefined {
  const url = new URL(origin);
  const names = url.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
  const variable = names.find((name) => env[name]?.trim());
  if (!variable || bypassesProxy(url, env.no_proxy?.trim() || env.NO_PROXY || '')) return undefined;
  return { url: withScheme(env[variable]!.trim()), variable };
}

/** The proxy URL for `origin`, as written with `http://` added when it had no scheme; undefined when direct. */
export const proxyFor = (origin: string, env: NodeJS.ProcessEnv = process.env): string | undefined => proxyChoice(origin, env)?.url;

/** An IPv6 address in brackets (as URLs and `[::1]:8080` write it) without them. */
const unbracket = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/** Whether the IP literal `host` is the address or in the range `entry` (`10.0.0.0/8`, `fd00::/8`, `::1`). */
function ipMatches(host: string, entry: string): boolean {
  const [address = '', bits, more] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || family !== net.isIP(host) || more !== undefined || (bits !== undefined && !/^\d{1,3}$/.test(bits))) return false;
  const width = family === 6 ? 128 : 32;
  if (Number(bits ?? width) > width) return false; // a prefix too long for the family: names nothing
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const list = new net.BlockList();
  list.addSubnet(address, Number(bits ?? width), type);
  return list.check(host, type);
}

/**
 * One NO_PROXY entry as its host (or range) and port ('' for any): read as the authority of a URL whose scheme has no default port, so
 * `[::1]:8080`, `host:443` and `10.0.0.0/8` come apart as written. Two colons or more outside brackets: a bare IPv6 address or range.
 */
function entryParts(entry: string): [name: string, port: string] | undefined {
  if (!entry.startsWith('[') && entry.indexOf(':') !== entry.lastIndexOf(':')) return [entry, ''];
  if (!URL.canParse(`x://${entry}`)) return undefined; // names no host
  const url = new URL(`x://${entry}`);
  if (url.username || url.password || url.search || url.hash) return undefined; // not a host
  return [unbracket(url.hostname) + url.pathname, url.port];
}

/**
 * Whether NO_PROXY names the URL's host, as curl reads it: entries separated by commas or white space; `*` alone for every host; a host
 * name, which also covers its subdomains (a leading `.` or `*.` is the same); `host:port` for one port; IPv4 and IPv6 addresses (bare `::1`
 * or `[::1]`, `[::1]:8080`); and CIDR ranges (`127.0.0.0/8`, `fd00::/8`), which only IP literals can fall in (nothing is resolved).
 */
export function bypassesProxy(url: URL, noProxy: string): boolean {
  const host = unbracket(url.hostname).replace(/\.$/, '').toLowerCase();
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  return noProxy.split(/[\s,]+/).some((raw) => {
    const entry = raw.toLowerCase();
    if (entry === '*') return true;
    const parts = entry === '' ? undefined : entryParts(entry);
    if (!parts) return false;
    const [name, entryPort] = parts;
    if (entryPort !== '' && Number(entryPort) !== port) return false;
    if (net.isIP(name.split('/')[0]!) !== 0) return ipMatches(host, name);
    const domain = name.replace(/^\*?\./, '').replace(/\.$/, '');
    return domain !== '' && (host === domain || host.endsWith(`.${domain}`));
  });
}

/** A proxy as it may be shown: its password masked (`http://user:••••@host:port`), as status shows it. */
export const displayProxy = (proxy: string): string => maskProxyCredentials(withScheme(proxy)).replace(/\/+$/, '');

/** The proxy's URL, checked: a usage error (exit 2, nothing sent) when it cannot be used. */
export function parseProxy(choice: ProxyChoice): URL {
  if (!URL.canParse(choice.url)) {
    const hint = `set it to host:port or http://host:port (user:password@ before the host if the proxy needs them)`;
    throw new UsageError(`${choice.variable} is not a proxy address the tool can use: ${displayProxy(choice.url)}`, { hint });
  }
  const url = new URL(choice.url);
  if (!['http:', 'https:'].includes(url.protocol) || url.hostname === '') {
    const message = `${choice.variable} names a proxy the tool cannot use: ${displayProxy(choice.url)}`;
    throw new UsageError(message, { hint: 'an http:// or https:// proxy is needed (host:port is taken as http://host:port)' });
  }
  return url;
}

export type ProxyErrorCode = 'ERR_PROXY_AUTH_REQUIRED' | 'ERR_PROXY_REFUSED' | 'ERR_PROXY_UNREACHABLE' | 'ERR_PROXY_TLS';

/** A TLS failure's code (a certificate refused, a peer that does not speak TLS). */
export const isTlsCode = (code: string): boolean => /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|EPROTO/.test(code);

/** A failure at the proxy, before anything reached the service: it wanted credentials (407), refused CONNECT, or could not be reached. */
export class ProxyError extends Error {
  readonly code: ProxyErrorCode;
  readonly proxy: string; // The proxy, its password masked.
  readonly variable: string;
  readonly status: number | undefined;

  constructor(code: ProxyErrorCode, choice: ProxyChoice, options: { status?: number; cause?: unknown } = {}) {
    const proxy = displayProxy(choice.url);
    const message = options.status === undefined ? `cannot reach the proxy ${proxy}` : `the proxy ${proxy} answered ${options.status}`;
    super(message, { cause: options.cause });
    this.name = 'ProxyError';
    this.code = code;
    this.proxy = proxy;
    this.variable = choice.variable;
    this.status = options.status;
  }
}

/** Codes of a connection that failed on the way: to the proxy when they come before the request went out. */
const CONNECTION_CODES = new Set<string>([...CONNECT_FAILURES, 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET']);

/**
 * undici's error for a failure at the proxy, as a ProxyError; undefined when it is not the proxy's. `connected`: the request was handed to
 * a connection (after that only the forwarding proxy's 407 is the proxy's own). A TLS failure is the service's (through the tunnel).
 */
export function asProxyError(error: unknown, choice: ProxyChoice, connected: boolean, timedOut = false): ProxyError | undefined {
  const message = (error as Error)?.message ?? '';
  // undici's words: "Proxy response (407) !== 200 when HTTP Tunneling", "Proxy Authentication Required (407)".
  const answered = /^Proxy (?:response|Authentication Required) \((\d{3})\)/.exec(message);
  if (answered) {
    const status = Number(answered[1]);
    return new ProxyError(status === 407 ? 'ERR_PROXY_AUTH_REQUIRED' : 'ERR_PROXY_REFUSED', choice, { status, cause: error });
  }
  if (connected) return undefined;
  const code = (error as { code?: unknown })?.code;
  // A connection lost, no tunnel in time, or an answer to CONNECT that is not HTTP (an SSH server at the port: audit25) is the proxy's.
  if (timedOut || (typeof code === 'string' && CONNECTION_CODES.has(code)) || (error as Error)?.name === 'HTTPParserError')
    return new ProxyError('ERR_PROXY_UNREACHABLE', choice, { cause: error });
  // An https:// proxy's own handshake fails as the service's through it does, in the same words: either (audit23).
  if (typeof code === 'string' && isTlsCode(code) && /^https:/i.test(choice.url))
    return new ProxyError('ERR_PROXY_TLS', choice, { cause: error });
  return undefined;
}

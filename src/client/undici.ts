/**
 * Loads the parts of undici the client uses. undici's index pulls in fetch, WebSocket, the cache
 * stores and mocks (about 100 ms on every `trigger fire`); one pool of connections to the service
 * loads in a fraction of that. With a proxy configured the index is loaded after all, for the
 * proxy-aware agent; so is it should a future undici move the pool's file.
 */
import type * as Undici from 'undici';
import type { Dispatcher, EnvHttpProxyAgent, Pool } from 'undici';

export type PoolOptions = Pool.Options & EnvHttpProxyAgent.Options;

/** Makes the dispatcher for one origin: a Pool, or an EnvHttpProxyAgent when a proxy is set. */
export type DispatcherFactory = (origin: string, options: PoolOptions) => Dispatcher;

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

/** Whether requests may need to go through a proxy (as curl decides, from the environment). */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return PROXY_VARIABLES.some((name) => Boolean(env[name]));
}

/**
 * The proxy a request to `origin` goes through, decided as undici's EnvHttpProxyAgent decides it
 * (http_proxy / HTTP_PROXY for http, https_proxy / HTTPS_PROXY for https, then NO_PROXY), or
 * undefined when it goes direct.
 */
export function proxyFor(origin: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = new URL(origin);
  const httpProxy = env.http_proxy ?? env.HTTP_PROXY;
  const proxy = url.protocol === 'https:' ? (env.https_proxy ?? env.HTTPS_PROXY ?? httpProxy) : httpProxy;
  if (!proxy) return undefined;
  const noProxy = (env.no_proxy ?? env.NO_PROXY ?? '').trim();
  if (noProxy === '*') return undefined;
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    if (parsed && Number(parsed[2]) !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return undefined;
  }
  return proxy;
}

type UndiciIndex = typeof Undici;

/** undici is CommonJS: bundled, its exports are under `default`; loaded by Node, also at the top. */
function interop(module: object): UndiciIndex {
  return ((module as { default?: UndiciIndex }).default ?? module) as UndiciIndex;
}

export async function loadUndici(env: NodeJS.ProcessEnv = process.env): Promise<DispatcherFactory> {
  if (proxyConfigured(env)) {
    // The proxy agent needs the request API that undici's index installs on every dispatcher.
    // proxyTunnel false: an http:// service goes to the proxy as an absolute-form request, as curl
    // sends it; https:// is tunnelled with CONNECT either way.
    const { EnvHttpProxyAgent } = interop(await import('undici'));
    return (_origin, options) =>
      new EnvHttpProxyAgent({
        ...options,
        proxyTunnel: false,
        // From the environment given, not undici's own look at process.env.
        httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? '',
        httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? '',
        noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
      });
  }
  try {
    // A static path, so that the bundle (scripts/build.mjs) carries the pool and nothing else.
    const { default: PoolClass } = (await import('undici/lib/dispatcher/pool.js')) as { default: typeof Pool };
    if (typeof PoolClass?.prototype?.dispatch !== 'function') throw new Error('layout changed');
    return (origin, options) => new PoolClass(origin, options);
  } catch {
    const { Pool: IndexPool } = interop(await import('undici'));
    return (origin, options) => new IndexPool(origin, options);
  }
}

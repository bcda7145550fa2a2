/**
 * Loads the parts of undici the client uses. undici's index pulls in fetch, WebSocket, the cache stores and mocks, paid on every `trigger
 * fire`; one pool of connections to the service loads in a fraction of that (figures: docs/performance.md). With a proxy the index is
 * loaded after all, for its ProxyAgent. The pool's files are imported by their paths, which the bundles resolve when they are built: an
 * undici that moved them fails the build, not a user's run.
 */
import type * as Undici from 'undici';
import { isIP, type Socket } from 'node:net';
import type { Dispatcher, Pool } from 'undici';
import { parseProxy, proxyChoice, type ProxyChoice } from './proxy.js';

type Connector = (options: object, callback: (error: Error | null, socket: unknown) => void) => unknown;

/**
 * Lets undici skip an informational `100 Continue` the request did not ask for, as RFC 9110 says a client must (it skips every other 1xx
 * already, but ends the connection on an unasked-for 100 with "bad response"). undici attaches its HTTP parser to each socket it connects,
 * right after the connector hands the socket over; this wraps the parser's headers callback of that one connection so that a 100 takes
 * undici's path for the other 1xx answers (and never reaches a handler as a final answer). Once per connection, nothing per request.
 */
function skipUnaskedContinue(connect: Connector): Connector {
  return (options, callback) =>
    // And no IP address as a TLS server name (an https:// proxy named by its IP): Node warns of it on stderr (DEP0123; audit23).
    connect(
      isIP((options as { servername?: string }).servername ?? '') ? { ...options, servername: undefined } : options,
      (error, socket) => {
        // A proxy closing on CONNECT fails it with UND_ERR_SOCKET, on which undici connects again at once (9,583 times in 2 s: audit25).
        const closed = (error as { code?: unknown } | null)?.code === 'UND_ERR_SOCKET';
        callback(closed ? Object.assign(new Error(error!.message, { cause: error }), { code: 'ECONNRESET' }) : error, socket);
        if (!error && socket) patchParser(socket);
      },
    );
}

type Parser = { statusText: string; onHeadersComplete(statusCode: number, upgrade: boolean, shouldKeepAlive: boolean): number };

function patchParser(socket: object): void {
  const key = Object.getOwnPropertySymbols(socket).find((symbol) => symbol.description === 'parser');
  const parser = key === undefined ? undefined : ((socket as Record<symbol, unknown>)[key] as Parser | null | undefined);
  if (!parser || typeof parser.onHeadersComplete !== 'function') return;
  const original = parser.onHeadersComplete;
  // 103 is a 1xx undici passes on and then reads past; the handlers ignore every 1xx.
  parser.onHeadersComplete = function (statusCode, upgrade, shouldKeepAlive) {
    return original.call(this, statusCode === 100 ? 103 : statusCode, upgrade, shouldKeepAlive);
  };
  // undici tells a handler of an answer once its headers are whole: a close after the status line (the parser's statusText, '' between
  // answers) is told on the error, so it is not said to have come "before it answered" (review24 F8).
  (socket as Socket).prependListener('error', (error: { afterStatus?: true }) => void (parser.statusText && (error.afterStatus = true)));
}

type UndiciIndex = typeof Undici;

/**
 * TLS options for every connection that carries the key: certificates are always verified, as curl verifies them. Node's default for
 * `rejectUnauthorized` reads NODE_TLS_REJECT_UNAUTHORIZED, so that a `=0` left in a shell or a CI job would send the key to any server;
 * given explicitly, the variable has no say. A private CA still works: NODE_EXTRA_CA_CERTS adds to the roots Node verifies against.
 */
export const VERIFIED = { rejectUnauthorized: true } as const;

type BuildConnector = UndiciIndex['buildConnector'];

/** A pool to `origin` whose connections are verified and skip an unasked-for 100 (see skipUnaskedContinue). */
function poolOf(PoolClass: typeof Pool, buildConnector: BuildConnector, origin: string, options: Pool.Options): Pool {
  const connect = options.connect;
  const base =
    typeof connect === 'function' ? connect : buildConnector({ ...(connect ?? {}), ...VERIFIED } as Parameters<BuildConnector>[0]);
  return new PoolClass(origin, { ...options, connect: skipUnaskedContinue(base as unknown as Connector) as never });
}

type Opened = { dispatcher: Dispatcher; proxy: ProxyChoice | undefined };

/** One origin's dispatcher: a Pool, or a ProxyAgent for the proxy the environment names (returned too: asProxyError names its failures). */
export async function openDispatcher(origin: string, options: Pool.Options, env: NodeJS.ProcessEnv = process.env): Promise<Opened> {
  const proxy = proxyChoice(origin, env);
  if (!proxy) {
    const [PoolClass, buildConnector] = await loadPool();
    return { dispatcher: poolOf(PoolClass, buildConnector, origin, options), proxy };
  }
  const url = parseProxy(proxy); // a usage error, before anything is sent
  // undici is CommonJS: bundled, its exports are under `default`; loaded by Node, also at the top.
  const index = (await import('undici')) as UndiciIndex & { default?: UndiciIndex };
  const undici = index.default ?? index;
  // proxyTunnel false: an http:// service goes to the proxy as an absolute-form request, as curl sends it; https:// is tunnelled with
  // CONNECT either way. `factory` makes both the pool to the service through the tunnel and the pool to a forwarding proxy.
  const dispatcher = new undici.ProxyAgent({
    ...options,
    uri: url.href,
    proxyTunnel: false,
    requestTls: VERIFIED, // the service's TLS inside a CONNECT tunnel, and an https:// proxy's own
    proxyTls: VERIFIED,
    factory: (to, more) => poolOf(undici.Pool, undici.buildConnector, String(to), { ...options, ...(more as Pool.Options) }),
    // And the pool to the proxy itself (an https:// proxy's handshake: see skipUnaskedContinue).
    clientFactory: (to: URL, more: object) => poolOf(undici.Pool, undici.buildConnector, String(to), more as Pool.Options),
  });
  return { dispatcher, proxy };
}

async function loadPool(): Promise<[typeof Pool, BuildConnector]> {
  // Static paths, so that the bundle (scripts/build.mjs) carries the pool and nothing else.
  const { default: PoolClass } = (await import('undici/lib/dispatcher/pool.js')) as { default: typeof Pool };
  const { default: buildConnector } = (await import('undici/lib/core/connect.js')) as { default: BuildConnector };
  return [PoolClass, buildConnector];
}

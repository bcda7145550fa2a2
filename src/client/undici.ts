/**
 * Loads the parts of undici the client uses. undici's index pulls in fetch, WebSocket, the cache
 * stores and mocks, paid on every `trigger fire`; one pool of connections to the service loads in a
 * fraction of that (figures: docs/performance.md). With a proxy configured the index is loaded after all, for its
 * ProxyAgent; so is it should a future undici move the pool's file.
 */
import type * as Undici from 'undici';
import type { Dispatcher, Pool } from 'undici';
import type { AnswerHeaders } from './response.js';
import { asProxyError, parseProxy, proxyChoice, proxyConfigured, type ProxyChoice } from './proxy.js';

export { proxyConfigured, proxyFor } from './proxy.js';

export type PoolOptions = Pool.Options;

/** Makes the dispatcher for one origin: a Pool, or a ProxyAgent when a proxy is set. */
export type DispatcherFactory = (origin: string, options: PoolOptions) => Dispatcher;

type Connector = (options: object, callback: (error: Error | null, socket: unknown) => void) => unknown;

/**
 * Lets undici skip an informational `100 Continue` the request did not ask for, as RFC 9110 says a
 * client must (it skips every other 1xx already, but ends the connection on an unasked-for 100 with
 * "bad response"). undici attaches its HTTP parser to each socket it connects, right after the
 * connector hands the socket over; this wraps the parser's headers callback of that one connection
 * so that a 100 takes undici's path for the other 1xx answers (and never reaches a handler as a final
 * answer). Once per connection, nothing per request.
 */
export function skipUnaskedContinue(connect: Connector): Connector {
  return (options, callback) =>
    connect(options, (error, socket) => {
      callback(error, socket);
      if (!error && socket) patchParser(socket);
    });
}

interface Parser {
  onHeadersComplete(statusCode: number, upgrade: boolean, shouldKeepAlive: boolean): number;
}

function patchParser(socket: object): void {
  const key = Object.getOwnPropertySymbols(socket).find((symbol) => symbol.description === 'parser');
  const parser = key === undefined ? undefined : ((socket as Record<symbol, unknown>)[key] as Parser | null | undefined);
  if (!parser || typeof parser.onHeadersComplete !== 'function') return;
  const original = parser.onHeadersComplete;
  // 103 is a 1xx undici passes on and then reads past; the handlers ignore every 1xx.
  parser.onHeadersComplete = function (statusCode, upgrade, shouldKeepAlive) {
    return original.call(this, statusCode === 100 ? 103 : statusCode, upgrade, shouldKeepAlive);
  };
}

type UndiciIndex = typeof Undici;

/** undici is CommonJS: bundled, its exports are under `default`; loaded by Node, also at the top. */
function interop(module: object): UndiciIndex {
  return ((module as { default?: UndiciIndex }).default ?? module) as UndiciIndex;
}

/**
 * TLS options for every connection that carries the key: certificates are always verified, as curl
 * verifies them. Node's default for `rejectUnauthorized` reads NODE_TLS_REJECT_UNAUTHORIZED, so that
 * a `=0` left in a shell or a CI job would send the key to any server; given explicitly, the variable
 * has no say. A private CA still works: NODE_EXTRA_CA_CERTS adds to the roots Node verifies against.
 */
export const VERIFIED = { rejectUnauthorized: true } as const;

/** The connector undici would make from a pool's `connect` options, wrapped (see skipUnaskedContinue). */
function connectorFor(buildConnector: UndiciIndex['buildConnector'], options: PoolOptions): Connector {
  const connect = options.connect;
  const base =
    typeof connect === 'function' ? connect : buildConnector({ ...(connect ?? {}), ...VERIFIED } as Parameters<typeof buildConnector>[0]);
  return skipUnaskedContinue(base as unknown as Connector);
}

export async function loadUndici(env: NodeJS.ProcessEnv = process.env): Promise<DispatcherFactory> {
  if (proxyConfigured(env)) {
    const undici = interop(await import('undici'));
    return (origin, options) => {
      const choice = proxyChoice(origin, env);
      const pool = (to: string, more: PoolOptions) =>
        new undici.Pool(to, { ...options, ...more, connect: connectorFor(undici.buildConnector, { ...options, ...more }) as never });
      if (!choice) return pool(origin, {});
      const url = parseProxy(choice); // a usage error, before anything is sent
      // proxyTunnel false: an http:// service goes to the proxy as an absolute-form request, as curl
      // sends it; https:// is tunnelled with CONNECT either way. `factory` makes both the pool to the
      // service through the tunnel and the pool to a forwarding proxy.
      const agent = new undici.ProxyAgent({
        ...options,
        uri: url.href,
        proxyTunnel: false,
        // The service's TLS inside a CONNECT tunnel, and an https:// proxy's own.
        requestTls: VERIFIED,
        proxyTls: VERIFIED,
        factory: (to, more) => pool(String(to), more as PoolOptions),
      });
      return proxied(agent, choice);
    };
  }
  try {
    // Static paths, so that the bundle (scripts/build.mjs) carries the pool and nothing else.
    const { default: PoolClass } = (await import('undici/lib/dispatcher/pool.js')) as { default: typeof Pool };
    const { default: buildConnector } = (await import('undici/lib/core/connect.js')) as { default: UndiciIndex['buildConnector'] };
    if (typeof PoolClass?.prototype?.dispatch !== 'function' || typeof buildConnector !== 'function') throw new Error('layout changed');
    return (origin, options) => new PoolClass(origin, { ...options, connect: connectorFor(buildConnector, options) as never });
  } catch {
    const { Pool: IndexPool, buildConnector } = interop(await import('undici'));
    return (origin, options) => new IndexPool(origin, { ...options, connect: connectorFor(buildConnector, options) as never });
  }
}

/**
 * A dispatcher through a proxy whose failures are named as the proxy's (ProxyError), so that they are
 * told apart from the service's: nothing reached the service.
 */
function proxied(agent: Dispatcher, choice: ProxyChoice): Dispatcher {
  const wrapper = {
    dispatch: (options: Dispatcher.DispatchOptions, handler: Handler) => agent.dispatch(options, new ThroughProxy(handler, choice)),
    close: () => agent.close(),
    destroy: () => agent.destroy(),
  };
  return wrapper as unknown as Dispatcher;
}

/** The handler methods Attempt has. */
type Handler = Required<
  Pick<Dispatcher.DispatchHandler, 'onRequestStart' | 'onResponseStart' | 'onResponseData' | 'onResponseEnd' | 'onResponseError'>
>;

/** Passes everything on, and turns a failure at the proxy into a ProxyError. */
class ThroughProxy implements Dispatcher.DispatchHandler {
  readonly #handler: Handler;
  readonly #choice: ProxyChoice;
  #connected = false;

  constructor(handler: Handler, choice: ProxyChoice) {
    this.#handler = handler;
    this.#choice = choice;
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#connected = true;
    this.#handler.onRequestStart(controller, context);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: AnswerHeaders, statusMessage?: string): void {
    this.#handler.onResponseStart(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#handler.onResponseData(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: AnswerHeaders): void {
    this.#handler.onResponseEnd(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#handler.onResponseError(controller, asProxyError(error, this.#choice, this.#connected) ?? error);
  }
}

/**
 * Loads the parts of undici the client uses. undici's index pulls in fetch, WebSocket, the cache
 * stores and mocks (about 100 ms on every `trigger fire`); the proxy-aware agent and the request API
 * alone load in about a third of that. Should a future undici move those files, the full index is
 * used instead, which is slower but the same API.
 */
import { createRequire } from 'node:module';
import type { Dispatcher, EnvHttpProxyAgent } from 'undici';

export interface UndiciParts {
  EnvHttpProxyAgent: typeof EnvHttpProxyAgent;
  request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
}

let loaded: UndiciParts | undefined;

export async function loadUndici(): Promise<UndiciParts> {
  if (loaded) return loaded;
  try {
    const require = createRequire(import.meta.url);
    const agentModule = require('undici/lib/dispatcher/env-http-proxy-agent.js') as typeof EnvHttpProxyAgent;
    const api = require('undici/lib/api/index.js') as { request?: UndiciParts['request'] };
    if (typeof agentModule !== 'function' || typeof api.request !== 'function') throw new Error('layout changed');
    loaded = { EnvHttpProxyAgent: agentModule, request: api.request };
  } catch {
    const undici = await import('undici');
    loaded = {
      EnvHttpProxyAgent: undici.EnvHttpProxyAgent,
      request(this: Dispatcher, options) {
        return this.request(options);
      },
    };
  }
  return loaded;
}

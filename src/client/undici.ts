/**
 * Loads the parts of undici the client uses. undici's index pulls in fetch, WebSocket, the cache
 * stores and mocks (about 100 ms on every `trigger fire`); the agents alone load in a fraction of
 * that, and the proxy-aware one only when a proxy is configured. Should a future undici move those
 * files, the full index is used instead: slower to load, same API.
 */
import { createRequire } from 'node:module';
import type { Agent, EnvHttpProxyAgent } from 'undici';

export interface UndiciParts {
  Agent: typeof Agent | typeof EnvHttpProxyAgent;
}

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

/** Whether requests may need to go through a proxy (as curl decides, from the environment). */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return PROXY_VARIABLES.some((name) => Boolean(env[name]));
}

export async function loadUndici(env: NodeJS.ProcessEnv = process.env): Promise<UndiciParts> {
  const proxy = proxyConfigured(env);
  try {
    const require = createRequire(import.meta.url);
    const file = proxy ? 'undici/lib/dispatcher/env-http-proxy-agent.js' : 'undici/lib/dispatcher/agent.js';
    const AgentClass = require(file) as UndiciParts['Agent'];
    if (typeof AgentClass !== 'function' || typeof AgentClass.prototype.dispatch !== 'function') throw new Error('layout changed');
    return { Agent: AgentClass };
  } catch {
    const undici = await import('undici');
    return { Agent: proxy ? undici.EnvHttpProxyAgent : undici.Agent };
  }
}

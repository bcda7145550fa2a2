/** Resolving the settings and turning them and the options into the client, for the commands that send (fire, batch). */
import { createClient, type ClientEvent, type TriggerClient } from '../client/client.js';
import { displayProxy, proxyChoice } from '../client/proxy.js';
import { parseTraceparent } from '../client/request.js';
import type { Output } from '../output/io.js';
import { printable, verboseLines } from '../output/render.js';
import { resolveCommand, type Settings } from '../settings/resolve.js';
import type { Context, ServiceOptions } from './shared.js';

/** The settings and catalog fire and batch run with: the key masked in all they print from here on, the warnings on stderr. */
export async function commandSettings(options: ServiceOptions, requireKey: boolean, { io, env, cwd }: Context, requireUrl = true) {
  const world = await resolveCommand({ flags: options, requireKey, requireUrl, env, cwd, catalog: options.catalog });
  const settings = world.settings as Settings | undefined; // none without a base URL where none is required
  io.addSecret(settings?.apiKey);
  for (const warning of settings?.warnings ?? []) io.stderr(io.errColors.warn(warning));
  return world;
}

type Wiring = { env: NodeJS.ProcessEnv; connections?: number; onRetry?: (delayMs: number, reason: string) => void };

export function clientFor(settings: Settings, options: ServiceOptions, io: Output, { env, connections, onRetry }: Wiring): TriggerClient {
  const onEvent = (event: ClientEvent) => {
    if (event.type === 'retry') onRetry?.(event.delayMs, event.reason);
    if (options.verbose) for (const line of verboseLines(event, io.errColors, io.serverMask)) io.stderr(line);
  };
  const profile = `profile "${settings.profile}"`;
  // Where each setting came from, in the words of the messages that blame one.
  const keyFrom = { flag: '--api-key', env: 'TRIGGER_API_KEY', profile, keychain: `${profile} (system keychain)` };
  const urlFrom = { flag: '--base-url', env: 'TRIGGER_BASE_URL', profile: `${profile}: trigger config get base-url`, keychain: undefined };
  const traceparent = parseTraceparent(env.TRACEPARENT);
  const proxy = options.verbose && proxyChoice(settings.baseUrl.origin, env); // said as curl -v says it, its password masked (audit25)
  if (proxy) io.stderr(io.errColors.dim(`* through the proxy ${printable(displayProxy(proxy.url))} (from ${proxy.variable})`));
  if (env.TRACEPARENT && !traceparent && options.verbose)
    io.stderr(io.errColors.warn('* TRACEPARENT is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>); it is not sent'));
  return createClient({
    env,
    traceparent,
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey ?? '',
    keySource: settings.apiKeySource && keyFrom[settings.apiKeySource],
    baseUrlSource: urlFrom[settings.baseUrlSource],
    timeoutMs: options.timeout * 1000,
    retries: options.retries,
    connections,
    onEvent: options.verbose || onRetry ? onEvent : undefined, // none: the client makes no event objects
  });
}

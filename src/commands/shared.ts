/**
 * Options shared by the commands that call the service, and turning them into a client.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { createClient, type ClientEvent, type TriggerClient } from '../client/client.js';
import { parseTraceparent } from '../client/request.js';
import type { Output } from '../output/io.js';
import { verboseLines } from '../output/render.js';
import type { Settings, SettingsFlags } from '../settings/resolve.js';

export interface ServiceOptions extends SettingsFlags {
  timeout: number;
  retries: number;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  dryRun?: boolean;
}

export function parseSeconds(text: string): number {
  const n = Number(text);
  if (!/^\d*\.?\d+$/.test(text.trim()) || !(n > 0) || n > 86_400) {
    throw new InvalidArgumentError('expected a number of seconds greater than 0, e.g. 30 or 2.5');
  }
  return n;
}

export function parseCount(text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) > 100) {
    throw new InvalidArgumentError('expected a whole number from 0 to 100');
  }
  return Number(text);
}

export function addServiceOptions(command: Command): Command {
  return command
    .option('--api-key <key>', 'API key (prefer TRIGGER_API_KEY or `trigger config set-key`: flags show in ps)')
    .option('--base-url <url>', 'service base URL, e.g. https://api.example.com')
    .option('--profile <name>', 'settings profile to use (default: "default", or TRIGGER_PROFILE)')
    .addOption(new Option('--timeout <seconds>', 'time limit for each attempt').argParser(parseSeconds).default(30))
    .addOption(
      new Option('--retries <n>', 'retries when the event cannot have been recorded (no connection, 429, 503)')
        .argParser(parseCount)
        .default(2),
    )
    .option('--allow-http', 'allow plain http to a host other than loopback (sends the key in clear text)')
    .option('--json', 'print one JSON object per result on stdout')
    .option('-q, --quiet', 'print nothing on success')
    .option('--verbose', 'print the request and response on stderr (key masked)')
    .option('--dry-run', 'print the request as a curl command and send nothing');
}

export function settingsFlags(options: ServiceOptions): SettingsFlags {
  return {
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    profile: options.profile,
    allowHttp: options.allowHttp,
  };
}

export function keySourceLabel(settings: Settings): string | undefined {
  switch (settings.apiKeySource) {
    case 'flag':
      return '--api-key';
    case 'env':
      return 'TRIGGER_API_KEY';
    case 'profile':
      return `profile "${settings.profile}"`;
    case 'keychain':
      return `profile "${settings.profile}" (system keychain)`;
    default:
      return undefined;
  }
}

export function clientFor(
  settings: Settings,
  options: ServiceOptions,
  io: Output,
  extra: { connections?: number; onRetry?: (delayMs: number, reason: string) => void } = {},
): TriggerClient {
  const onEvent =
    options.verbose || extra.onRetry
      ? (event: ClientEvent) => {
          if (event.type === 'retry') extra.onRetry?.(event.delayMs, event.reason);
          if (options.verbose) for (const line of verboseLines(event, io.err)) io.stderr(line);
        }
      : undefined;
  const traceparent = parseTraceparent(process.env.TRACEPARENT);
  if (process.env.TRACEPARENT && !traceparent && options.verbose) {
    io.stderr(io.err.warn('* TRACEPARENT is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>); it is not sent'));
  }
  return createClient({
    traceparent,
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey ?? '',
    keySource: keySourceLabel(settings),
    baseUrlSource: { flag: '--base-url', env: 'TRIGGER_BASE_URL', profile: `profile "${settings.profile}": trigger config get base-url`, keychain: undefined }[settings.baseUrlSource],
    timeoutMs: options.timeout * 1000,
    retries: options.retries,
    connections: extra.connections,
    onEvent,
  });
}

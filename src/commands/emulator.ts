/** trigger emulator: the local stand-in until SIGINT, SIGTERM or SIGHUP; recorded events on stdout, banner, refusals, end on stderr. */
import type { Command } from 'commander';
import * as parse from './parsers.js';
import type { CatalogOptions, Context } from './shared.js';
import { DEFAULT_FAIL_STATUS, DEFAULT_PORT, startEmulator, type Emulator, type RequestEntry } from '../emulator/server.js';
import type { EmulatorOptions, RecordedEvent } from '../emulator/server.js';
import type { Output } from '../output/io.js';
import { errorLine, printable, shownId } from '../output/render.js';
import { ConfigError, UsageError } from '../errors.js';
import { findCatalog } from '../catalog/find.js';
import { loadCatalog, triggerIdsFor } from '../catalog/load.js';
import { activeProfile } from '../settings/resolve.js';
import { onStopSignals } from '../signals.js';
import { isLoopbackHost, maskKey, normalizeApiKey } from '../settings/validate.js';

interface EmulatorCommandOptions
  extends CatalogOptions, Pick<EmulatorOptions, 'key' | 'log' | 'failRate' | 'failStatus' | 'capacity' | 'maxInFlight'> {
  port: number;
  host: string;
  trigger?: string[]; // Known trigger ids; without, the catalog's (--no-catalog: any).
  latency?: number;
}

/** The time of day of an ISO timestamp, as the lines show it: hh:mm:ss.mmm (UTC). */
const clock = (iso: string) => iso.slice(11, 23);

/** Shows an id as `trigger fire` does (as it is, or JSON-quoted when it holds a control, an invisible character, a backslash or a quote). */
const showId = (id: string) => (id === '' ? '""' : shownId(id));

/** The warning for a --host others can reach (undefined on loopback): the emulator speaks plain http, so its key and events go in clear. */
export function exposureWarning(host: string): string | undefined {
  const bare = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (isLoopbackHost(bare) || /^::ffff:127\.\d+\.\d+\.\d+$/.test(bare)) return undefined;
  const every = bare === '0.0.0.0' || bare === '::' || bare === '';
  return `warning: --host ${printable(host)} makes the emulator reachable from the network${every ? ' (every address of this machine)' : ''}, over plain http: use 127.0.0.1 unless other machines must reach it`;
}

function eventLine(event: RecordedEvent, io: Output): string {
  const c = io.outColors;
  const value = event.valueText === undefined ? c.dim('no value') : `value ${event.valueText}`;
  return `${c.dim(clock(event.time))} ${c.success('✔')} ${c.bold(showId(event.triggerId))} ${c.dim('·')} ${showId(event.userId)} ${c.dim('·')} ${value}`;
}

function rejectionLine(entry: RequestEntry, io: Output): string {
  const c = io.errColors;
  const why = entry.injected ? ' injected' : entry.pushedBack ? ' pushed back' : undefined;
  const label = why ? c.warn(`${entry.status}${why}`) : c.error(String(entry.status));
  return `${c.dim(clock(new Date().toISOString()))} ${c.error('✖')} ${label} ${printable(entry.method)} ${printable(entry.url)} ${c.dim('—')} ${printable(entry.error ?? '')}`;
}

type Known = { ids: string[]; from: string } | undefined;

/** The triggers it knows: --trigger's, else the catalog's under the active profile's ids (undefined: any). */
function knownTriggers(options: EmulatorCommandOptions, { env, cwd }: Context): Known {
  if (options.trigger?.includes('')) throw new UsageError("--trigger '' is no trigger id: name each one (e.g. --trigger purchase signup)");
  if (options.trigger?.length) return { ids: options.trigger, from: '' };
  const found = findCatalog({ cwd, env, flag: options.catalog });
  if (!found) return undefined;
  return { ids: triggerIdsFor(loadCatalog(found, { env }), activeProfile({}, env)), from: ` from ${printable(found.path)}` };
}

export async function emulator(options: EmulatorCommandOptions, ctx: Context): Promise<void> {
  const { io, env } = ctx;
  const known = knownTriggers(options, ctx);
  const keySource = options.key ? '--key' : env.TRIGGER_API_KEY ? 'TRIGGER_API_KEY' : undefined;
  const key = options.key ?? env.TRIGGER_API_KEY;
  const givenKey = key ? normalizeApiKey(key, keySource ?? '--key') : undefined;
  io.addSecret(givenKey);
  const server = await startEmulator({
    ...options,
    key: givenKey,
    triggers: known?.ids,
    latencyMs: options.latency,
    keepEvents: false,
    onRequest(entry) {
      if (entry.event) io.stdout(eventLine(entry.event, io));
      else io.stderr(rejectionLine(entry, io));
    },
    onLogError: (message) => io.stderr(errorLine(new ConfigError(message), io.errColors, io.serverMask)),
  });
  // Until a stop signal (a second cuts off requests in flight), heard before the banner says "Ctrl-C stops it", so one then stops it too.
  let removeSignals = () => {};
  const stopped = new Promise((resolve) => {
    removeSignals = onStopSignals((_signal, count) => void server.close({ force: count > 1 }).then(resolve));
  });
  for (const line of bannerLines(server, options, keySource, known, io)) io.stderr(line);
  await stopped;
  removeSignals();
  const { recorded, rejected, injected, pushedBack } = server.stats;
  const limits = options.capacity || options.maxInFlight ? `, ${pushedBack} pushed back` : '';
  // In a terminal the ^C the terminal echoed is still on the line: start a new one.
  io.stderr(`${io.terminal.isTTY ? '\n' : ''}stopped: ${recorded} recorded, ${rejected} rejected, ${injected} injected failures${limits}`);
}

/** What it listens on, how to point trigger at it, and what it was asked to do. */
function bannerLines(server: Emulator, options: EmulatorCommandOptions, keySource: string | undefined, known: Known, io: Output): string[] {
  const c = io.errColors;
  const where =
    new URL(server.url).hostname.replace(/^\[|\]$/g, '') === server.host ? '' : `${server.host}:${server.port}, reachable here at `;
  const lines = [`${c.success('trigger emulator')} listening on ${where}${c.bold(server.url)}`];
  const exposed = exposureWarning(server.host);
  if (exposed) lines.push(c.warn(exposed));
  const key = server.keyGenerated ? 'generated for this run' : `from ${keySource} (${maskKey(server.key)})`;
  lines.push(`  API key ${key}; point trigger at the emulator with:`, `    export TRIGGER_BASE_URL=${server.url}`);
  if (server.keyGenerated) lines.push(`    export TRIGGER_API_KEY=${server.key}`);
  if (known) lines.push(`  triggers: ${known.ids.map(showId).join(', ') || 'none'}${known.from} (any other answers 404)`);
  if (options.failRate) lines.push(`  fault injection: ${options.failRate * 100}% of requests answer ${options.failStatus ?? 503}`);
  if (options.latency) lines.push(`  latency: ${options.latency} ms on every answer`);
  if (options.capacity) lines.push(`  capacity: ${options.capacity} requests per second, 429 with Retry-After beyond`);
  if (options.maxInFlight) lines.push(`  at most ${options.maxInFlight} requests at once, 503 with Retry-After beyond`);
  if (options.log) lines.push(`  recording to ${options.log} (NDJSON)`);
  lines.push(c.dim('  Ctrl-C stops it.'));
  return lines;
}

const EXAMPLES = `
Examples:
  $ trigger emulator                               # prints the two export lines to use it
  $ trigger emulator --port 0 --trigger purchase signup --log events.ndjson
  $ trigger emulator --fail-rate 0.3 --fail-status 429 --latency 200   # test your retries
  $ trigger emulator --latency 50 --capacity 400 --max-in-flight 12     # rehearse a backfill`;

const KEY_HELP = 'API key clients must send (default: TRIGGER_API_KEY, else a generated one); a flag shows in ps, TRIGGER_API_KEY does not';

export function command(program: Command, ctx: Context): Command {
  return program
    .command('emulator')
    .description('run a local stand-in for the service, for trying trigger and testing scripts offline')
    .option('--port <n>', 'port to listen on (0: any free port)', parse.wholeNumber(0, 65_535), DEFAULT_PORT)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--key <key>', KEY_HELP)
    .option('--trigger <id...>', 'known trigger ids; any other answers 404')
    .option('--catalog <file>', 'without --trigger: know the triggers of this catalog (default: triggers.json here or in a parent folder)')
    .option('--no-catalog', 'without --trigger: accept any trigger, even beside a catalog')
    .option('--log <file>', 'append each recorded event to this file as NDJSON')
    .option('--fail-rate <0..1>', 'share of requests to fail on purpose', parse.fraction)
    .option('--fail-status <code>', 'status of those failures (429 and 503 add Retry-After: 1)', parse.errorStatus, DEFAULT_FAIL_STATUS)
    .option('--latency <ms>', 'delay every answer by this many milliseconds', parse.wholeNumber(0, 600_000))
    .option('--capacity <n>', 'take at most n requests per second; answer 429 with Retry-After beyond', parse.rate)
    .option('--max-in-flight <n>', 'work on at most n requests at once; answer 503 with Retry-After beyond', parse.wholeNumber(1, 1e6))
    .addHelpText('after', EXAMPLES)
    .action((options: EmulatorCommandOptions) => emulator(options, ctx));
}

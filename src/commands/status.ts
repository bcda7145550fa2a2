/** trigger status: the settings a command would use now and why (as `gh auth status`), every problem, not the first; it sends nothing. */
import type { Command } from 'commander';
import fs from 'node:fs';
import { parseProxy, proxyChoice } from '../client/proxy.js';
import { ConfigError } from '../errors.js';
import { errorLine, printable } from '../output/render.js';
import type { Output } from '../output/io.js';
import { maskProxyCredentials } from '../output/redact.js';
import { collected, resolveWorld, type Source, type SettingsFlags } from '../settings/resolve.js';
import { maskKey } from '../settings/validate.js';
import { VERSION } from '../version.js';
import { addSettingsOptions, type CatalogOptions, type Context } from './shared.js';
import type { CatalogSource } from '../catalog/find.js';

export type StatusOptions = SettingsFlags & CatalogOptions & { json?: boolean };

const SOURCE_WORDS = { flag: 'flag', env: 'environment', profile: 'profile (config file)', keychain: 'credential store' };
const CATALOG_WORDS: Record<CatalogSource, string> = { flag: '--catalog', env: 'TRIGGER_CATALOG', found: 'found from this folder' };
const PROFILE_WORDS = { flag: '--profile', env: 'TRIGGER_PROFILE', config: 'chosen with trigger config use', default: 'the default' };

/** The status (what --json prints): the command's world (resolveWorld, as fire and batch resolve it) with every problem, not the first. */
export async function collectStatus(options: StatusOptions, { env, cwd }: Context) {
  const world = await resolveWorld({ flags: options, env, cwd, catalog: options.catalog, rememberCatalog: false });
  const { settings, problems, profile, configFile, key, url } = world;
  const apiKey = world.apiKey !== undefined && key ? { masked: maskKey(world.apiKey), source: key[1], from: key[2] } : null;
  const baseUrl = settings && url ? { url: settings.baseUrl.href, source: url[1], from: url[2] } : null;
  const proxy = settings && proxyChoice(settings.baseUrl.origin, env);
  if (proxy) collected(problems, () => parseProxy(proxy)); // one every command refuses is a problem, in fire's words (audit25)
  // The trigger catalog in effect, and how many triggers it holds (null when it cannot be used).
  const triggers = world.catalog?.loaded ? Object.keys(world.catalog.loaded.data.triggers).length : null;
  const catalog = world.catalog ? { path: world.catalog.path, source: world.catalog.source, triggers } : null;
  // Read a moment ago (one that cannot be read stopped the resolution), so only its absence is left.
  const stat = fs.statSync(configFile, { throwIfNoEntry: false });
  const mode = stat ? (stat.mode & 0o777).toString(8).padStart(4, '0') : null;
  return {
    ok: problems.length === 0,
    profile: { name: profile.name, source: profile.source },
    apiKey,
    baseUrl,
    configFile: { path: configFile, exists: mode !== null, mode },
    proxy: proxy ? maskProxyCredentials(proxy.url) : null, // never its password, nor a lone token
    catalog,
    versions: { trigger: VERSION, node: process.version },
    problems: problems.map((p) => ({ message: p.message, hint: p.hint })),
  };
}

export type Status = Awaited<ReturnType<typeof collectStatus>>;

export function statusLines(s: Status, io: Output): string[] {
  const c = io.outColors;
  const row = (label: string, text: string) => `${c.dim(label.padEnd(10))}${text}`;
  const setting = (value: string | undefined, from: { source: Source; from: string } | null) =>
    from ? `${value} ${c.dim(`from ${SOURCE_WORDS[from.source]}: ${from.from}`)}` : c.error('not set');
  const catalog = s.catalog
    ? `${printable(s.catalog.path)} ${c.dim(`(${s.catalog.triggers === null ? 'cannot be used' : `${s.catalog.triggers} trigger${s.catalog.triggers === 1 ? '' : 's'}`}; ${CATALOG_WORDS[s.catalog.source]})`)}`
    : c.dim('none (no triggers.json here or above)');
  return [
    row('profile', `${c.bold(s.profile.name)} ${c.dim(`(${PROFILE_WORDS[s.profile.source]})`)}`),
    row('api key', setting(s.apiKey?.masked, s.apiKey)),
    row('base URL', setting(s.baseUrl?.url, s.baseUrl)),
    row('config', `${s.configFile.path} ${c.dim(s.configFile.exists ? `(mode ${s.configFile.mode})` : '(not created yet)')}`),
    row('proxy', s.proxy === null ? c.dim('none') : printable(s.proxy)),
    row('catalog', catalog),
    row('versions', `trigger ${s.versions.trigger}, node ${s.versions.node}`),
  ];
}

export async function status(options: StatusOptions, ctx: Context): Promise<void> {
  const { io } = ctx;
  const result = await collectStatus(options, ctx);
  if (options.json) io.json(JSON.stringify(result));
  else for (const line of statusLines(result, io)) io.stdout(line);
  for (const problem of result.problems)
    io.stderr(errorLine(new ConfigError(problem.message, { hint: problem.hint }), io.errColors, io.serverMask));
  if (result.problems[0]) throw new ConfigError(result.problems[0].message, { reported: true });
}

const EXAMPLES = `
Examples:
  $ trigger status
  $ trigger status --json | jq .apiKey.source

Exit codes: 0 a key and a base URL are set, 2 something is missing or invalid (the fix is printed).`;

export function command(program: Command, ctx: Context): Command {
  const about = 'show the settings a command would use now, and where each came from (sends nothing)';
  return addSettingsOptions(program.command('status').description(about))
    .option('--json', 'print one JSON object')
    .addHelpText('after', EXAMPLES)
    .action((options: StatusOptions) => status(options, ctx));
}

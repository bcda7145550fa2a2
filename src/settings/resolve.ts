/**
 * Resolving settings, highest first: command-line flag, environment, the selected profile.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, isTriggerError, type TriggerError } from '../errors.js';
import { configDir, configPath } from './paths.js';
import { checkProfileName, getProfile, readConfig, type ConfigData, type Profile } from './store.js';
import { proxyFor } from '../client/undici.js';
import { loadKey, storeName } from './keychain.js';
import { checkCleartext, insecureTlsWarning, normalizeApiKey, parseBaseUrl, versionedBaseUrlWarning, type BaseUrl } from './validate.js';
import { findCatalog, type FoundCatalog } from '../catalog/find.js';
import type { Catalog } from '../catalog/load.js';
import type { TriggerResolver } from '../catalog/resolve.js';

/** Where a setting came from: a flag, the environment, the profile in the config file, or the OS credential store. */
export type Source = 'flag' | 'env' | 'profile' | 'keychain';

export interface SettingsFlags {
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  profile?: string | undefined;
  allowHttp?: boolean | undefined;
}

export interface ResolveOptions {
  flags?: SettingsFlags;
  env?: NodeJS.ProcessEnv;
  /** Already-read config; read from the config file when not given. */
  config?: ConfigData;
  /** Whether an API key is required (not for --dry-run). */
  requireKey?: boolean;
}

export interface Settings {
  apiKey: string | undefined;
  apiKeySource: Source | undefined;
  baseUrl: BaseUrl;
  baseUrlSource: Source;
  profile: string;
  configFile: string;
  /** Things to tell the user on stderr (a config file holding the key that others can read). */
  warnings: string[];
}

/** The warning for a config file holding a key with group or other permission bits, if it has them. */
export function readableKeyFileWarning(file: string): string | undefined {
  // The key came from the file just read (gone meanwhile: nothing to say).
  const mode = (fs.statSync(file, { throwIfNoEntry: false })?.mode ?? 0) & 0o777;
  if ((mode & 0o077) === 0 || process.platform === 'win32') return undefined;
  return `warning: ${file} holds the API key and others can read it (mode ${mode.toString(8).padStart(4, '0')}); fix it with: chmod 600 ${file}`;
}

function pick<T>(candidates: Array<[T | undefined, Source, string]>): [T, Source, string] | undefined {
  return candidates.find(([value]) => value !== undefined && value !== '') as [T, Source, string] | undefined;
}

export interface SelectedProfile {
  name: string;
  /** Named by a flag, the environment or `config use` (so it must exist), not the default. */
  explicit: boolean;
  source: 'flag' | 'env' | 'config' | 'default';
}

/** The profile in effect: --profile, else TRIGGER_PROFILE, else the one `config use` chose, else "default". */
export function selectedProfile(flags: SettingsFlags = {}, env: NodeJS.ProcessEnv = process.env, config?: ConfigData): SelectedProfile {
  if (flags.profile) return { name: checkProfileName(flags.profile), explicit: true, source: 'flag' };
  if (env.TRIGGER_PROFILE) return { name: checkProfileName(env.TRIGGER_PROFILE), explicit: true, source: 'env' };
  if (typeof config?.active === 'string' && config.active !== '') return { name: config.active, explicit: true, source: 'config' };
  return { name: 'default', explicit: false, source: 'default' };
}

/** The name of the profile in effect, as the commands that send would use it. */
export function activeProfile(flags: SettingsFlags, env: NodeJS.ProcessEnv): string {
  return selectedProfile(flags, env, readConfig(configPath(env))).name;
}

/** Marks a key that is in the credential store (read by withStoredKey). */
const STORED = '\u0000keychain';

/** resolveSettings, then the key from the OS credential store when the profile keeps it there. */
export async function loadSettings(options: ResolveOptions = {}): Promise<Settings> {
  return (await resolveCommand({ ...options, catalog: false })).settings;
}

/** A setting as found, before it is checked: its value, where it came from, and that place in words. */
export type Found = [value: string, source: Source, label: string];

export interface FoundSettings {
  configFile: string;
  config: ConfigData;
  profile: SelectedProfile;
  /** The profile as stored, if it is in the file. */
  stored: Profile | undefined;
  key: Found | undefined;
  url: Found | undefined;
  /** --allow-http, or the consent stored with the profile's URL. */
  allowHttp: boolean;
}

/**
 * Where each setting would come from, highest first (flag, environment, profile), without checking
 * any of them: for resolveSettings, and for `trigger status`, which shows what is missing rather
 * than stopping at it.
 */
export function findSettings(options: ResolveOptions = {}): FoundSettings {
  const flags = options.flags ?? {};
  const env = options.env ?? process.env;
  const configFile = configPath(env);
  const config = options.config ?? readConfig(configFile);
  const profile = selectedProfile(flags, env, config);
  const stored = getProfile(config, profile.name);
  const profileLabel = `profile "${profile.name}" in ${configFile}`;
  const key = pick<string>([
    [flags.apiKey, 'flag', '--api-key'],
    [env.TRIGGER_API_KEY, 'env', 'TRIGGER_API_KEY'],
    [typeof stored?.apiKey === 'string' ? stored.apiKey : undefined, 'profile', profileLabel],
    [stored?.apiKeyStorage === 'keychain' ? STORED : undefined, 'keychain', `profile "${profile.name}" in ${storeName()}`],
  ]);
  const url = pick<string>([
    [flags.baseUrl, 'flag', '--base-url'],
    [env.TRIGGER_BASE_URL, 'env', 'TRIGGER_BASE_URL'],
    [typeof stored?.baseUrl === 'string' ? stored.baseUrl : undefined, 'profile', profileLabel],
  ]);
  const allowHttp = flags.allowHttp === true || (url?.[1] === 'profile' && stored?.allowHttp === true);
  return { configFile, config, profile, stored, key, url, allowHttp };
}

/** The error for a profile that was named but is not in the file. */
export function unknownProfile(name: string, configFile: string, config: ConfigData): ConfigError {
  const known = Object.keys(config.profiles ?? {});
  return new ConfigError(`profile "${name}" is not in ${configFile}`, {
    hint: known.length
      ? `known profiles: ${known.join(', ')}; or create it with: trigger config set-key --profile ${name}`
      : `create it with: trigger config set-key --profile ${name}`,
  });
}

/** "No API key is set" and "no base URL is set", with the command that fixes it: for the commands and `status`. */
function notSet(what: string, command: string, variable: string, profile: SelectedProfile): ConfigError {
  const named = profile.explicit ? ` --profile ${profile.name}` : '';
  return new ConfigError(`no ${what} is set`, {
    hint: `run: trigger config ${command}${named}  (or set ${variable}, or pass --${what === 'API key' ? 'api-key' : 'base-url'})`,
  });
}

/** What `fn` returns; a TriggerError it throws joins `problems` instead (anything else is a bug). */
function collected<T>(problems: TriggerError[], fn: () => T): T | undefined {
  try {
    return fn();
  } catch (error) {
    if (!isTriggerError(error)) throw error;
    problems.push(error);
    return undefined;
  }
}

/**
 * The settings as found, checked: every problem collected, in the order a command meets them (an
 * unknown profile, no key, no base URL, a bad URL, a cleartext key). `settings` is there when the
 * base URL could be read; the key from a credential store is read by resolveWorld.
 */
function checkSettings(
  found: FoundSettings,
  options: ResolveOptions,
): { settings: Settings | undefined; apiKey: string | undefined; problems: TriggerError[] } {
  const env = options.env ?? process.env;
  const { configFile, config, key, url, allowHttp } = found;
  const { name: profileName, explicit } = found.profile;
  const problems: TriggerError[] = [];
  const attempt = <T>(fn: () => T) => collected(problems, fn);
  if (explicit && !found.stored) problems.push(unknownProfile(profileName, configFile, config));
  if (!key && options.requireKey !== false) problems.push(notSet('API key', 'set-key', 'TRIGGER_API_KEY', found.profile));
  if (!url) problems.push(notSet('base URL', 'set-base-url https://<your-service-host>', 'TRIGGER_BASE_URL', found.profile));
  const baseUrl = url && attempt(() => parseBaseUrl(url[0], { allowHttp, source: url[2] }));
  if (baseUrl) attempt(() => checkCleartext(baseUrl, proxyFor(baseUrl.origin, env), allowHttp));
  const apiKey = key && key[1] !== 'keychain' ? attempt(() => normalizeApiKey(key[0], key[2])) : undefined;
  if (!url || !baseUrl) return { settings: undefined, apiKey, problems };
  const warning = key?.[1] === 'profile' ? readableKeyFileWarning(configFile) : undefined;
  // A stored URL was warned about when it was set; a flag or the environment is set on each run.
  const versioned = url[1] === 'profile' ? undefined : versionedBaseUrlWarning(baseUrl, url[2]);
  const warnings = [warning, versioned, insecureTlsWarning(env)].filter((w): w is string => w !== undefined);
  const settings = { warnings, apiKey, apiKeySource: key?.[1], baseUrl, baseUrlSource: url[1], profile: profileName, configFile };
  return { settings, apiKey, problems };
}

export function resolveSettings(options: ResolveOptions = {}): Settings {
  const { settings, problems } = checkSettings(findSettings(options), options);
  if (problems[0]) throw problems[0];
  return settings!;
}

export interface CommandResolveOptions extends ResolveOptions {
  /** The command's working folder, where the catalog is looked for. */
  cwd?: string;
  /** --catalog <file>, --no-catalog (false), or neither. */
  catalog?: string | boolean | undefined;
}

/**
 * A command's world, resolved once: the settings as found (with their sources) and checked, the key
 * from the credential store, the catalog in effect and its resolver for the active profile, and every
 * problem met on the way, in order. `fire` and `batch` stop at the first (resolveCommand); `status`
 * shows them all. The catalog's code is loaded only when a catalog is found.
 */
export interface World {
  found: FoundSettings;
  settings: Settings | undefined;
  /** The key, checked (the one from a credential store too), also where no settings could be made. */
  apiKey: string | undefined;
  catalog: (FoundCatalog & { loaded: Catalog | undefined; resolver: TriggerResolver | undefined }) | undefined;
  problems: TriggerError[];
}

export async function resolveWorld(options: CommandResolveOptions & { rememberCatalog?: boolean } = {}): Promise<World> {
  const env = options.env ?? process.env;
  const found = findSettings(options);
  const { settings, problems, ...checked } = checkSettings(found, options);
  let apiKey = checked.apiKey;
  if (found.key?.[1] === 'keychain') {
    // Bounded to a second; --dry-run needs no key, so a store that does not answer is then no problem.
    try {
      apiKey = normalizeApiKey(await loadKey(found.profile.name), found.key[2]);
      if (settings) settings.apiKey = apiKey;
    } catch (error) {
      if (!isTriggerError(error)) throw error;
      if (options.requireKey !== false) problems.push(error);
    }
  }
  const where = findCatalog({ cwd: options.cwd ?? process.cwd(), env, flag: options.catalog });
  if (!where) return { found, settings, apiKey, catalog: undefined, problems };
  const [{ loadCatalog }, { TriggerResolver }] = await Promise.all([import('../catalog/load.js'), import('../catalog/resolve.js')]);
  const checkedRecord = options.rememberCatalog === false ? undefined : path.join(configDir(env), 'catalog-checked.json');
  const loaded = collected(problems, () => loadCatalog(where, { checkedRecord, env }));
  const resolver = loaded && new TriggerResolver(loaded, found.profile.name);
  return { found, settings, apiKey, catalog: { ...where, loaded, resolver }, problems };
}

/** The world of `fire` and `batch` (and the library's loadSettings): the first problem stops it (exit 2). */
export async function resolveCommand(
  options: CommandResolveOptions = {},
): Promise<{ settings: Settings; catalog: TriggerResolver | undefined }> {
  const world = await resolveWorld(options);
  if (world.problems[0]) throw world.problems[0];
  return { settings: world.settings!, catalog: world.catalog?.resolver };
}

/**
 * Resolving settings, highest first: command-line flag, environment, the selected profile.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { configDir, configPath } from './paths.js';
import { checkProfileName, getProfile, readConfig, type ConfigData, type Profile } from './store.js';
import { proxyFor } from '../client/undici.js';
import { versionedBaseUrlWarning } from './base-url-warning.js';
import { loadKey, storeName } from './keychain.js';
import { checkCleartext, insecureTlsWarning, normalizeApiKey, parseBaseUrl, type BaseUrl } from './validate.js';
import { findCatalog } from '../catalog/find.js';
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
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
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

/** Marks a key that is in the credential store (read by loadSettings). */
const STORED = '\u0000keychain';

/**
 * resolveSettings, then the key from the OS credential store when that is where the profile keeps
 * it (bounded to a second). What the commands use.
 */
export async function loadSettings(options: ResolveOptions = {}): Promise<Settings> {
  const settings = resolveSettings(options);
  if (settings.apiKeySource !== 'keychain') return settings;
  if (options.requireKey === false) {
    // --dry-run needs no key: a store that does not answer is not a reason to stop.
    const key = await loadKey(settings.profile).catch(() => undefined);
    return key === undefined ? settings : { ...settings, apiKey: normalizeApiKey(key, `profile "${settings.profile}" in ${storeName()}`) };
  }
  const key = await loadKey(settings.profile);
  return { ...settings, apiKey: normalizeApiKey(key, `profile "${settings.profile}" in ${storeName()}`) };
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

/** "No API key is set", with the command that fixes it: the one wording, for the commands and `status`. */
export function noKeyError(profile: SelectedProfile): ConfigError {
  return new ConfigError('no API key is set', {
    hint: `run: trigger config set-key${profile.explicit ? ` --profile ${profile.name}` : ''}  (or set TRIGGER_API_KEY, or pass --api-key)`,
  });
}

/** "No base URL is set", with the command that fixes it. */
export function noBaseUrlError(profile: SelectedProfile): ConfigError {
  return new ConfigError('no base URL is set', {
    hint: `run: trigger config set-base-url https://<your-service-host>${profile.explicit ? ` --profile ${profile.name}` : ''}  (or set TRIGGER_BASE_URL, or pass --base-url)`,
  });
}

export function resolveSettings(options: ResolveOptions = {}): Settings {
  const env = options.env ?? process.env;
  const found = findSettings(options);
  const { configFile, config, key, url, allowHttp } = found;
  const { name: profileName, explicit } = found.profile;
  if (explicit && !found.stored) throw unknownProfile(profileName, configFile, config);

  if (!key && options.requireKey !== false) throw noKeyError(found.profile);
  if (!url) throw noBaseUrlError(found.profile);
  const baseUrl = parseBaseUrl(url[0], { allowHttp, source: url[2] });
  checkCleartext(baseUrl, proxyFor(baseUrl.origin, env), allowHttp);

  const warning = key?.[1] === 'profile' ? readableKeyFileWarning(configFile) : undefined;
  // A stored URL was warned about when it was set; a flag or the environment is set on each run.
  const versioned = url[1] === 'profile' ? undefined : versionedBaseUrlWarning(baseUrl, url[2]);
  return {
    warnings: [warning, versioned, insecureTlsWarning(env)].filter((w): w is string => w !== undefined),
    // A key in the credential store is read by loadSettings, which may wait for the store.
    apiKey: key && key[1] !== 'keychain' ? normalizeApiKey(key[0], key[2]) : undefined,
    apiKeySource: key?.[1],
    baseUrl,
    baseUrlSource: url[1],
    profile: profileName,
    configFile,
  };
}

export interface CommandResolveOptions extends ResolveOptions {
  /** The command's working folder, where the catalog is looked for. */
  cwd?: string;
  /** --catalog <file>, --no-catalog (false), or neither. */
  catalog?: string | boolean | undefined;
}

/** Where the catalogs found usable are remembered, beside the config file (see loadCatalog). */
const CATALOG_RECORD = 'catalog-checked.json';

/** What a command that sends works with: the settings, and the catalog's resolver when there is a catalog. */
export interface CommandWorld {
  settings: Settings;
  catalog: TriggerResolver | undefined;
}

/**
 * The one resolution for `fire` and `batch`: settings (flag > env > profile) and the catalog in
 * effect, read for the active profile. Throws the first thing that stops the command (exit 2). The
 * catalog's code is loaded only when a catalog is found.
 */
export async function resolveCommand(options: CommandResolveOptions = {}): Promise<CommandWorld> {
  const settings = await loadSettings(options);
  const found = findCatalog({ cwd: options.cwd ?? process.cwd(), env: options.env ?? process.env, flag: options.catalog });
  if (!found) return { settings, catalog: undefined };
  const [{ loadCatalog }, { TriggerResolver }] = await Promise.all([import('../catalog/load.js'), import('../catalog/resolve.js')]);
  const checkedRecord = path.join(configDir(options.env ?? process.env), CATALOG_RECORD);
  return { settings, catalog: new TriggerResolver(loadCatalog(found, { checkedRecord, env: options.env ?? process.env }), settings.profile) };
}

/** Resolving settings, highest first: command-line flag, environment, the selected profile. */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, isTriggerError, UsageError, type TriggerError } from '../errors.js';
import { configDir, configPath } from './paths.js';
import { checkProfileName, getProfile, PROFILE_NAME, readConfig, SETTINGS, type ConfigData, type Setting } from './store.js';
import { proxyFor } from '../client/proxy.js';
import { loadKey, storeName } from './keychain.js';
import { checkCleartext, insecureTlsWarning, normalizeApiKey, parseBaseUrl, versionedBaseUrlWarning, type BaseUrl } from './validate.js';
import { findCatalog } from '../catalog/find.js';
import { quotedExcerpt } from '../output/excerpt.js';

const USE_ONE = 'make one the active profile with: trigger config use <profile> (trigger config list --names shows them)';

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
  /** Whether an API key is required (not for --dry-run), and a base URL (not for batch --dry-run, which prints no request). */
  requireKey?: boolean;
  requireUrl?: boolean;
}

export interface Settings {
  apiKey: string | undefined;
  apiKeySource: Source | undefined;
  baseUrl: BaseUrl;
  baseUrlSource: Source;
  profile: string;
  profileInFile?: boolean; // whether the config file has that profile (an explicit --profile default is refused where it has not)
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

/** The profile in effect: --profile, TRIGGER_PROFILE, `config use`'s, else "default"; `explicit` when named (even "default"): it must exist. */
export function selectedProfile(flags: SettingsFlags = {}, env: NodeJS.ProcessEnv = process.env, config?: ConfigData) {
  if (flags.profile !== undefined) return { name: checkProfileName(flags.profile, '--profile'), explicit: true, source: 'flag' } as const;
  const named = env.TRIGGER_PROFILE;
  if (named !== undefined) return { name: checkProfileName(named, 'TRIGGER_PROFILE'), explicit: true, source: 'env' } as const;
  const active = config?.active; // checked too: the file may be edited by hand (a raw escape sequence, audit26)
  if (typeof active === 'string' && active !== '' && !PROFILE_NAME.test(active))
    throw new ConfigError(`the active profile in the config file, ${quotedExcerpt(active)}, is not a valid name`, { hint: USE_ONE });
  if (typeof active === 'string' && active !== '') return { name: active, explicit: true, source: 'config' } as const;
  return { name: 'default', explicit: false, source: 'default' } as const;
}

/** The name of the profile in effect, as the commands that send would use it. */
export const activeProfile = (flags: SettingsFlags, env: NodeJS.ProcessEnv): string =>
  selectedProfile(flags, env, readConfig(configPath(env))).name;

const STORED = '\u0000keychain'; // Marks a key that is in the credential store (read by resolveWorld).

/** resolveSettings, then the key from the OS credential store when the profile keeps it there: a key is there unless `requireKey: false`. */
export function loadSettings(options?: ResolveOptions & { requireKey?: true }): Promise<Settings & { apiKey: string }>;
export function loadSettings(options?: ResolveOptions): Promise<Settings>;
export async function loadSettings(options: ResolveOptions = {}): Promise<Settings> {
  return (await resolveCommand({ ...options, catalog: false })).settings;
}

/** A setting as found, before it is checked: its value, where it came from, and that place in words. */
export type Found = [value: string, source: Source, label: string];

/** The error for a profile that was named but is not in the file. */
export function unknownProfile(name: string, configFile: string, config: ConfigData): ConfigError {
  const known = Object.keys(config.profiles ?? {});
  const others = known.length ? `known profiles: ${known.join(', ')}; or ` : '';
  const hint = `${others}create it with: trigger config set-key --profile ${name}`;
  return new ConfigError(`profile "${name}" is not in ${configFile}`, { hint });
}

/** "No API key is set" and "no base URL is set", with the command that fixes it: for the commands and `status`. */
function notSet(setting: Setting, profile: ReturnType<typeof selectedProfile>): ConfigError {
  const named = profile.explicit ? ` --profile ${profile.name}` : '';
  const hint = `run: trigger config ${setting.set}${named}  (or set ${setting.env}, or pass ${setting.flag})`;
  return new ConfigError(`no ${setting.words} is set`, { hint });
}

/** What `fn` returns; a TriggerError it throws joins `problems` instead (anything else is a bug). */
export function collected<T>(problems: TriggerError[], fn: () => T): T | undefined {
  try {
    return fn();
  } catch (error) {
    if (!isTriggerError(error)) throw error;
    problems.push(error);
    return undefined;
  }
}

/**
 * Where each setting came from (highest first: flag, environment, profile) and the settings checked, with every problem collected, in the
 * order a command meets them (an unknown profile, no key, no base URL, a bad URL, a cleartext key). `settings` is there when the base URL
 * could be read; `apiKey` is the key checked, also where no settings could be made (resolveWorld adds one from a credential store).
 */
export function findSettings(options: ResolveOptions = {}) {
  const flags = options.flags ?? {};
  const env = options.env ?? process.env;
  const configFile = configPath(env);
  const config = options.config ?? readConfig(configFile);
  // A dry run takes an empty TRIGGER_PROFILE as unset, as an empty key (a fork's pull request gets an empty `vars.PROFILE`; review26b).
  const unset = options.requireKey === false && env.TRIGGER_PROFILE === '' ? { ...env, TRIGGER_PROFILE: undefined } : env;
  const profile = selectedProfile(flags, unset, config);
  const stored = getProfile(config, profile.name);
  const problems: TriggerError[] = [];
  const found = (setting: Setting, required: boolean, ...more: Found[]): Found | undefined => {
    const value = stored?.[setting.field];
    const [given, fix] =
      flags[setting.field] === undefined ? [setting.env, `unset ${setting.env}`] : [setting.flag, `leave ${setting.flag} out`];
    // None when given empty: an unset variable in a script (`--api-key "$STAGING_KEY"`), not "the profile's" (audit26), as --profile "".
    // Where it is not needed (a dry run) it is as unset: a fork's pull request gets every secret empty (review26).
    const empty = `${given} is empty: give the ${setting.words}, or ${fix}; nothing was sent`;
    if (required && (flags[setting.field] ?? env[setting.env]) === '') return void problems.push(new UsageError(empty));
    const odd = required && value !== undefined && typeof value !== 'string' && !(flags[setting.field] ?? env[setting.env]); // `"apiKey": 1` (fix26c)
    const hint = `set it again with: trigger config ${setting.set}${profile.name === 'default' ? '' : ` --profile ${profile.name}`}`;
    const says = `config file ${configFile}: the ${setting.field} of profile "${profile.name}" is ${value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`}, not text; it was left untouched`;
    if (odd) return void problems.push(new ConfigError(says, { hint })); // it was passed over, for "no API key is set"
    const sources: Found[] = [
      [flags[setting.field] ?? '', 'flag', setting.flag],
      [env[setting.env] ?? '', 'env', setting.env],
      [typeof value === 'string' ? value : '', 'profile', `profile "${profile.name}" in ${configFile}`],
    ];
    return [...sources, ...more].find(([value]) => value !== '');
  };
  const inStore: Found = [stored?.apiKeyStorage === 'keychain' ? STORED : '', 'keychain', `profile "${profile.name}" in ${storeName()}`];
  const key = found(SETTINGS['api-key'], options.requireKey !== false, inStore);
  const url = found(SETTINGS['base-url'], options.requireUrl !== false);
  const empty = problems.length > 0; // a setting given empty is said once, not also as "not set"
  const allowHttp = flags.allowHttp === true || (url?.[1] === 'profile' && stored?.allowHttp === true);

  const attempt = <T>(fn: () => T) => collected(problems, fn);
  // A profile named and not in the file: a mistake, unless key and base URL come from elsewhere (CI's environment), where it
  // picks the catalog's ids only: resolveWorld asks that the catalog know it.
  const forIds = profile.explicit && !stored && key !== undefined && url !== undefined;
  if (profile.explicit && !stored && !forIds) problems.push(unknownProfile(profile.name, configFile, config));
  if (!key && !empty && options.requireKey !== false) problems.push(notSet(SETTINGS['api-key'], profile));
  if (!url && !empty && options.requireUrl !== false) problems.push(notSet(SETTINGS['base-url'], profile));
  const baseUrl = url && attempt(() => parseBaseUrl(url[0], { allowHttp, source: url[2] }));
  if (baseUrl) attempt(() => checkCleartext(baseUrl, proxyFor(baseUrl.origin, env), allowHttp));
  const apiKey = key && key[1] !== 'keychain' ? attempt(() => normalizeApiKey(key[0], key[2])) : undefined;
  const world = { configFile, profile, forIds, key, url, apiKey, problems, settings: undefined as Settings | undefined };
  if (!url || !baseUrl) return world;
  const warning = key?.[1] === 'profile' ? readableKeyFileWarning(configFile) : undefined;
  // A stored URL was warned about when it was set; a flag or the environment is set on each run.
  const versioned = url[1] === 'profile' ? undefined : versionedBaseUrlWarning(baseUrl, url[2]);
  const warnings = [warning, versioned, insecureTlsWarning(env)].filter((w): w is string => w !== undefined);
  const settings = { warnings, apiKey, apiKeySource: key?.[1], baseUrl, baseUrlSource: url[1], profile: profile.name, configFile };
  return { ...world, settings: { ...settings, profileInFile: !!stored } };
}

export function resolveSettings(options: ResolveOptions = {}): Settings {
  const { settings, problems } = findSettings(options);
  if (problems[0]) throw problems[0];
  return settings!;
}

interface CommandResolveOptions extends ResolveOptions {
  cwd?: string; // The command's working folder, where the catalog is looked for.
  catalog?: string | boolean | undefined; // --catalog <file>, --no-catalog (false), or neither.
}

/**
 * A command's world, resolved once: the settings as found and checked, the key from the credential store, the catalog in effect and its
 * resolver for the active profile, and every problem met on the way, in order. `fire` and `batch` stop at the first (resolveCommand);
 * `status` shows them all. The catalog's code is loaded only when a catalog is found.
 */
export async function resolveWorld(options: CommandResolveOptions & { rememberCatalog?: boolean } = {}) {
  const env = options.env ?? process.env;
  const found = findSettings(options);
  const { key, settings, problems } = found;
  if (key?.[1] === 'keychain') {
    // Bounded to a second; --dry-run needs no key, so a store that does not answer is then no problem.
    try {
      found.apiKey = normalizeApiKey(await loadKey(found.profile.name), key[2]);
      if (settings) settings.apiKey = found.apiKey;
    } catch (error) {
      if (!isTriggerError(error)) throw error;
      if (options.requireKey !== false) problems.push(error);
    }
  }
  const where = findCatalog({ cwd: options.cwd ?? process.cwd(), env, flag: options.catalog });
  const unknown = () => unknownProfile(found.profile.name, found.configFile, options.config ?? readConfig(found.configFile));
  if (!where && found.forIds) problems.push(unknown());
  if (!where) return { ...found, catalog: undefined };
  const [{ loadCatalog }, { TriggerResolver }] = await Promise.all([import('../catalog/load.js'), import('../catalog/resolve.js')]);
  const checkedRecord = options.rememberCatalog === false ? undefined : path.join(configDir(env), 'catalog-checked.json');
  const loaded = collected(problems, () => loadCatalog(where, { checkedRecord, env }));
  const resolver = loaded && new TriggerResolver(loaded, found.profile.name);
  const named = loaded && Object.values(loaded.data.triggers).some((entry) => entry.ids?.[found.profile.name] !== undefined);
  if (found.forIds && loaded && !named) problems.push(unknown());
  return { ...found, catalog: { ...where, loaded, resolver } };
}

/** The world of `fire` and `batch` (and the library's loadSettings): the first problem stops it (exit 2). */
export async function resolveCommand(options: CommandResolveOptions) {
  const world = await resolveWorld(options);
  if (world.problems[0]) throw world.problems[0];
  return { settings: world.settings!, catalog: world.catalog?.resolver };
}

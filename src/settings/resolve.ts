/**
 * Resolving settings, highest first: command-line flag, environment, the selected profile.
 */
import fs from 'node:fs';
import { ConfigError } from '../errors.js';
import { configPath } from './paths.js';
import { checkProfileName, getProfile, readConfig, type ConfigData } from './store.js';
import { proxyFor } from '../client/undici.js';
import { checkCleartext, normalizeApiKey, parseBaseUrl, type BaseUrl } from './validate.js';

export type Source = 'flag' | 'env' | 'profile';

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

function pick<T>(
  candidates: Array<[T | undefined, Source, string]>,
): [T, Source, string] | undefined {
  return candidates.find(([value]) => value !== undefined && value !== '') as [T, Source, string] | undefined;
}

export function selectedProfile(flags: SettingsFlags = {}, env: NodeJS.ProcessEnv = process.env): {
  name: string;
  explicit: boolean;
} {
  const name = flags.profile || env.TRIGGER_PROFILE;
  return name ? { name: checkProfileName(name), explicit: true } : { name: 'default', explicit: false };
}

export function resolveSettings(options: ResolveOptions = {}): Settings {
  const flags = options.flags ?? {};
  const env = options.env ?? process.env;
  const configFile = configPath(env);
  const { name: profileName, explicit } = selectedProfile(flags, env);
  const config = options.config ?? readConfig(configFile);
  const profile = getProfile(config, profileName);
  if (explicit && !profile) {
    const known = Object.keys(config.profiles ?? {});
    throw new ConfigError(`profile "${profileName}" is not in ${configFile}`, {
      hint: known.length
        ? `known profiles: ${known.join(', ')}; or create it with: trigger config set-key --profile ${profileName}`
        : `create it with: trigger config set-key --profile ${profileName}`,
    });
  }
  const profileLabel = `profile "${profileName}" in ${configFile}`;

  const key = pick<string>([
    [flags.apiKey, 'flag', '--api-key'],
    [env.TRIGGER_API_KEY, 'env', 'TRIGGER_API_KEY'],
    [typeof profile?.apiKey === 'string' ? profile.apiKey : undefined, 'profile', profileLabel],
  ]);
  if (!key && options.requireKey !== false) {
    throw new ConfigError('no API key is set', {
      hint: `run: trigger config set-key${explicit ? ` --profile ${profileName}` : ''}  (or set TRIGGER_API_KEY, or pass --api-key)`,
    });
  }

  const url = pick<string>([
    [flags.baseUrl, 'flag', '--base-url'],
    [env.TRIGGER_BASE_URL, 'env', 'TRIGGER_BASE_URL'],
    [typeof profile?.baseUrl === 'string' ? profile.baseUrl : undefined, 'profile', profileLabel],
  ]);
  if (!url) {
    throw new ConfigError('no base URL is set', {
      hint: `run: trigger config set-base-url https://<your-service-host>${explicit ? ` --profile ${profileName}` : ''}  (or set TRIGGER_BASE_URL, or pass --base-url)`,
    });
  }
  const storedConsent = url[1] === 'profile' && profile?.allowHttp === true;
  const allowHttp = flags.allowHttp === true || storedConsent;
  const baseUrl = parseBaseUrl(url[0], { allowHttp, source: url[2] });
  checkCleartext(baseUrl, proxyFor(baseUrl.origin, env), allowHttp);

  const warning = key?.[1] === 'profile' ? readableKeyFileWarning(configFile) : undefined;
  return {
    warnings: warning ? [warning] : [],
    apiKey: key ? normalizeApiKey(key[0], key[2]) : undefined,
    apiKeySource: key?.[1],
    baseUrl,
    baseUrlSource: url[1],
    profile: profileName,
    configFile,
  };
}

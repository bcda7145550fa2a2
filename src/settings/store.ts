/**
 * The config file: { "profiles": { "<name>": { "apiKey": "...", "baseUrl": "..." } } }.
 *
 * Reading is a plain JSON.parse, because every `trigger fire` pays for it and conf (with ajv) costs
 * about 100 ms to import. Writing goes through conf for its atomic write, with mode 0600 in a 0700
 * folder. A file that cannot be parsed is reported with its path and never written over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { CONFIG_FILE_NAME } from './paths.js';

export interface Profile {
  apiKey?: string;
  baseUrl?: string;
  /** Set when the base URL was stored with --allow-http. */
  allowHttp?: boolean;
  [other: string]: unknown;
}

export interface ConfigData {
  profiles?: Record<string, Profile>;
  [other: string]: unknown;
}

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new ConfigError(
      `profile name ${JSON.stringify(name)} is not valid; use letters, digits, "-", "_" or "." (e.g. staging)`,
    );
  }
  return name;
}

/** Reads the config file; a missing file is an empty config. */
export function readConfig(file: string): ConfigData {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`);
  }
  if (text.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${file} is not valid JSON (${(error as Error).message}); it was left untouched`, {
      hint: `fix or delete it, then run: trigger config set-key`,
    });
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ConfigError(`config file ${file} does not hold a JSON object; it was left untouched`);
  }
  const profiles = (data as ConfigData).profiles;
  if (profiles !== undefined && (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles))) {
    throw new ConfigError(`config file ${file}: "profiles" is not an object; it was left untouched`);
  }
  return data as ConfigData;
}

export function getProfile(data: ConfigData, name: string): Profile | undefined {
  const profile = data.profiles?.[name];
  return typeof profile === 'object' && profile !== null ? profile : undefined;
}

/**
 * Changes one profile and writes the whole file back, keeping every other value and profile.
 * The update sees the profile as stored (or {}); returning undefined removes the profile.
 */
export async function updateProfile(
  file: string,
  name: string,
  update: (profile: Profile) => Profile | undefined,
): Promise<void> {
  // Parse first: a corrupt file stops here, before conf could touch it.
  const data = readConfig(file);
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const { default: Conf } = await import('conf');
  const store = new Conf<ConfigData>({
    cwd: dir,
    configName: path.basename(CONFIG_FILE_NAME, '.json'),
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
    clearInvalidConfig: false,
    watch: false,
  });
  const profiles: Record<string, Profile> = { ...(data.profiles ?? {}) };
  const next = update({ ...(profiles[name] ?? {}) });
  if (next === undefined) delete profiles[name];
  else profiles[name] = next;
  store.set('profiles', profiles);
  // conf keeps the mode of a file that already existed; the key must not be readable by others.
  fs.chmodSync(file, 0o600);
}

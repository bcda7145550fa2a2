/**
 * The config file: { "profiles": { "<name>": { "apiKey": "...", "baseUrl": "..." } } }. Reading is a plain JSON.parse, because every
 * `trigger fire` pays for it. Writing replaces the file whole (atomic-write.ts: temporary file, fsync, rename), with mode 0600, under the
 * lock of ../lock.ts, re-reading inside the lock. A file that cannot be parsed is reported with its path and never written over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { makeFolders, writeFileAtomic } from '../atomic-write.js';
import { errnoWords } from '../errno.js';
import { ConfigError } from '../errors.js';
import { quotedExcerpt } from '../output/excerpt.js';
import { shellQuote } from '../output/render.js';
import { withLock, type LockOptions } from '../lock.js';

export interface Profile {
  apiKey?: string;
  apiKeyStorage?: 'keychain'; // "keychain": the key is in the OS credential store, not in this file.
  baseUrl?: string;
  allowHttp?: boolean; // Set when the base URL was stored with --allow-http.
  [other: string]: unknown;
}

export interface ConfigData {
  active?: string; // The profile `trigger config use` chose.
  profiles?: Record<string, Profile>;
  [other: string]: unknown;
}

/** The two settings by the name typed, with each one's field, variable, flag, words, `config` command, completion and kept fields. */
export const SETTINGS = {
  'api-key': {
    field: 'apiKey',
    env: 'TRIGGER_API_KEY',
    flag: '--api-key',
    words: 'API key',
    set: 'set-key',
    about: 'the API key (printed masked)',
    kept: ['apiKey', 'apiKeyStorage'],
  },
  'base-url': {
    field: 'baseUrl',
    env: 'TRIGGER_BASE_URL',
    flag: '--base-url',
    words: 'base URL',
    set: 'set-base-url https://<your-service-host>',
    about: 'the service base URL',
    kept: ['baseUrl', 'allowHttp'],
  },
} as const;

export type SettingName = keyof typeof SETTINGS;
export type Setting = (typeof SETTINGS)[SettingName];

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const NAMING = 'use up to 64 letters, digits, "-", "_", "." (e.g. staging)';
/** `given`: where the name came from (--profile, TRIGGER_PROFILE), where an empty one is a mistake (`--profile "$UNSET"`), not default. */
export function checkProfileName(name: string, given?: string): string {
  if (name === '' && given) throw new ConfigError(`${given} is empty: name a profile, or leave ${given} out for the active one; ${NAMING}`);
  if (!PROFILE_NAME.test(name)) throw new ConfigError(`profile name ${quotedExcerpt(name)} is not valid; ${NAMING}`);
  return name;
}

const ELSEWHERE = 'move it aside (trigger config set-key then makes a new one), or set TRIGGER_CONFIG_DIR to another folder';

/** Not "delete it": it holds every profile (audit23); moved aside, nothing is lost. */
const byHand = (file: string) =>
  `fix it by hand (it holds every profile's settings), or move it aside and start again: mv ${shellQuote(file)} ${shellQuote(`${file}.broken`)} && trigger config set-key`;

/** V8's reason without its excerpt of the file, nor the character it stopped at: either may be the key's (audit28); its position instead. */
function jsonReason(message: string, text: string): string {
  const cut = /^.*?, (\.\.\.)?"(.*)"(\.\.\.)? is not valid JSON$/s.exec(message); // Unexpected token 'k', ..."apiKey":tk_live_SEC"...
  if (!cut) return message;
  const at = cut[1] ? text.indexOf(cut[2]!) + 10 : cut[3] ? cut[2]!.length - 10 : -1; // V8 shows 10 characters either side of it
  return `Unexpected character in JSON${at < 0 ? '' : ` at position ${at}`}`;
}

/** Reads the config file; a missing file is an empty config. */
export function readConfig(file: string): ConfigData {
  let text: string;
  let fd: number | undefined;
  try {
    // Opened without blocking, read only as a regular file of 1 MiB at most: a FIFO or /dev/zero there hung every command (audit26).
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK || 0));
    const stat = fs.fstatSync(fd); // a folder is read, and refused in words, as before
    const odd = stat.isFile() || stat.isDirectory() ? stat.size > 1 << 20 && 'larger than 1 MiB' : 'not a regular file';
    if (odd) throw new ConfigError(`config file ${file} is ${odd}; it was not read`, { hint: ELSEWHERE });
    text = fs.readFileSync(fd, 'utf8').replace(/^\uFEFF/, ''); // a BOM, as an editor on Windows saves it (fix26c noticed)
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw cannot('read config file', file, error);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  if (text.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${file} is not valid JSON (${jsonReason((error as Error).message, text)}); it was left untouched`, {
      hint: byHand(file),
    });
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new ConfigError(`config file ${file} does not hold a JSON object; it was left untouched`);
  const profiles = (data as ConfigData).profiles;
  if (profiles !== undefined && (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles)))
    throw new ConfigError(`config file ${file}: "profiles" is not an object; it was left untouched`);
  return data as ConfigData;
}

export function getProfile(data: ConfigData, name: string): Profile | undefined {
  const profile = data.profiles?.[name];
  return typeof profile === 'object' && profile !== null ? profile : undefined;
}

/** How a failed read or write is said: the path and the reason, in words. */
function cannot(what: string, target: string, error: unknown): ConfigError {
  const message = `cannot ${what} ${target}: ${errnoWords(error, 'writing')}`;
  return new ConfigError(message, { hint: 'set TRIGGER_CONFIG_DIR to a folder you can write to' });
}

/** Writes the whole config back under the lock, keeping every value `update` (which sees the file inside the lock) does not change. */
export async function updateConfig(file: string, update: (data: ConfigData) => ConfigData, options: LockOptions = {}): Promise<ConfigData> {
  readConfig(file); // a corrupt file stops here, before anything is created or locked
  try {
    makeFolders(path.dirname(file));
  } catch (error) {
    throw cannot('create the config folder', path.dirname(file), error);
  }
  const change = async () => {
    const next = update(readConfig(file));
    try {
      // Written whole (temporary file, fsync, rename) with mode 0600 even over an older file: it may hold the key.
      writeFileAtomic(file, `${JSON.stringify(next, undefined, '\t')}\n`, { mode: 0o600, forceMode: true });
    } catch (error) {
      // JSON.stringify recurses: a file nested 10,000s deep (an unknown field's) is read, and cannot be written back (audit28).
      if (error instanceof RangeError)
        throw new ConfigError(`config file ${file} is nested too deeply to write back; it was left untouched`, { hint: byHand(file) });
      throw cannot('write', file, error);
    }
    return next;
  };
  return withLock(file, change, options);
}

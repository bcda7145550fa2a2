import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { tryOr } from '../try-or.js';

/**
 * The user's home folder: HOME, else the account's; an empty or relative HOME is an unset one, never the current folder (audit26: the key
 * went there); a user with no home (a container's --user without a passwd entry, review26b) gets the root, where nothing is found or made.
 */
export const homeDir = (env: NodeJS.ProcessEnv = process.env): string =>
  [env.HOME, tryOr(() => os.userInfo().homedir)].find((home) => home && path.isAbsolute(home)) ?? path.parse(process.cwd()).root;

/**
 * config.json's folder: TRIGGER_CONFIG_DIR, else the platform's user config folder (as conf/env-paths, without "-nodejs"). A relative
 * TRIGGER_CONFIG_DIR, the user's own, is refused: a quoted `'~/cfg'` put the key in a folder `~` where the command ran (audit26 #8).
 */
export function configDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const dir = configFolder(env, platform);
  const given = env.TRIGGER_CONFIG_DIR;
  const hint = given?.startsWith('~') ? 'a quoted ~ is not your home folder: write $HOME instead' : 'e.g. TRIGGER_CONFIG_DIR="$PWD/cfg"';
  if (dir === undefined)
    throw new ConfigError(`TRIGGER_CONFIG_DIR must be an absolute path, not ${given}; nothing was read or stored`, { hint });
  return dir;
}

/** configDir, or undefined for a relative TRIGGER_CONFIG_DIR: start-up's, which then keeps no code cache, without errors.ts (+1.8 KB). */
export function configFolder(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  const given = env.TRIGGER_CONFIG_DIR;
  if (given) return path.isAbsolute(given) ? path.resolve(given) : undefined;
  const home = homeDir(env);
  if (platform === 'darwin') return path.join(home, 'Library', 'Preferences', 'trigger');
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'trigger', 'Config');
  return path.join(xdgDir(env, 'XDG_CONFIG_HOME', '.config'), 'trigger');
}

/** An XDG base folder: the variable when it is absolute (the spec says to ignore a relative one), else its folder in the home. */
export const xdgDir = (env: NodeJS.ProcessEnv, name: 'XDG_CONFIG_HOME' | 'XDG_CACHE_HOME', inHome: string): string =>
  env[name] && path.isAbsolute(env[name]) ? env[name] : path.join(homeDir(env), inHome);

export const configPath = (env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string =>
  path.join(configDir(env, platform), 'config.json');

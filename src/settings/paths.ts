import os from 'node:os';
import path from 'node:path';
import { tryOr } from '../try-or.js';

/**
 * The user's home folder: HOME, else the account's; an empty or relative HOME is an unset one, never the current folder (audit26: the key
 * went there); a user with no home (a container's --user without a passwd entry, review26b) gets the root, where nothing is found or made.
 */
export const homeDir = (env: NodeJS.ProcessEnv = process.env): string =>
  [env.HOME, tryOr(() => os.userInfo().homedir)].find((home) => home && path.isAbsolute(home)) ?? path.parse(process.cwd()).root;

/** config.json's folder: TRIGGER_CONFIG_DIR, else the platform's user config folder (as conf/env-paths, without "-nodejs"). */
export function configDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.TRIGGER_CONFIG_DIR) return path.resolve(env.TRIGGER_CONFIG_DIR);
  const home = homeDir(env);
  if (platform === 'darwin') return path.join(home, 'Library', 'Preferences', 'trigger');
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'trigger', 'Config');
  const xdg = env.XDG_CONFIG_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'trigger');
}

export function configPath(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return path.join(configDir(env, platform), 'config.json');
}

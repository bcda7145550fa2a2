import os from 'node:os';
import path from 'node:path';

/** The user's home folder: HOME, else the account's; an empty HOME is an unset one, never the current folder (audit26: the key went there). */
export const homeDir = (env: NodeJS.ProcessEnv = process.env): string => env.HOME || os.homedir() || os.userInfo().homedir;

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

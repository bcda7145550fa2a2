import os from 'node:os';
import path from 'node:path';

/** config.json's folder: TRIGGER_CONFIG_DIR, else the platform's user config folder (as conf/env-paths, without "-nodejs"). */
export function configDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.TRIGGER_CONFIG_DIR) return path.resolve(env.TRIGGER_CONFIG_DIR);
  const home = env.HOME || os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Preferences', 'trigger');
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'trigger', 'Config');
  const xdg = env.XDG_CONFIG_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'trigger');
}

export function configPath(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return path.join(configDir(env, platform), 'config.json');
}

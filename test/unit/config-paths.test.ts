/** Where the config file is: an empty HOME (set, but empty) is an unset one, never the current folder (audit26). */
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { configDir, configPath } from '../../src/settings/paths.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

it('an empty HOME puts the config file in the account home folder, not in the current folder', () => {
  vi.stubEnv('HOME', ''); // os.homedir() reads this process's HOME: empty, it answers ""
  const file = configPath({ HOME: '' }, 'linux');
  // On 6b80cdd: ".config/trigger/config.json", relative, so set-key wrote the key into the folder the command ran in.
  expect(path.isAbsolute(file)).toBe(true);
  expect(file).toBe(path.join(os.userInfo().homedir, '.config', 'trigger', 'config.json'));
  expect(configDir({ HOME: '', XDG_CONFIG_HOME: '/x/cfg' }, 'linux')).toBe(path.join('/x/cfg', 'trigger'));
  expect(configDir({ HOME: '/home/someone' }, 'linux')).toBe(path.join('/home/someone', '.config', 'trigger'));
});

it('an empty HOME or a relative XDG_CACHE_HOME puts the start-up cache in the account home folder, not in the current folder', async () => {
  vi.stubEnv('HOME', '');
  const { cacheDir } = await import('../../src/startup.js');
  // On 6b80cdd: ".cache/trigger", relative: every command (a dry run too) wrote its compiled code into the folder it ran in.
  expect(cacheDir({ HOME: '' })).toBe(path.join(os.userInfo().homedir, '.cache', 'trigger'));
  expect(cacheDir({ HOME: '/home/someone', XDG_CACHE_HOME: 'rel' })).toBe(path.join('/home/someone', '.cache', 'trigger'));
  expect(cacheDir({ HOME: '/home/someone', XDG_CACHE_HOME: '/x/cache' })).toBe(path.join('/x/cache', 'trigger'));
});

it('a relative HOME is an unset one, and a user with no home at all gets the root, not the current folder (review26b)', async () => {
  const { homeDir } = await import('../../src/settings/paths.js');
  expect(homeDir({ HOME: 'relhome' })).toBe(os.userInfo().homedir); // was: relhome, under the folder the command ran in
  expect(configDir({ HOME: 'relhome' }, 'linux')).toBe(path.join(os.userInfo().homedir, '.config', 'trigger'));
  expect(homeDir({ HOME: '/home/someone' })).toBe('/home/someone');
});

it('a relative TRIGGER_CONFIG_DIR is refused, naming it, not taken from the current folder (audit26 #8)', () => {
  // Was: `cfg` under the folder the command ran in, and a quoted `~/cfg` a folder named `~` there, where `git add .` takes the key.
  expect(() => configDir({ TRIGGER_CONFIG_DIR: 'cfg' }, 'linux')).toThrow(
    expect.objectContaining({
      kind: 'config',
      exitCode: 2,
      message: 'TRIGGER_CONFIG_DIR must be an absolute path, not cfg; nothing was read or stored',
    }),
  );
  expect(() => configPath({ TRIGGER_CONFIG_DIR: '~/cfg' }, 'linux')).toThrow(
    expect.objectContaining({ hint: 'a quoted ~ is not your home folder: write $HOME instead' }),
  );
  expect(configDir({ TRIGGER_CONFIG_DIR: '/x/cfg/' }, 'linux')).toBe('/x/cfg');
});

/**
 * trigger config set-key | set-base-url | get | list | unset | use | delete | path
 *
 * The key goes to the OS credential store where one answers (and CI is not set), as gh does; the
 * config file then records only that it is there. Every write to the file happens under its lock.
 */
import fs from 'node:fs';
import { Option, type Command } from 'commander';
import { ConfigError, UsageError } from '../errors.js';
import type { Output } from '../output/io.js';
import { printable, shownId } from '../output/render.js';
import { deleteKey, loadKey, storeKey, storeName, storeTrouble } from '../settings/keychain.js';
import { lockWaitMs } from '../lock.js';
import { configPath } from '../settings/paths.js';
import { selectedProfile, unknownProfile } from '../settings/resolve.js';
import { checkProfileName, getProfile, readConfig, updateConfig, SETTINGS } from '../settings/store.js';
import type { ConfigData, Profile, SettingName } from '../settings/store.js';
import { maskKey, normalizeApiKey, parseBaseUrl, versionedBaseUrlWarning } from '../settings/validate.js';
import { readSecret } from './prompt.js';
import type { Context } from './shared.js';

export type ProfileOption = { profile?: string };

/** A setting's name as typed in any letter case, with "-", "_" or nothing between its words (apiKey, API_KEY). */
function settingName(name: string): SettingName {
  const typed = name.toLowerCase().replace(/[-_]/g, '');
  const found = Object.keys(SETTINGS).find((setting) => setting.replace(/-/g, '') === typed);
  if (found) return found as SettingName;
  throw new UsageError(`unknown setting "${name}"; the settings are: ${Object.keys(SETTINGS).join(', ')}`);
}

/** A stored value as shown: the key masked (read from the credential store when it is there). */
async function shown(name: SettingName, profileName: string, profile: Profile | undefined): Promise<string | undefined> {
  if (name === 'api-key' && profile?.apiKeyStorage === 'keychain' && typeof profile.apiKey !== 'string') {
    try {
      return `${maskKey(await loadKey(profileName))} (in ${storeName()})`;
    } catch (error) {
      return `(in ${storeName()}, which cannot be read now: ${(error as Error).message})`;
    }
  }
  const value = profile?.[SETTINGS[name].field];
  if (typeof value !== 'string') return undefined;
  return printable(name === 'api-key' ? maskKey(value) : value); // the file may be edited by hand: shown as fire shows data
}

const where = (profile: string, file: string) => `profile "${profile}" (${file})`;

/**
 * What a config command works on: the file, what it holds (a corrupt file stops here, before any prompt), the profile in effect (--profile,
 * TRIGGER_PROFILE, the active one, or default), and how to change them under the lock (updateConfig; a bad TRIGGER_LOCK_WAIT stops here,
 * before anything is stored). With `known`, a profile that was named (not the default) must be in the file.
 */
function target(options: ProfileOption, env: NodeJS.ProcessEnv, known = false) {
  const file = configPath(env);
  const config = readConfig(file);
  const selected = selectedProfile(options, env, config);
  const profile = getProfile(config, selected.name);
  if (known && selected.explicit && !profile) throw unknownProfile(selected.name, file, config);
  const lock = { waitMs: lockWaitMs(env) };
  const save = (update: (data: ConfigData) => ConfigData) => updateConfig(file, update, lock);
  const saveProfile = (update: (profile: Profile) => Profile) =>
    save((data) => ({ ...data, profiles: { ...data.profiles, [selected.name]: update({ ...getProfile(data, selected.name) }) } }));
  return { file, config, save, saveProfile, ...selected, profile };
}

/** A profile without a setting and what is kept with it. */
const without = (profile: Profile, name: SettingName): Profile =>
  Object.fromEntries(Object.entries(profile).filter(([field]) => !(SETTINGS[name].kept as readonly string[]).includes(field)));

export async function setKey(keyArgument: string | undefined, options: ProfileOption & { insecureStorage?: boolean }, ctx: Context) {
  const { io, env } = ctx;
  const { file, config, name, saveProfile } = target(options, env);
  const raw = keyArgument ?? (await readSecret('API key: ', ctx.stdin ?? process.stdin, io.terminal.stream));
  const key = normalizeApiKey(raw, keyArgument === undefined ? 'standard input' : 'the argument');
  io.addSecret(key);

  let inFile: string | undefined; // Why the key goes to the file (undefined: it is in the credential store), a line saying where.
  if (options.insecureStorage) inFile = 'the key is in the config file (mode 0600), as --insecure-storage asked';
  else if (env.CI) inFile = 'CI is set, so the key is in the config file (mode 0600), not a system keychain';
  else {
    const failure = await storeKey(name, key);
    if (failure !== undefined) inFile = `${storeTrouble(failure)}, so the key is in the config file (mode 0600)`;
  }
  const wasInStore = getProfile(config, name)?.apiKeyStorage === 'keychain';
  const stored: Profile = inFile === undefined ? { apiKeyStorage: 'keychain' } : { apiKey: key };
  await saveProfile((profile) => ({ ...without(profile, 'api-key'), ...stored }));
  const saved = `${io.outColors.success('✔')} API key ${maskKey(key)} saved`;
  if (inFile === undefined) io.stdout(`${saved} in ${storeName()} for profile "${name}"`);
  else {
    if (wasInStore) await deleteKey(name); // the file holds it now; leave no second copy behind
    io.stdout(`${saved} to ${where(name, file)}`);
    io.stderr(io.errColors.warn(`note: ${inFile}`));
  }
  if (env.TRIGGER_API_KEY) precedenceNote(io, 'TRIGGER_API_KEY', ' over the stored key');
}

/** A setting just stored that the environment overrides. */
const precedenceNote = (io: Output, variable: string, over: string) =>
  io.stderr(io.errColors.warn(`note: ${variable} is set in this environment and takes precedence${over}`));

export async function setBaseUrl(url: string, options: ProfileOption & { allowHttp?: boolean }, { io, env }: Context) {
  const { file, name, saveProfile } = target(options, env);
  const parsed = parseBaseUrl(url, { allowHttp: options.allowHttp === true });
  const consent = parsed.secure || parsed.loopback ? {} : { allowHttp: true };
  await saveProfile((profile) => ({ ...without(profile, 'base-url'), baseUrl: parsed.href, ...consent }));
  io.stdout(`${io.outColors.success('✔')} base URL ${parsed.href} saved to ${where(name, file)}`);
  const versioned = versionedBaseUrlWarning(parsed);
  if (versioned) io.stderr(io.errColors.warn(versioned));
  if (env.TRIGGER_BASE_URL) precedenceNote(io, 'TRIGGER_BASE_URL', ' over the stored URL');
}

export async function get(nameArgument: string | undefined, options: ProfileOption & { json?: boolean }, { io, env }: Context) {
  const { file, name: profileName, profile } = target(options, env, true);
  const names = nameArgument === undefined ? (Object.keys(SETTINGS) as SettingName[]) : [settingName(nameArgument)];
  const values = new Map<SettingName, string | undefined>();
  for (const name of names) values.set(name, await shown(name, profileName, profile));
  const overridden = names.filter((name) => env[SETTINGS[name].env]);
  if (nameArgument !== undefined && values.get(names[0]!) === undefined && !overridden.length) {
    const hint = `run: trigger config ${SETTINGS[names[0]!].set}${profileName === 'default' ? '' : ` --profile ${profileName}`}`;
    throw new ConfigError(`${names[0]} is not set in ${where(profileName, file)}`, { hint });
  }
  if (options.json) {
    // One shape for one setting or all, with the camelCase names `status --json` uses.
    const settings = Object.fromEntries(names.map((name) => [SETTINGS[name].field, values.get(name) ?? null]));
    const overriddenBy = Object.fromEntries(overridden.map((name) => [SETTINGS[name].field, SETTINGS[name].env]));
    io.json(JSON.stringify({ profile: profileName, ...settings, overriddenBy }));
  } else if (nameArgument !== undefined) {
    io.stdout(values.get(names[0]!) ?? io.outColors.dim('(not set)'));
  } else {
    for (const name of names) io.stdout(`${name.padEnd(9)} ${values.get(name) ?? io.outColors.dim('(not set)')}`);
  }
  for (const name of overridden) {
    const note = `note: ${SETTINGS[name].env} is set in this environment and overrides the stored ${name} (trigger status shows what is in effect)`;
    io.stderr(io.errColors.warn(note));
  }
}

export async function list(options: { json?: boolean; names?: boolean }, { io, env }: Context): Promise<void> {
  const file = configPath(env);
  const config = readConfig(file);
  const profiles = config.profiles ?? {};
  if (options.names) {
    for (const name of Object.keys(profiles)) io.stdout(printable(name));
    return;
  }
  const active = selectedProfile({}, env, config);
  const rows = [];
  for (const [name, profile] of Object.entries(profiles)) {
    const apiKey = (await shown('api-key', name, profile)) ?? null;
    const baseUrl = (await shown('base-url', name, profile)) ?? null;
    rows.push({ profile: name, active: name === active.name, apiKey, baseUrl });
  }
  if (options.json) return io.json(JSON.stringify({ file, active: active.name, profiles: rows }));
  if (rows.length === 0) return io.stderr(`no profiles in ${file}; start with: trigger config set-key`);
  const c = io.outColors;
  for (const row of rows) {
    const why = row.active ? c.dim(active.source === 'env' ? ' (active: TRIGGER_PROFILE)' : ' (active)') : '';
    io.stdout(`${row.active ? c.success('* ') : '  '}${c.bold(shownId(row.profile))}${why}`);
    io.stdout(`    api-key   ${row.apiKey ?? c.dim('(not set)')}`);
    io.stdout(`    base-url  ${row.baseUrl ?? c.dim('(not set)')}`);
  }
}

/** Removes a profile's key from the credential store, or says why it cannot (`kept`: what stays as it was). */
async function forgetStoredKey(profile: string, kept: string): Promise<void> {
  const failure = await deleteKey(profile);
  const message = `cannot remove the key of profile "${profile}" from ${storeName()}: ${failure}${kept}`;
  if (failure) throw new ConfigError(message, { hint: 'unlock it and try again' });
}

export async function unset(nameArgument: string, options: ProfileOption, { io, env }: Context): Promise<void> {
  const name = settingName(nameArgument);
  const { file, name: profileName, profile, saveProfile } = target(options, env);
  const inStore = name === 'api-key' && profile?.apiKeyStorage === 'keychain';
  if (profile?.[SETTINGS[name].field] === undefined && !inStore) return io.stderr(`${name} was not set in ${where(profileName, file)}`);
  if (inStore) await forgetStoredKey(profileName, '');
  await saveProfile((current) => without(current, name));
  io.stdout(`${io.outColors.success('✔')} ${name} removed from ${where(profileName, file)}${inStore ? ` and ${storeName()}` : ''}`);
}

export async function use(nameArgument: string, { io, env }: Context): Promise<void> {
  const { name, file, save } = target({ profile: checkProfileName(nameArgument) }, env, true);
  await save((data) => {
    if (!getProfile(data, name)) throw unknownProfile(name, file, data); // deleted meanwhile
    return { ...data, active: name };
  });
  io.stdout(`${io.outColors.success('✔')} profile "${name}" is now the active one`);
  if (env.TRIGGER_PROFILE && env.TRIGGER_PROFILE !== name) precedenceNote(io, `TRIGGER_PROFILE=${env.TRIGGER_PROFILE}`, '');
}

export async function remove(nameArgument: string, { io, env }: Context): Promise<void> {
  const { name, profile, save } = target({ profile: checkProfileName(nameArgument) }, env, true);
  const inStore = profile?.apiKeyStorage === 'keychain';
  if (inStore) await forgetStoredKey(name, '; the profile was kept');
  await save((data) => {
    const { [name]: _gone, ...profiles } = data.profiles ?? {};
    const next: ConfigData = { ...data, profiles };
    if (next.active === name) delete next.active;
    return next;
  });
  io.stdout(`${io.outColors.success('✔')} profile "${name}" deleted${inStore ? `, with its key in ${storeName()}` : ''}`);
}

export function path(options: { json?: boolean }, { io, env }: Context): void {
  const file = configPath(env);
  if (options.json) io.json(JSON.stringify({ path: file, exists: fs.existsSync(file) }));
  else io.stdout(file);
}

const EXAMPLES = `
Examples:
  $ trigger config set-key                        # hidden prompt
  $ printenv SERVICE_KEY | trigger config set-key  # from a pipe
  $ trigger config set-base-url https://api.example.com --profile staging
  $ trigger config get base-url
  $ trigger config use staging                     # make a profile the active one
  $ trigger config list

The key goes to the system keychain where one answers (and CI is not set); else, or with
--insecure-storage, to the config file (mode 0600). \`trigger status\` shows what is in effect.`;

export function command(program: Command, ctx: Context): Command {
  const config = program.command('config').description('store the API key and base URL, per profile').addHelpText('after', EXAMPLES);
  const profileOption = () => new Option('--profile <name>', 'profile to use (default: the active one, or TRIGGER_PROFILE)');
  config
    .command('set-key')
    .description('store the API key (argument, piped standard input, or a hidden prompt)')
    .argument('[key]', 'the key; omit it to keep it out of your shell history')
    .addOption(profileOption())
    .option('--insecure-storage', 'store the key in the config file (mode 0600) even where a system keychain answers')
    .action((key: string | undefined, options: ProfileOption) => setKey(key, options, ctx));
  config
    .command('set-base-url')
    .description('store the service base URL')
    .argument('<url>', 'e.g. https://api.example.com (a path prefix is kept)')
    .addOption(profileOption())
    .option('--allow-http', 'allow plain http to a host other than loopback')
    .action((url: string, options: ProfileOption) => setBaseUrl(url, options, ctx));
  config
    .command('get')
    .description('print a stored setting (the key is masked)')
    .argument('[name]', 'api-key or base-url; all when omitted')
    .addOption(profileOption())
    .option('--json', 'print JSON')
    .action((name: string | undefined, options: ProfileOption) => get(name, options, ctx));
  config
    .command('list')
    .description('print every profile (keys masked)')
    .option('--json', 'print JSON')
    .option('--names', 'print only the profile names, one a line (for scripts and shell completion)')
    .action((options: { names?: boolean }) => list(options, ctx));
  config
    .command('unset')
    .description('remove a stored setting')
    .argument('<name>', 'api-key or base-url')
    .addOption(profileOption())
    .action((name: string, options: ProfileOption) => unset(name, options, ctx));
  config
    .command('use')
    .description('make a profile the active one (--profile and TRIGGER_PROFILE still override it)')
    .argument('<profile>', 'a profile in the config file')
    .action((name: string) => use(name, ctx));
  config
    .command('delete')
    .description('delete a profile, and its key from the system keychain')
    .argument('<profile>', 'a profile in the config file')
    .action((name: string) => remove(name, ctx));
  config
    .command('path')
    .description('print the config file path')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) => path(options, ctx));
  return config;
}

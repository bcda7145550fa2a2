/**
 * trigger config set-key | set-base-url | get | list | unset | path
 */
import { ConfigError, UsageError } from '../errors.js';
import type { Output } from '../output/io.js';
import { configPath } from '../settings/paths.js';
import { selectedProfile } from '../settings/resolve.js';
import { getProfile, readConfig, updateProfile, type Profile } from '../settings/store.js';
import { maskKey, normalizeApiKey, parseBaseUrl } from '../settings/validate.js';
import { readSecret } from './prompt.js';

export interface ProfileOption {
  profile?: string;
}

/** Setting names as the user types them, and where they live in a profile. */
const NAMES = { 'api-key': 'apiKey', 'base-url': 'baseUrl' } as const;
type Name = keyof typeof NAMES;

function settingName(name: string): Name {
  const normalized = name.toLowerCase().replace(/_/g, '-').replace(/^apikey$/, 'api-key').replace(/^baseurl$/, 'base-url');
  if (normalized in NAMES) return normalized as Name;
  throw new UsageError(`unknown setting "${name}"; the settings are: ${Object.keys(NAMES).join(', ')}`);
}

function shown(name: Name, profile: Profile | undefined): string | undefined {
  const value = profile?.[NAMES[name]];
  if (typeof value !== 'string') return undefined;
  return name === 'api-key' ? maskKey(value) : value;
}

function where(profile: string, file: string): string {
  return `profile "${profile}" (${file})`;
}

export async function setKey(keyArgument: string | undefined, options: ProfileOption, io: Output): Promise<void> {
  const { name } = selectedProfile(options);
  const file = configPath();
  readConfig(file); // a corrupt file stops here, before a prompt
  const raw = keyArgument ?? (await readSecret('API key: '));
  const key = normalizeApiKey(raw, keyArgument === undefined ? 'standard input' : 'the argument');
  io.addSecret(key);
  await updateProfile(file, name, (profile) => ({ ...profile, apiKey: key }));
  io.stdout(`${io.out.success('✔')} API key ${maskKey(key)} saved to ${where(name, file)}`);
  if (process.env.TRIGGER_API_KEY) {
    io.stderr(io.err.warn('note: TRIGGER_API_KEY is set in this environment and takes precedence over the stored key'));
  }
}

export async function setBaseUrl(url: string, options: ProfileOption & { allowHttp?: boolean }, io: Output): Promise<void> {
  const { name } = selectedProfile(options);
  const file = configPath();
  const parsed = parseBaseUrl(url, { allowHttp: options.allowHttp === true });
  await updateProfile(file, name, (profile) => {
    const next: Profile = { ...profile, baseUrl: parsed.href };
    if (!parsed.secure && !parsed.loopback) next.allowHttp = true;
    else delete next.allowHttp;
    return next;
  });
  io.stdout(`${io.out.success('✔')} base URL ${parsed.href} saved to ${where(name, file)}`);
  if (process.env.TRIGGER_BASE_URL) {
    io.stderr(io.err.warn('note: TRIGGER_BASE_URL is set in this environment and takes precedence over the stored URL'));
  }
}

export function get(nameArgument: string | undefined, options: ProfileOption & { json?: boolean }, io: Output): void {
  const { name: profileName, explicit } = selectedProfile(options);
  const file = configPath();
  const profile = getProfile(readConfig(file), profileName);
  if (explicit && !profile) throw new ConfigError(`profile "${profileName}" is not in ${file}`);
  if (nameArgument !== undefined) {
    const name = settingName(nameArgument);
    const value = shown(name, profile);
    if (value === undefined) {
      throw new ConfigError(`${name} is not set in ${where(profileName, file)}`, {
        hint: `run: trigger config set-${name}${explicit ? ` --profile ${profileName}` : ''}`,
      });
    }
    if (options.json) io.json(JSON.stringify({ [name]: value }));
    else io.stdout(value);
    return;
  }
  const entries = (Object.keys(NAMES) as Name[]).map((name) => [name, shown(name, profile) ?? null] as const);
  if (options.json) {
    io.json(JSON.stringify({ profile: profileName, ...Object.fromEntries(entries) }));
    return;
  }
  for (const [name, value] of entries) io.stdout(`${name.padEnd(9)} ${value ?? io.out.dim('(not set)')}`);
}

export function list(options: { json?: boolean }, io: Output): void {
  const file = configPath();
  const profiles = readConfig(file).profiles ?? {};
  const active = selectedProfile({}).name;
  const rows = Object.entries(profiles).map(([name, profile]) => ({
    profile: name,
    active: name === active,
    'api-key': shown('api-key', profile) ?? null,
    'base-url': shown('base-url', profile) ?? null,
  }));
  if (options.json) {
    io.json(JSON.stringify({ file, profiles: rows }));
    return;
  }
  if (rows.length === 0) {
    io.stderr(`no profiles in ${file}; start with: trigger config set-key`);
    return;
  }
  for (const row of rows) {
    io.stdout(`${io.out.bold(row.profile)}${row.active ? io.out.dim(' (active)') : ''}`);
    io.stdout(`  api-key   ${row['api-key'] ?? io.out.dim('(not set)')}`);
    io.stdout(`  base-url  ${row['base-url'] ?? io.out.dim('(not set)')}`);
  }
}

export async function unset(nameArgument: string, options: ProfileOption, io: Output): Promise<void> {
  const name = settingName(nameArgument);
  const { name: profileName } = selectedProfile(options);
  const file = configPath();
  const profile = getProfile(readConfig(file), profileName);
  if (profile?.[NAMES[name]] === undefined) {
    io.stderr(`${name} was not set in ${where(profileName, file)}`);
    return;
  }
  await updateProfile(file, profileName, (current) => {
    const next: Profile = { ...current };
    delete next[NAMES[name]];
    if (name === 'base-url') delete next.allowHttp;
    return Object.keys(next).length === 0 ? undefined : next;
  });
  io.stdout(`${io.out.success('✔')} ${name} removed from ${where(profileName, file)}`);
}

export function path(io: Output): void {
  io.stdout(configPath());
}

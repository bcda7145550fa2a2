/**
 * trigger status: what a command would use now, and why (as `gh auth status` answers it). Gathers the
 * settings without stopping at the first problem, then prints them; sends nothing.
 */
import fs from 'node:fs';
import { proxyFor } from '../client/undici.js';
import { ConfigError, isTriggerError, type TriggerError } from '../errors.js';
import type { Output } from '../output/io.js';
import { maskProxyCredentials } from '../output/redact.js';
import { printable } from '../output/render.js';
import { loadKey, storeName } from '../settings/keychain.js';
import { findSettings, noBaseUrlError, noKeyError, unknownProfile, type Source, type SettingsFlags } from '../settings/resolve.js';
import { checkCleartext, maskKey, normalizeApiKey, parseBaseUrl } from '../settings/validate.js';
import { VERSION } from '../version.js';
import { settingsFlags, type CatalogOptions } from './shared.js';
import { findCatalog, type CatalogSource } from '../catalog/find.js';

export interface StatusOptions extends SettingsFlags, CatalogOptions {
  json?: boolean;
}

const SOURCE_WORDS: Record<Source, string> = {
  flag: 'flag',
  env: 'environment',
  profile: 'profile (config file)',
  keychain: 'credential store',
};

const CATALOG_WORDS: Record<CatalogSource, string> = { flag: '--catalog', env: 'TRIGGER_CATALOG', found: 'found from this folder' };

export interface Status {
  ok: boolean;
  profile: { name: string; source: 'flag' | 'env' | 'config' | 'default' };
  apiKey: { masked: string; source: Source; from: string } | null;
  baseUrl: { url: string; source: Source; from: string } | null;
  configFile: { path: string; exists: boolean; mode: string | null };
  proxy: string | null;
  /** The trigger catalog in effect, and how many triggers it holds (null when it cannot be used). */
  catalog: { path: string; source: CatalogSource; triggers: number | null } | null;
  versions: { trigger: string; node: string };
  problems: Array<{ message: string; hint: string | undefined }>;
}

/** The status, gathered; problems are collected, not thrown. */
export async function collectStatus(
  flags: SettingsFlags,
  env: NodeJS.ProcessEnv = process.env,
  where: { cwd?: string; catalog?: string | boolean | undefined } = {},
): Promise<Status> {
  const found = findSettings({ flags, env });
  const problems: TriggerError[] = [];
  const attempt = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (error) {
      if (!isTriggerError(error)) throw error;
      problems.push(error);
      return undefined;
    }
  };
  const { profile, configFile } = found;
  if (profile.explicit && !found.stored) problems.push(unknownProfile(profile.name, configFile, found.config));

  let apiKey: Status['apiKey'] = null;
  if (found.key) {
    const [value, source, from] = found.key;
    let key: string | undefined;
    if (source === 'keychain') {
      try {
        key = await loadKey(profile.name);
      } catch (error) {
        if (!isTriggerError(error)) throw error;
        problems.push(error);
      }
    } else {
      key = value;
    }
    const checked = key === undefined ? undefined : attempt(() => normalizeApiKey(key, from));
    if (checked !== undefined)
      apiKey = { masked: maskKey(checked), source, from: source === 'keychain' ? `profile "${profile.name}" in ${storeName()}` : from };
  } else {
    problems.push(noKeyError(profile));
  }

  let baseUrl: Status['baseUrl'] = null;
  let proxy: string | undefined;
  if (found.url) {
    const [value, source, from] = found.url;
    const parsed = attempt(() => parseBaseUrl(value, { allowHttp: found.allowHttp, source: from }));
    if (parsed) {
      proxy = proxyFor(parsed.origin, env);
      attempt(() => checkCleartext(parsed, proxy, found.allowHttp));
      baseUrl = { url: parsed.href, source, from };
    }
  } else {
    problems.push(noBaseUrlError(profile));
  }

  let catalog: Status['catalog'] = null;
  const foundCatalog = findCatalog({ cwd: where.cwd ?? process.cwd(), env, flag: where.catalog });
  if (foundCatalog) {
    const { loadCatalog } = await import('../catalog/load.js');
    const loaded = attempt(() => loadCatalog(foundCatalog, { env }));
    catalog = { path: foundCatalog.path, source: foundCatalog.source, triggers: loaded ? Object.keys(loaded.data.triggers).length : null };
  }

  let mode: string | null = null;
  try {
    mode = (fs.statSync(configFile).mode & 0o777).toString(8).padStart(4, '0');
  } catch {
    mode = null;
  }
  return {
    ok: problems.length === 0,
    profile: { name: profile.name, source: profile.source },
    apiKey,
    baseUrl,
    configFile: { path: configFile, exists: mode !== null, mode },
    proxy: proxy === undefined ? null : maskProxyCredentials(proxy), // never its password, nor a lone token
    catalog,
    versions: { trigger: VERSION, node: process.version },
    problems: problems.map((p) => ({ message: p.message, hint: p.hint })),
  };
}

export function statusLines(s: Status, io: Output): string[] {
  const c = io.outColors;
  const profileWhy = { flag: '--profile', env: 'TRIGGER_PROFILE', config: 'chosen with trigger config use', default: 'the default' }[
    s.profile.source
  ];
  const row = (label: string, text: string) => `${c.dim(label.padEnd(10))}${text}`;
  return [
    row('profile', `${c.bold(s.profile.name)} ${c.dim(`(${profileWhy})`)}`),
    row(
      'api key',
      s.apiKey ? `${s.apiKey.masked} ${c.dim(`from ${SOURCE_WORDS[s.apiKey.source]}: ${s.apiKey.from}`)}` : c.error('not set'),
    ),
    row(
      'base URL',
      s.baseUrl ? `${s.baseUrl.url} ${c.dim(`from ${SOURCE_WORDS[s.baseUrl.source]}: ${s.baseUrl.from}`)}` : c.error('not set'),
    ),
    row(
      'config',
      s.configFile.exists
        ? `${s.configFile.path} ${c.dim(`(mode ${s.configFile.mode})`)}`
        : `${s.configFile.path} ${c.dim('(not created yet)')}`,
    ),
    row('proxy', s.proxy ?? c.dim('none')),
    row(
      'catalog',
      s.catalog
        ? `${printable(s.catalog.path)} ${c.dim(`(${s.catalog.triggers === null ? 'cannot be used' : `${s.catalog.triggers} trigger${s.catalog.triggers === 1 ? '' : 's'}`}; ${CATALOG_WORDS[s.catalog.source]})`)}`
        : c.dim('none (no triggers.json here or above)'),
    ),
    row('versions', `trigger ${s.versions.trigger}, node ${s.versions.node}`),
  ];
}

export async function status(
  options: StatusOptions,
  io: Output,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<void> {
  const result = await collectStatus(settingsFlags(options), env, { cwd, catalog: options.catalog });
  if (options.json) io.json(JSON.stringify(result));
  else for (const line of statusLines(result, io)) io.stdout(line);
  if (result.problems.length === 0) return;
  for (const problem of result.problems)
    io.stderr(
      `${io.errColors.error('error:')} ${printable(problem.message)}${problem.hint ? io.errColors.dim(' — ') + io.errColors.hint(printable(problem.hint)) : ''}`,
    );
  throw new ConfigError(result.problems[0]!.message, { reported: true });
}

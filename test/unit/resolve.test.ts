import { describe, expect, it } from 'vitest';
import { ConfigError, UsageError } from '../../src/errors.js';
import { resolveSettings, type SettingsFlags } from '../../src/settings/resolve.js';
import type { ConfigData } from '../../src/settings/store.js';

const config: ConfigData = {
  profiles: {
    default: { apiKey: 'key_profile_default', baseUrl: 'https://default.example.com' },
    staging: { apiKey: 'key_profile_staging', baseUrl: 'https://staging.example.com/api/' },
    lan: { apiKey: 'key_lan_0000001', baseUrl: 'http://192.0.2.10:8080', allowHttp: true },
  },
};
const env = (vars: Record<string, string> = {}) => ({ TRIGGER_CONFIG_DIR: '/nonexistent/trigger', ...vars });

describe('resolveSettings precedence: flag > env > profile', () => {
  it.each([
    ['profile only', {}, {}, 'key_profile_default', 'profile', 'https://default.example.com'],
    [
      'env over profile',
      {},
      { TRIGGER_API_KEY: 'key_env_0000001', TRIGGER_BASE_URL: 'https://env.example.com' },
      'key_env_0000001',
      'env',
      'https://env.example.com',
    ],
    [
      'flag over env',
      { apiKey: 'key_flag_000001', baseUrl: 'https://flag.example.com' },
      { TRIGGER_API_KEY: 'key_env_0000001', TRIGGER_BASE_URL: 'https://env.example.com' },
      'key_flag_000001',
      'flag',
      'https://flag.example.com',
    ],
    [
      'TRIGGER_PROFILE selects a profile',
      {},
      { TRIGGER_PROFILE: 'staging' },
      'key_profile_staging',
      'profile',
      'https://staging.example.com/api',
    ],
    [
      '--profile over TRIGGER_PROFILE',
      { profile: 'default' },
      { TRIGGER_PROFILE: 'staging' },
      'key_profile_default',
      'profile',
      'https://default.example.com',
    ],
    ['env key with profile URL', {}, { TRIGGER_API_KEY: '  key_env_0000001  ' }, 'key_env_0000001', 'env', 'https://default.example.com'],
  ])('%s', (_name, flags, vars, key, keySource, href) => {
    const settings = resolveSettings({ flags, env: env(vars), config });
    expect(settings.apiKey).toBe(key);
    expect(settings.apiKeySource).toBe(keySource);
    expect(settings.baseUrl.href).toBe(href);
  });

  it("a flag or variable given empty (an unset variable in a script) is refused, not taken for the profile's", () => {
    const empty = (flags: SettingsFlags, vars: Record<string, string>) => () => resolveSettings({ flags, env: env(vars), config });
    expect(empty({ apiKey: '' }, {})).toThrow('--api-key is empty: give the API key, or leave --api-key out; nothing was sent');
    expect(empty({ baseUrl: '' }, {})).toThrow('--base-url is empty: give the base URL, or leave --base-url out');
    expect(empty({}, { TRIGGER_API_KEY: '' })).toThrow('TRIGGER_API_KEY is empty: give the API key, or unset TRIGGER_API_KEY');
    expect(empty({}, { TRIGGER_BASE_URL: '' })).toThrow('TRIGGER_BASE_URL is empty: give the base URL, or unset TRIGGER_BASE_URL');
    // A variable that a flag overrides is not read: empty, it is no mistake.
    expect(empty({ apiKey: 'key_flag_00000001' }, { TRIGGER_API_KEY: '' })().apiKey).toBe('key_flag_00000001');
  });

  it('says how to set a missing key or base URL', () => {
    expect(() => resolveSettings({ env: env(), config: {} })).toThrow(ConfigError);
    try {
      resolveSettings({ env: env(), config: {} });
    } catch (error) {
      expect((error as ConfigError).hint).toContain('trigger config set-key');
    }
    try {
      resolveSettings({ env: env({ TRIGGER_API_KEY: 'k_1234_0000001' }), config: {} });
    } catch (error) {
      expect((error as Error).message).toBe('no base URL is set');
      expect((error as ConfigError).hint).toContain('trigger config set-base-url');
    }
  });

  it('does not need a key for a dry run', () => {
    const settings = resolveSettings({ env: env({ TRIGGER_BASE_URL: 'https://x.example.com' }), config: {}, requireKey: false });
    expect(settings.apiKey).toBeUndefined();
  });

  it('refuses an unknown profile that was asked for by name', () => {
    expect(() => resolveSettings({ flags: { profile: 'prod' }, env: env(), config })).toThrow(/profile "prod" is not in/);
  });

  it('keeps the plain-http consent stored with a profile, and only for that URL', () => {
    expect(resolveSettings({ flags: { profile: 'lan' }, env: env(), config }).baseUrl.origin).toBe('http://192.0.2.10:8080');
    expect(() => resolveSettings({ flags: { profile: 'lan' }, env: env({ TRIGGER_BASE_URL: 'http://192.0.2.99' }), config })).toThrow(
      /plain http/,
    );
  });

  it('refuses a key with inner white space from any source', () => {
    expect(() => resolveSettings({ flags: { apiKey: 'two words' }, env: env(), config })).toThrow(UsageError);
  });
});

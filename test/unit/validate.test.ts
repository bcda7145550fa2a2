import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { isLoopbackHost, maskKey, normalizeApiKey, parseBaseUrl } from '../../src/settings/validate.js';

describe('parseBaseUrl', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com', ''],
    ['https://api.example.com/', 'https://api.example.com', ''],
    ['https://host/api', 'https://host', '/api'],
    ['https://host/api/', 'https://host', '/api'],
    ['https://HOST:8443/a/b//', 'https://host:8443', '/a/b'],
    ['http://localhost:8787', 'http://localhost:8787', ''],
    ['http://127.0.0.1:8787/', 'http://127.0.0.1:8787', ''],
    ['http://127.5.6.7', 'http://127.5.6.7', ''],
    ['http://[::1]:9000/x', 'http://[::1]:9000', '/x'],
  ])('%s', (raw, origin, prefix) => {
    const url = parseBaseUrl(raw);
    expect(url.origin).toBe(origin);
    expect(url.prefix).toBe(prefix);
  });

  it.each(['https://h/a%20b', `https://${'x'.repeat(63)}.com`])('accepts %s', (raw) => {
    expect(parseBaseUrl(raw).href).toBe(raw);
  });

  it.each([
    ['api.example.com', /not an absolute URL/],
    ['ftp://host', /must start with https/],
    ['https://user:pw@host', /credentials/],
    ['https://host/?a=1', /query/],
    ['https://host/?', /query/],
    ['https://host/#x', /fragment/],
    ['http://example.com', /plain http.*--allow-http/],
    ['http://10.0.0.5', /plain http/],
    ['http://localhost.evil.com', /plain http/],
    // audit25 #11: a URL no service can be at.
    ['https://api.example.com:0', /must not use port 0/],
    ['https://api.example.com/%zz', /"%" in its path that is not followed by two hex digits/],
    [`https://${'x'.repeat(64)}.com`, /host name longer than DNS allows/],
    [`https://${'abcdefghi.'.repeat(26)}com`, /host name longer than DNS allows/],
  ])('refuses %s', (raw, message) => {
    expect(() => parseBaseUrl(raw)).toThrow(UsageError);
    expect(() => parseBaseUrl(raw)).toThrow(message);
  });

  it('accepts plain http elsewhere only with allowHttp', () => {
    expect(parseBaseUrl('http://example.com', { allowHttp: true }).origin).toBe('http://example.com');
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['[::1]', true],
    ['::1', true],
    ['128.0.0.1', false],
    ['0.0.0.0', false],
    ['example.com', false],
    ['localhost.example.com', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('normalizeApiKey', () => {
  it('trims surrounding white space', () => {
    expect(normalizeApiKey('  key_123_000001\n', 'stdin')).toBe('key_123_000001');
  });

  it.each(['', '   ', 'key 123', 'key\t123', 'key\u0000x', 'key\u007fx', 'a\nb'])('refuses %j', (raw) => {
    expect(() => normalizeApiKey(raw, 'stdin')).toThrow(UsageError);
  });

  // audit25 #11: what a paste wraps a key in is not stored with it (the mask ••••1234 hid a `TRIGGER_API_KEY=` prefix).
  it.each([
    'TRIGGER_API_KEY=sk_live_abc123456',
    'export TRIGGER_API_KEY="sk_live_abc123456"',
    '"sk_live_abc123456"',
    "'sk_live_abc123456'",
    'Bearer sk_live_abc123456',
  ])('takes %j as the key inside it', (raw) => {
    expect(normalizeApiKey(`${raw}\n`, 'stdin')).toBe('sk_live_abc123456');
  });

  it('keeps a key that only looks wrapped on one side', () => {
    expect(normalizeApiKey('"sk_live_abc123456', 'stdin')).toBe('"sk_live_abc123456');
    expect(normalizeApiKey('sk_live_abc=123456', 'stdin')).toBe('sk_live_abc=123456');
  });

  it('does not repeat the key in the error', () => {
    const secret = 'sk_live_secret with space';
    try {
      normalizeApiKey(secret, 'stdin');
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message.includes('sk_live_secret')).toBe(false);
    }
  });
});

describe('maskKey', () => {
  it('shows only the last four characters', () => {
    expect(maskKey('sk_live_1234abcd')).toBe('••••abcd');
    expect(maskKey('short')).toBe('••••');
  });
});

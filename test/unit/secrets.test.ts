/**
 * The key in any form, never printed; data never taken for terminal or CI commands; the cleartext
 * rule where the key really travels.
 */
import { describe, expect, it } from 'vitest';
import { proxyFor } from '../../src/client/undici.js';
import { UsageError } from '../../src/errors.js';
import { Redactor } from '../../src/output/redact.js';
import { githubAnnotation, printable } from '../../src/output/render.js';
import { checkCleartext, normalizeApiKey, parseBaseUrl } from '../../src/settings/validate.js';

const KEY = 'sk_live_SECRETKEY01234567890abcdWXYZ';

/** Every run of 10 characters of the key, as the issue's grep looks for them. */
function pieces(key: string, length = 10): string[] {
  return Array.from({ length: key.length - length + 1 }, (_, i) => key.slice(i, i + length));
}
function expectNoPiece(text: string, key = KEY): void {
  const found = pieces(key).filter((p) => text.includes(p));
  if (found.length) throw new Error(`${found.length} pieces of the key were left in the text`);
}

describe('the redactor', () => {
  const redactor = new Redactor();
  redactor.add(KEY);

  it.each([
    ['raw', `invalid API key Bearer ${KEY} for this account`],
    ['cut short by an excerpt', `invalid API key Bearer ${KEY.slice(0, 19)}…`],
    ['its end only', `…${KEY.slice(-12)} was refused`],
    ['percent-encoded', `https://x.example/?key=${encodeURIComponent(`${KEY}"`)}`],
    ['twice on one line', `${KEY} and ${KEY}`],
  ])('masks the key %s', (_name, text) => {
    const redacted = redactor.text(text);
    expectNoPiece(redacted);
    expect(redacted).toContain('••••');
  });

  it('shows the whole key as its last four characters, and leaves other text alone', () => {
    expect(redactor.text(`key ${KEY}.`)).toBe('key ••••WXYZ.');
    expect(redactor.text('sk_live_ is how live keys start')).toBe('sk_live_ is how live keys start'); // 8 characters: not a secret
  });

  it('knows a key with quotes and backslashes in its JSON-escaped form', () => {
    const odd = new Redactor();
    const key = 'ab"cd\\ef_0123456789';
    odd.add(key);
    const line = JSON.stringify({ error: `bad key ${key}` });
    expect(line).toContain('ab\\"cd\\\\ef');
    const out = odd.json(line);
    expect(() => JSON.parse(out) as unknown).not.toThrow();
    expect(JSON.stringify(JSON.parse(out))).not.toContain('0123456789');
    expect(odd.text(line)).not.toContain('ef_0123456789');
  });

  it.each(['true', 'null', 'user', '1', 'ok'])('a short key (%s) leaves --json valid and words alone', (key) => {
    const short = new Redactor();
    short.add(key);
    const line = `{"ok":true,"status":null,"userId":"user42","value":1,"error":{"message":"bad key ${key}"}}`;
    const out = short.json(line);
    const parsed = JSON.parse(out) as { ok: boolean; userId: string; error: { message: string } };
    expect(parsed.ok).toBe(true);
    expect(parsed.userId).toBe('user42');
    expect(parsed.error.message).toBe('bad key ••••');
  });

  it('JSON with no trace of the key is returned as it is', () => {
    const line = '{"ok":true,"value":12345678901234567890}';
    expect(redactor.json(line)).toBe(line);
  });
});

describe('key syntax', () => {
  it.each([
    ['a curly quote', `${KEY.slice(0, 11)}\u201d`, 'contains a curly quote (U+201D), as a word processor writes it at position 12'],
    ['a zero-width space', `${KEY.slice(0, 5)}\u200b${KEY.slice(5)}`, 'contains an invisible character (U+200B) at position 6'],
    ['a Cyrillic letter', `sk_live_\u0410BC`, 'contains a non-ASCII character (U+0410) at position 9'],
    ['an inner space', 'two words', 'contains a space at position 4'],
    ['a control character', 'abc\u0007def', 'contains a control character (U+0007) at position 4'],
  ])('refuses %s, naming it without showing the key', (_name, key, message) => {
    let error: unknown;
    try {
      normalizeApiKey(key, 'TRIGGER_API_KEY');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    const text = `${(error as UsageError).message} ${(error as UsageError).hint}`;
    expect(text).toContain(message);
    expect(text).not.toContain(key.slice(0, 5));
  });

  it('trims surrounding white space and accepts printable ASCII', () => {
    expect(normalizeApiKey(`  ${KEY}\n`, 'x')).toBe(KEY);
    expect(normalizeApiKey('a!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~', 'x')).toBe('a!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
  });
});

describe('data in human output', () => {
  it.each([
    ['x\n::error title=pwned::owned', 'x\\n::error title=pwned::owned'],
    ['\u001b]0;title\u0007', '\\x1b]0;title\\x07'],
    ['\u001b[31mred', '\\x1b[31mred'],
    ['c1 \u009b31m', 'c1 \\u009b31m'],
    ['tab\tand\rreturn', 'tab\\tand\\rreturn'],
    ['plain émoji 😀', 'plain émoji 😀'],
  ])('printable(%j)', (text, shown) => {
    expect(printable(text)).toBe(shown);
  });

  it('an annotation is one line whatever its message holds', () => {
    const line = githubAnnotation('user x\r\n::error::second 100% \u001b[31m');
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toBe('::error title=trigger::user x%0D%0A::error::second 100%25 \\x1b[31m');
  });
});

describe('the cleartext rule where the key travels', () => {
  const local = parseBaseUrl('http://localhost:8787');

  it.each([
    [{}, undefined],
    [{ HTTP_PROXY: 'http://proxy.corp.example:3128' }, 'http://proxy.corp.example:3128'],
    [{ http_proxy: 'http://a:1', HTTP_PROXY: 'http://b:2' }, 'http://a:1'],
    [{ HTTP_PROXY: 'http://proxy:3128', NO_PROXY: 'localhost' }, undefined],
    [{ HTTP_PROXY: 'http://proxy:3128', NO_PROXY: '*' }, undefined],
    [{ HTTP_PROXY: 'http://proxy:3128', NO_PROXY: 'localhost:9999' }, 'http://proxy:3128'],
    [{ HTTPS_PROXY: 'http://proxy:3128' }, undefined],
  ])('proxyFor(http://localhost:8787, %j) is %s', (env, proxy) => {
    expect(proxyFor(local.origin, env)).toBe(proxy);
  });

  it('https goes through HTTPS_PROXY, else HTTP_PROXY, and NO_PROXY matches subdomains', () => {
    expect(proxyFor('https://api.example.com', { HTTP_PROXY: 'http://p:1' })).toBe('http://p:1');
    expect(proxyFor('https://api.example.com', { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://p:1' })).toBe('http://s:1');
    expect(proxyFor('https://api.example.com', { HTTPS_PROXY: 'http://s:1', NO_PROXY: '.example.com' })).toBeUndefined();
  });

  it('refuses plain http through a proxy that is not on loopback, unless --allow-http', () => {
    expect(() => checkCleartext(local, 'http://proxy.corp.example:3128', false)).toThrow(
      /goes through the proxy proxy\.corp\.example .* clear text/,
    );
    expect(() => checkCleartext(local, 'http://proxy.corp.example:3128', true)).not.toThrow();
    expect(() => checkCleartext(local, 'http://127.0.0.1:3128', false)).not.toThrow();
    expect(() => checkCleartext(local, undefined, false)).not.toThrow();
    expect(() => checkCleartext(parseBaseUrl('https://api.example.com'), 'http://proxy.corp.example:3128', false)).not.toThrow();
  });
});

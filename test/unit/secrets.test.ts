/**
 * The key in any form, never printed; data never taken for terminal or CI commands; the cleartext
 * rule where the key really travels.
 */
import { describe, expect, it } from 'vitest';
import { proxyFor } from '../../src/client/proxy.js';
import { UsageError } from '../../src/errors.js';
import { maskProxyCredentials, Redactor } from '../../src/output/redact.js';
import { githubAnnotation, printable } from '../../src/output/render.js';
import { checkCleartext, normalizeApiKey, parseBaseUrl } from '../../src/settings/validate.js';

const KEY = 'sk_live_SECRETKEY01234567890abcdWXYZ';

/** Every run of 10 characters of the key, as the issue's grep looks for them. */
function pieces(key: string, length = 10): string[] {
  return Array.from({ length: key.length - length + 1 }, (_, i) => key.slice(i, i + length));
}
function expectNoPiece(text: string, key = KEY): void {
  const found = pieces(key.toLowerCase()).filter((p) => text.toLowerCase().includes(p));
  if (found.length) throw new Error(`${found.length} pieces of the key were left in the text`);
}

/** Fails, without printing the key, when `text` still holds it in a form a decoder would find. */
function expectNoForm(text: string, key = KEY): void {
  const unescaped = text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_m, code: string) => String.fromCharCode(parseInt(code, 16)))
    .replace(/\\(.)/g, '$1');
  const decoded = [text, decodeURIComponentLoose(text), unescaped];
  for (const candidate of decoded) {
    if (candidate.toLowerCase().includes(key.toLowerCase())) throw new Error('the key is still in the text');
    for (const skip of [0, 1, 2, 3]) {
      const bytes = Buffer.from(candidate.slice(skip).replace(/[^A-Za-z0-9+/_-]+/g, ''), 'base64').toString('latin1');
      if (bytes.includes(key.slice(4, -4))) throw new Error('the key is still in the text, as base64');
    }
  }
}

function decodeURIComponentLoose(text: string): string {
  return text.replace(/%[0-9A-Fa-f]{2}/g, (m) => String.fromCharCode(parseInt(m.slice(1), 16)));
}

describe('the redactor', () => {
  const redactor = new Redactor();
  redactor.add(KEY);

  const hex = (text: string, lower = false) =>
    [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')[lower ? 'toLowerCase' : 'toUpperCase']()}`).join('');
  const unicode = (text: string, upper = false) =>
    [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`).join('');
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  const base64url = (text: string) => Buffer.from(text).toString('base64url');

  /** Every form the contract lists, each inside other text. */
  const FORMS: Array<[string, string]> = [
    ['raw', `invalid API key Bearer ${KEY} for this account`],
    ['in upper case', `INVALID KEY ${KEY.toUpperCase()}`],
    ['in lower case', `key=${KEY.toLowerCase()}&x=1`],
    ['JSON-escaped with \\u escapes of every character', `{"auth":"Bearer ${unicode(KEY)}"}`],
    ['with \\u escapes in upper-case hex, some characters plain', `${KEY.slice(0, 8)}${unicode(KEY.slice(8, 20), true)}${KEY.slice(20)}`],
    ['with every byte percent-encoded, upper-case hex', `https://x.example/?key=${hex(KEY)}`],
    ['with every byte percent-encoded, lower-case hex', `https://x.example/?key=${hex(KEY, true)}`],
    [
      'percent-encoded, a mix of encoded and plain bytes',
      `k=${KEY.slice(0, 5)}${hex(KEY.slice(5, 9), true)}${KEY.slice(9, 30)}${hex(KEY.slice(30))}`,
    ],
    ['percent-encoded as encodeURIComponent does it', `https://x.example/?key=${encodeURIComponent(`${KEY}"`)}`],
    ['as base64', `token ${base64(KEY)}`],
    ['as base64 inside a longer text, one byte in', `Basic ${base64(`a:${KEY}`)}`],
    ['as base64 inside a longer text, two bytes in', `Basic ${base64(`ab:${KEY}:x`)}`],
    ['as base64 inside a longer text, three bytes in', `Basic ${base64(`abc${KEY}yz`)}`],
    ['as base64url', `jwt.${base64url(`{"k":"${KEY}"}`)}.sig`],
    ['as base64, JSON-escaped', JSON.stringify(`x ${base64(`??>${KEY}`)}`).replace(/\//g, '\\/')],
    ['twice on one line', `${KEY} and ${KEY.toUpperCase()}`],
  ];

  it.each(FORMS)('masks the whole key %s, in any text', (_name, text) => {
    const masked = redactor.text(text);
    expectNoPiece(redactor.server(masked), KEY);
    expectNoForm(masked);
    expect(masked).toContain('••••WXYZ');
  });

  it.each(FORMS)('masks the whole key %s inside a JSON string, and the line stays JSON', (_name, text) => {
    const line = JSON.stringify({ ok: false, error: { message: text } });
    const masked = redactor.json(line);
    const parsed = JSON.parse(masked) as { error: { message: string } };
    expectNoForm(parsed.error.message);
    expectNoForm(masked);
  });

  it.each([
    ['cut short by an excerpt', `invalid API key Bearer ${KEY.slice(0, 19)}…`],
    ['its end only', `…${KEY.slice(-12)} was refused`],
    ['cut short, in upper case', `KEY ${KEY.slice(0, 15).toUpperCase()}…`],
    ['cut short, percent-encoded', `?key=${hex(KEY.slice(0, 14))}…`],
    ['its base64 cut short', `Basic ${base64(`alice:${KEY}`).slice(0, 30)}…`],
  ])('masks a piece of the key %s in server text, and only there', (_name, text) => {
    const masked = redactor.server(text);
    expect(masked).toContain('••••');
    expectNoPiece(masked);
    expect(redactor.text(text)).toBe(text); // not the whole key: the user's own text keeps it
  });

  it('masks every run of 10 or more characters of the key in server text, wherever it starts', () => {
    for (let length = 10; length <= KEY.length; length++) {
      for (let start = 0; start + length <= KEY.length; start++) {
        const piece = KEY.slice(start, start + length);
        for (const text of [`said: ${piece}…`, `said: ${piece.toUpperCase()}…`, `said: ${hex(piece)}…`]) {
          const masked = redactor.server(text);
          if (masked.toLowerCase().includes(piece.slice(0, 10).toLowerCase()) || !masked.includes('••••'))
            throw new Error(`characters ${start + 1} to ${start + length} of the key were left in server text`);
        }
      }
    }
  });

  it('shows the whole key as its last four characters, and leaves other text alone', () => {
    expect(redactor.text(`key ${KEY}.`)).toBe('key ••••WXYZ.');
    expect(redactor.server(`key ${KEY}.`)).toBe('key ••••WXYZ.');
    expect(redactor.text('sk_live_ is how live keys start')).toBe('sk_live_ is how live keys start'); // 8 characters: not a secret
  });

  it("leaves the user's ids and values that share a piece with the key as given", () => {
    const key = 'tk_1234567890_abcdefghijkl';
    const own = new Redactor();
    own.add(key);
    expect(own.text('order-1234567890')).toBe('order-1234567890');
    expect(own.text(`curl --data-raw '{"value":1234567890e-10}'`)).toBe(`curl --data-raw '{"value":1234567890e-10}'`);
    const line = '{"line":2,"ok":true,"userId":"order-1234567890","value":1234567890e-10,"body":"{\\"value\\":1234567890e-10}"}';
    expect(own.json(line)).toBe(line);
    // The same piece is masked when the server says it, and the whole key wherever it is.
    expect(own.server('no such user order-1234567890')).toBe('no such user order-••••');
    expect(own.text(`order-${key}`)).toBe('order-••••ijkl');
  });

  it('masks the key as a JSON member name in server JSON, which stays JSON', () => {
    const body = JSON.stringify({ success: true, [KEY]: 1, nested: [{ [KEY.toUpperCase()]: { [`x${KEY.slice(0, 12)}`]: 2 } }] });
    const masked = redactor.serverJson(body);
    expect(JSON.parse(masked)).toEqual({ success: true, '••••WXYZ': 1, nested: [{ '••••WXYZ': { 'x••••': 2 } }] });
  });

  it("leaves numbers, literals and the tool's own member names alone, whatever the key", () => {
    const digits = new Redactor();
    digits.add('12345678901234567890');
    const line = '{"ok":true,"value":12345678901234567890,"note":"12345678901234567890"}';
    expect(digits.json(line)).toBe('{"ok":true,"value":12345678901234567890,"note":"••••7890"}');
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
    expect(odd.text(`raw ${key}%41 and ${encodeURIComponent(key)}`)).toBe('raw ••••6789%41 and ••••6789');
    const percent = new Redactor();
    percent.add('k3y"with\\back%41slash_0123456789'); // decoding %41 and \\ changes this key: its own forms are looked for too
    expect(percent.text(JSON.stringify({ error: 'bad k3y"with\\back%41slash_0123456789' }))).toBe('{"error":"bad ••••6789"}');
    expect(percent.text(`?k=${encodeURIComponent('K3Y"WITH\\BACK%41SLASH_0123456789')}`)).toBe('?k=••••6789');
  });

  it.each(['true', 'null', 'user', '1', 'ok'])('a short key (%s) leaves --json valid and words alone', (key) => {
    const short = new Redactor();
    short.add(key);
    const line = `{"ok":true,"status":null,"userId":"user42","value":1,"error":{"message":"bad key ${key.toUpperCase()}"}}`;
    const out = short.json(line);
    const parsed = JSON.parse(out) as { ok: boolean; userId: string; error: { message: string } };
    expect(parsed.ok).toBe(true);
    expect(parsed.userId).toBe('user42');
    expect(parsed.error.message).toBe('bad key ••••');
  });

  it('JSON with no trace of the key is returned as it is', () => {
    const line = '{"ok":true,"value":12345678901234567890}';
    expect(redactor.json(line)).toBe(line);
    expect(redactor.serverJson('{"success":true}')).toBe('{"success":true}');
  });
});

describe('proxy credentials', () => {
  it.each([
    ['http://alice:S3cret@127.0.0.1:3128', 'http://alice:••••@127.0.0.1:3128'],
    ['alice:S3cret@127.0.0.1:3128', 'alice:••••@127.0.0.1:3128'],
    ['http://alice:p%40ss@proxy.example:8080/', 'http://alice:••••@proxy.example:8080/'],
    ['http://alice:p@ss/w@proxy.example:8080', 'http://alice:••••@proxy.example:8080'],
    ['http://token123@proxy.example:8080', 'http://••••@proxy.example:8080'],
    ['http://proxy.example:8080', 'http://proxy.example:8080'],
  ])('%s is shown as %s', (proxy, shown) => {
    expect(maskProxyCredentials(proxy)).toBe(shown);
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

  it('loopback written as an IPv4-mapped address or as localhost. takes http:// without --allow-http (audit26); others do not', () => {
    // Both were refused as "plain http"; localhost. is sent to as localhost, which /etc/hosts answers (as written, DNS did).
    expect(parseBaseUrl('http://[::ffff:127.0.0.1]:8787')).toMatchObject({ origin: 'http://[::ffff:7f00:1]:8787', loopback: true });
    expect(parseBaseUrl('http://LOCALHOST.:8787/x')).toMatchObject({ href: 'http://localhost:8787/x', loopback: true });
    for (const other of ['http://[::ffff:10.0.0.1]:8787', 'http://localhost.example.com', 'http://[::2]', 'http://128.0.0.1'])
      expect(() => parseBaseUrl(other)).toThrow(/uses plain http/);
  });

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

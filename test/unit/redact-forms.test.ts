/**
 * The key in hexadecimal and as HTML/XML character references, masked like its other forms: in the
 * whole (anything written) and as a piece (server text), in any letter case and any mix, with keys
 * that are themselves hex-looking or hold `&`, and beside data that only looks like them.
 */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/output/redact.js';
import { expectNoKeyForm, expectNoKeyPiece, hex, htmlReferences, keyForms } from '../helpers/key-forms.js';

const KEY = 'sk_live_SECRETKEY0123456789abcdefWXYZ';
const redactor = (key = KEY) => {
  const r = new Redactor();
  r.add(key);
  return r;
};

describe('every form of the key, the new ones included', () => {
  const r = redactor();
  it.each(Object.entries(keyForms(KEY)))('%s: masked whole in written text and in server text', (_name, form) => {
    for (const mask of [(t: string) => r.text(t), (t: string) => r.server(t)]) {
      const out = mask(`before ${form} after`);
      expectNoKeyForm('the masked text', out, KEY);
      expect(out).toMatch(/^before .*••••WXYZ.* after$/);
    }
  });

  it.each(Object.entries(keyForms(KEY)))('%s: inside JSON stays JSON, as a value and as a member name', (_name, form) => {
    const json = JSON.stringify({ message: `echo ${form}`, [form]: 1 });
    const out = r.serverJson(json);
    expect(() => JSON.parse(out) as unknown).not.toThrow();
    expectNoKeyForm('the masked JSON', out, KEY);
  });
});

describe('hexadecimal', () => {
  const r = redactor();
  it.each([
    ['lower case', hex(KEY)],
    ['upper case', hex(KEY).toUpperCase()],
    ['alternating case', [...hex(KEY)].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('')],
    ['inside a longer hex string', `00ff${hex(KEY)}ff00`],
    ['percent-encoded hex digits', [...hex(KEY)].map((c, i) => (i % 5 === 0 ? `%${c.charCodeAt(0).toString(16)}` : c)).join('')],
    ['\\u-escaped hex digits in JSON', [...hex(KEY)].map((c, i) => (i % 7 === 0 ? `\\u00${c.charCodeAt(0).toString(16)}` : c)).join('')],
  ])('%s', (_name, form) => {
    expectNoKeyForm('the masked text', r.text(`token=${form};`), KEY);
  });

  it('a piece of it, cut short by a server, is masked in server text only', () => {
    const piece = hex(KEY).slice(3, 3 + 24); // 12 bytes of the key, starting in the middle of a byte
    const out = r.server(`invalid token ${piece}…`);
    expect(out).toBe('invalid token ••••…');
    expect(r.text(`user ${piece}`)).toBe(`user ${piece}`); // the user's own data
    expectNoKeyPiece('server text', r.server(`x${hex(KEY).slice(10, 50).toUpperCase()}x`).replace(/[^0-9a-f]/gi, ''), hex(KEY), 20);
  });

  it('shorter runs of hex that the key also has are left alone', () => {
    const short = hex(KEY).slice(0, 18); // nine bytes: under a piece
    expect(r.server(`id ${short}`)).toBe(`id ${short}`);
    expect(r.server('sha 9f8e7d6c5b4a39281706f5e4d3c2b1a0')).toBe('sha 9f8e7d6c5b4a39281706f5e4d3c2b1a0');
  });
});

describe('HTML and XML character references', () => {
  const r = redactor();
  it.each([
    ['hex references', htmlReferences(KEY, 'hex')],
    ['upper-case X and digits', [...KEY].map((c) => `&#X${c.charCodeAt(0).toString(16).toUpperCase()};`).join('')],
    ['decimal references with leading zeros', [...KEY].map((c) => `&#000${c.charCodeAt(0)};`).join('')],
    ['a mix with names and plain characters', htmlReferences(KEY, 'mixed')],
    ['references without their semicolons', [...KEY].map((c) => `&#${c.charCodeAt(0)}`).join('')],
    ['only the underscores named', KEY.replace(/_/g, '&lowbar;')],
    ['only one character referenced', `${KEY.slice(0, 10)}&#x${KEY.charCodeAt(10).toString(16)};${KEY.slice(11)}`],
  ])('%s', (_name, form) => {
    const out = r.text(`<p>key ${form} refused</p>`);
    expectNoKeyForm('the masked text', out, KEY);
    expect(out).toBe('<p>key ••••WXYZ refused</p>');
  });

  it('a piece of a referenced key in server text', () => {
    const out = r.server(`bad key ${htmlReferences(KEY.slice(0, 16), 'decimal')}`);
    expect(out).toBe('bad key ••••');
  });

  it('text full of ordinary references is left as it is', () => {
    const text = 'Tom &amp; Jerry &lt;b&gt; &#169; &copy; &#x1F600; &unknown; & alone';
    expect(r.server(text)).toBe(text);
    expect(r.text(text)).toBe(text);
  });
});

describe('keys that try to slip past', () => {
  it('a key that is itself hex: masked raw and as the hex of it, and other hex is left alone', () => {
    const key = 'deadbeefcafe0123456789abcdef0123';
    const r = redactor(key);
    expect(r.text(`a ${key} b`)).toBe('a ••••0123 b');
    expect(r.text(`a ${key.toUpperCase()} b`)).toBe('a ••••0123 b');
    expect(r.text(`a ${hex(key)} b`)).toBe('a ••••0123 b');
    expect(r.server('sha deadbeef99 cafe0123')).toBe('sha deadbeef99 cafe0123');
  });

  it.each([
    'sk_live_a&b<c>"d\'e_0123456789',
    'tok&amp;en_0123456789abcdef',
    'key&#x41;literal_0123456789',
    'a&lt;b&gt;c_0123456789abcdefgh',
  ])('a key holding & (%s): raw, escaped, referenced and JSON, all masked; JSON stays JSON', (key) => {
    const r = redactor(key);
    for (const form of Object.values(keyForms(key))) {
      for (const text of [`x ${form} y`, `%20 x ${form} y`]) {
        expectNoKeyForm('text()', r.text(text), key);
        expectNoKeyForm('server()', r.server(text), key);
      }
      const json = r.json(JSON.stringify({ ok: false, userId: `u ${form}` }));
      expect(() => JSON.parse(json) as unknown).not.toThrow();
      expectNoKeyForm('json()', json, key);
    }
  });

  it("a value equal to the key's hex is masked where it is a string, and --json stays JSON", () => {
    const key = '12345678901234567890'; // its hex is digits only: 3132...
    const r = redactor(key);
    const line = JSON.stringify({ ok: true, userId: hex(key), value: 1 }).replace('"value":1', `"value":${hex(key)}`);
    const out = r.json(line);
    const parsed = JSON.parse(out) as { userId: string; value: number };
    expect(parsed.userId).toBe('••••7890');
    // A JSON number is never masked (that would break the JSON): the contract's rule for digits-only keys, kept for their hex.
    expect(typeof parsed.value).toBe('number');
  });
});

describe('short secrets (API keys this short are refused; other secrets may be)', () => {
  it.each(['true', 'null', 'user', 'ok'])('%j: --json stays valid JSON and longer ids stay whole', (secret) => {
    const r = redactor(secret);
    const line = JSON.stringify({ ok: true, userId: 'user42', triggerId: secret, response: { success: true, note: `hello ${secret}` } });
    const out = JSON.parse(r.json(line)) as { ok: boolean; userId: string; triggerId: string; response: { note: string } };
    expect(out).toMatchObject({ ok: true, userId: 'user42', triggerId: '••••', response: { note: 'hello ••••' } });
  });
});

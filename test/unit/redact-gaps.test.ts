/**
 * Forms of the key found since the first list: encoded twice (`%2573`, `&amp;#115;`, a mix) and
 * hexadecimal with its bytes apart (`73:6b:5f`, `73-6b-5f`, `73 6b 5f`). Each masked whole, in
 * written text, server text and server JSON; data that only looks like them is left alone.
 */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/output/redact.js';
import { expectNoKeyForm, hex, htmlReferences } from '../helpers/key-forms.js';

const KEY = 'sk_live_SECRETKEY0123456789abcdefWXYZ';
const r = new Redactor();
r.add(KEY);

/** Every byte as `%XX`. */
const percentAll = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
/** Fails, without printing the key, when `text` still holds it after undoing two rounds of any encoding, or as hex with separators. */
function expectNoKeyDecoded(where: string, text: string): void {
  const once = (t: string) =>
    t
      .replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
      .replace(/&amp;/gi, '&')
      .replace(/&#x([0-9a-f]+);?/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
      .replace(/&#(\d+);?/g, (_m, d: string) => String.fromCharCode(Number(d)));
  expectNoKeyForm(where, once(once(text)), KEY);
  expectNoKeyForm(where, text.replace(/([0-9a-f]{2})[-: ]/gi, '$1'), KEY);
}

describe('the key encoded twice', () => {
  it.each([
    ['percent-encoded twice', percentAll(KEY).replace(/%/g, '%25')],
    ['percent-encoded twice, upper case', percentAll(KEY).replace(/%/g, '%25').toUpperCase()],
    ['character references escaped again', htmlReferences(KEY, 'decimal').replace(/&/g, '&amp;')],
    ['hex references escaped again', htmlReferences(KEY, 'hex').replace(/&/g, '&amp;')],
    ['references percent-encoded', encodeURIComponent(htmlReferences(KEY, 'decimal'))],
    ['half of it encoded twice', `${KEY.slice(0, 10)}${percentAll(KEY.slice(10)).replace(/%/g, '%25')}`],
  ])('%s: masked whole in written text, server text and server JSON', (_name, form) => {
    for (const mask of [(t: string) => r.text(t), (t: string) => r.server(t)]) {
      const out = mask(`before ${form} after`);
      expectNoKeyDecoded('the masked text', out);
      expect(out).toBe('before ••••WXYZ after');
    }
    const json = r.serverJson(JSON.stringify({ message: `echo ${form}` }));
    expectNoKeyDecoded('the masked JSON', json);
    expect(JSON.parse(json)).toEqual({ message: 'echo ••••WXYZ' });
  });

  it('text encoded twice that is not the key is left alone', () => {
    for (const text of ['100%2525 sure', '&amp;#115;k_live_ is a prefix', '%2573%256b_live_other']) expect(r.server(text)).toBe(text);
  });
});

describe('hexadecimal with its bytes apart', () => {
  const apart = (separator: string) => hex(KEY).replace(/..(?!$)/g, `$&${separator}`);
  it.each([
    ['colons', apart(':')],
    ['dashes', apart('-')],
    ['spaces', apart(' ')],
    ['colons, upper case', apart(':').toUpperCase()],
    ['the three separators mixed', hex(KEY).replace(/..(?!$)/g, (byte, at: number) => `${byte}${[':', '-', ' '][(at / 2) % 3]}`)],
    ['inside a longer run', `00:11:${apart(':')}:ff`],
  ])('%s: masked whole in written text and server text', (_name, form) => {
    for (const mask of [(t: string) => r.text(t), (t: string) => r.server(t)]) {
      const out = mask(`fingerprint ${form};`);
      expectNoKeyDecoded('the masked text', out);
      expect(out).toMatch(/^fingerprint (00:11:)?••••WXYZ(:ff)?;$/);
    }
  });

  it('hex with separators that is not the key, or only its start, is left alone', () => {
    const start = apart(':').slice(0, 3 * 8 - 1); // eight bytes of the key
    for (const text of ['mac 00:1a:2b:3c:4d:5e', `id ${start}`, 'uuid 123e4567-e89b-12d3-a456-426614174000'])
      expect(r.text(text)).toBe(text);
  });
});

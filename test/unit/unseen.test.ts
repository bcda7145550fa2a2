/**
 * What a person reads is what is sent: invisible and direction-changing characters shown escaped,
 * echoed input cut to an excerpt and its length, and the one GitHub annotation escaper.
 */
import { describe, expect, it } from 'vitest';
import { parseValue } from '../../src/client/request.js';
import { excerpt, quotedExcerpt } from '../../src/output/excerpt.js';
import { githubAnnotation, printable } from '../../src/output/render.js';
import { usageWords } from '../../src/output/usage.js';
import { parseBaseUrl } from '../../src/settings/validate.js';

const messageOf = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('did not throw');
};

describe('printable', () => {
  it.each([
    ['right-to-left override', 'alice\u202egnp.exe', 'alice\\u202egnp.exe'],
    ['left-to-right and right-to-left marks', '\u200eid\u200f', '\\u200eid\\u200f'],
    ['isolates', '\u2066a\u2067b\u2068c\u2069', '\\u2066a\\u2067b\\u2068c\\u2069'],
    ['zero-width space, joiner, non-joiner', 'a\u200bb\u200cc\u200dd', 'a\\u200bb\\u200cc\\u200dd'],
    ['byte order mark', '\ufeffpurchase', '\\ufeffpurchase'],
    ['soft hyphen', 'pur\u00adchase', 'pur\\u00adchase'],
    ['word joiner and invisible times', 'a\u2060b\u2062c', 'a\\u2060b\\u2062c'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['Arabic letter mark', 'x\u061cy', 'x\\u061cy'],
    ['a tag character (outside the BMP)', 'flag\u{e0041}', 'flag\\u{e0041}'],
    ['a lone surrogate', 'a\ud800b', 'a\\ud800b'],
    // Default-ignorable code points outside Cf show nothing either (audit25 #4).
    ['combining grapheme joiner', 'a\u034fb', 'a\\u034fb'],
    ['Hangul fillers', '\u3164x\u115f', '\\u3164x\\u115f'],
    ['a variation selector', 'a\ufe0fb', 'a\\ufe0fb'],
    ['Khmer inherent vowel', 'a\u17b4b', 'a\\u17b4b'],
    ['controls, as before', 'a\nb\r\t\x1b[31m\x9b', 'a\\nb\\r\\t\\x1b[31m\\u009b'],
  ])('%s', (_name, text, shown) => {
    expect(printable(text)).toBe(shown);
  });

  it.each(['alice', 'José', '日本語', 'emoji 🎉 and 👩‍💻', 'Ünïcödé ß', 'a b'])('leaves %j as it is', (text) => {
    // 👩‍💻 holds a zero-width joiner (Cf): it is shown escaped, which is what a person must see.
    expect(printable(text)).toBe(text.replace('\u200d', '\\u200d'));
  });

  it('gives the same answer on every call (no state kept between calls)', () => {
    for (let i = 0; i < 4; i++) expect(printable('x\u202ey')).toBe('x\\u202ey');
  });
});

describe('excerpt of echoed input', () => {
  const long = '1'.repeat(10_000);
  it('is the text itself when short', () => {
    expect(excerpt('9.99abc')).toBe('9.99abc');
    expect(quotedExcerpt('9.99abc')).toBe('"9.99abc"');
  });
  it('is its start, its end and its length when long', () => {
    expect(excerpt(`${long}x`)).toBe(`${'1'.repeat(40)}…${'1'.repeat(11)}x (10,001 characters)`);
    expect(quotedExcerpt(`${long}x`)).toBe(`"${'1'.repeat(40)}…${'1'.repeat(11)}x" (10,001 characters)`);
  });
  it('never cuts a character in two, and counts characters, not code units', () => {
    const text = `${'a'.repeat(39)}${'😀'.repeat(40)}`;
    const cut = excerpt(text);
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(cut).toMatch(/\(79 characters\)$/);
  });
  it.each([
    ['a 10,000-digit --value beyond a double', () => parseValue(`1${'0'.repeat(9_999)}`)],
    ['a 10,000-character --value that is no number', () => parseValue(`${long}x`)],
    ['a base URL of 10,000 characters', () => parseBaseUrl(`not a url ${long}`)],
  ])('%s is told in a readable line', (_name, f) => {
    const message = messageOf(f);
    expect(message.length).toBeLessThan(200);
    expect(message).toMatch(/\((10,00\d|10,010) characters\)/);
  });
  it.each([
    [
      "error: option '--retries <n>' argument '" + '9'.repeat(300) + "' is invalid. expected a whole number from 0 to 100\n",
      /^error: --retries '9{40}…9{12}' \(300 characters\) is not valid: expected a whole number from 0 to 100\n$/,
    ],
    ["error: unknown option '--" + 'z'.repeat(300) + "'\n", /^error: unknown option '--z{38}…z{12}' \(302 characters\)\n$/],
    ["error: unknown command '" + 'q'.repeat(300) + "'\n", /^error: unknown command 'q{40}…q{12}' \(300 characters\)\n$/],
  ])('commander echoing %#: cut', (commander, ours) => {
    expect(usageWords(commander)).toMatch(ours);
  });
});

describe('githubAnnotation: the one escaper', () => {
  it.each([
    ['%, CR and LF in the message', 'a%b\r\n::warning::forged', '::error title=trigger::a%25b%0D%0A::warning::forged'],
    [
      'other controls and invisible characters shown as on a terminal',
      'x\x1b]0;T\x07\u202ey',
      '::error title=trigger::x\\x1b]0;T\\x07\\u202ey',
    ],
    ['a line separator', 'a\u2028b', '::error title=trigger::a\\u2028b'],
  ])('%s', (_name, message, line) => {
    expect(githubAnnotation(message)).toBe(line);
  });

  it('escapes : and , in properties, besides %, CR and LF', () => {
    expect(githubAnnotation('m', 'a:b,c%d\ne')).toBe('::error title=a%3Ab%2Cc%25d%0Ae::m');
    expect(githubAnnotation('bad row', 'trigger', { level: 'warning', file: 'C:\\data\\a,b\n.csv', line: 4 })).toBe(
      '::warning file=C%3A\\data\\a%2Cb%0A.csv,line=4,title=trigger::bad row',
    );
  });

  it('is always one line', () => {
    for (const text of ['\n', '\r', '\u2028', '\u0085', '\x0b', '\x0c']) {
      // eslint-disable-next-line no-control-regex
      expect(githubAnnotation(`a${text}b`, `t${text}`, { file: `f${text}` })).not.toMatch(/[\n\r\u2028\u2029\u0085\x0b\x0c]/);
    }
  });
});

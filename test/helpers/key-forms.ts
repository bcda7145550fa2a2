/**
 * The forms in which a server may echo an API key (the contract's list), and checks that fail
 * without ever printing the key: they name where it was found and in which form, nothing more.
 */

const percent = (text: string, hex: (h: string) => string) =>
  [...text].map((c) => `%${hex(c.charCodeAt(0).toString(16).padStart(2, '0'))}`).join('');

/** JSON text of `\uXXXX` escapes, one per character. */
export const unicodeEscaped = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

export const base64 = (text: string) => Buffer.from(text, 'latin1').toString('base64');
export const hex = (text: string) => Buffer.from(text, 'latin1').toString('hex');

/** HTML character references, one per character: `&#x73;` (hex), `&#115;` (decimal), or a mix with names and plain characters. */
export const htmlReferences = (text: string, how: 'hex' | 'decimal' | 'mixed') =>
  [...text]
    .map((c, i) => {
      const code = c.charCodeAt(0);
      if (how === 'hex') return `&#x${code.toString(16)};`;
      if (how === 'decimal') return `&#${code};`;
      const named: Record<string, string> = { _: '&lowbar;', '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
      return named[c] ?? [c, `&#X${code.toString(16).toUpperCase()};`, `&#0${code};`][i % 3];
    })
    .join('');
export const base64url = (text: string) => Buffer.from(text, 'latin1').toString('base64url');

/**
 * The key in every form, each as it would stand in a JSON string's source text (so the `\u` form
 * is escapes in the text, as a server that escapes every character sends it).
 */
export function keyForms(key: string): Record<string, string> {
  return {
    raw: key,
    upper: key.toUpperCase(),
    lower: key.toLowerCase(),
    unicode: unicodeEscaped(key),
    percentUpper: percent(key, (h) => h.toUpperCase()),
    percentLower: percent(key, (h) => h.toLowerCase()),
    percentMixed: `${key.slice(0, 6)}${percent(key.slice(6, 12), (h) => h.toLowerCase())}${key.slice(12, 20)}${percent(key.slice(20), (h) => h.toUpperCase())}`,
    base64: base64(key),
    base64OneIn: base64(`:${key}`),
    base64TwoIn: base64(`u:${key}!`),
    basic: `Basic ${base64(`alice:${key}`)}`,
    base64url: base64url(`{"k":"${key}?"}`),
    hexLower: hex(key),
    hexUpper: hex(key).toUpperCase(),
    hexMixed: [...hex(key)].map((c, i) => (i % 3 === 0 ? c.toUpperCase() : c)).join(''),
    htmlHex: htmlReferences(key, 'hex'),
    htmlDecimal: htmlReferences(key, 'decimal'),
    htmlMixed: htmlReferences(key, 'mixed'),
  };
}

/** Where `text`, decoded as a server's echo could be, still holds the key; undefined when nowhere. */
export function keyFormIn(text: string, key: string): string | undefined {
  const unescaped = text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_m, code: string) => String.fromCharCode(parseInt(code, 16)))
    .replace(/\\(.)/g, '$1');
  const unpercented = text.replace(/%[0-9A-Fa-f]{2}/g, (m) => String.fromCharCode(parseInt(m.slice(1), 16)));
  const names: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", lowbar: '_', sol: '/', colon: ':' };
  const unreferenced = text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[A-Za-z]+);?/g, (m, ref: string) =>
    ref.startsWith('#')
      ? String.fromCharCode(parseInt(ref.slice(/^#x/i.test(ref) ? 2 : 1), /^#x/i.test(ref) ? 16 : 10))
      : (names[ref.toLowerCase()] ?? m),
  );
  // Every run of hex digits, read from its first and from its second digit.
  const unhexed = (text.match(/[0-9a-fA-F]{8,}/g) ?? [])
    .flatMap((run) => [run, run.slice(1)].map((h) => Buffer.from(h.slice(0, h.length - (h.length % 2)), 'hex').toString('latin1')))
    .join(' ');
  const core = key.slice(3, -3); // what base64 at any alignment still decodes to
  for (const [how, candidate] of [
    ['as it is', text],
    ['JSON-unescaped', unescaped],
    ['percent-decoded', unpercented],
    ['HTML-unescaped', unreferenced],
    ['hex-decoded', unhexed],
  ] as const) {
    if (candidate.toLowerCase().includes(key.toLowerCase())) return `${how}, in some letter case`;
    for (const run of candidate.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
      for (const skip of [0, 1, 2, 3]) {
        if (Buffer.from(run.slice(skip), 'base64').toString('latin1').includes(core)) return `${how}, as base64`;
      }
    }
  }
  return undefined;
}

/** Fails, without printing the key, when `text` holds it in any form. */
export function expectNoKeyForm(where: string, text: string, key: string): void {
  const form = keyFormIn(text, key);
  if (form) throw new Error(`the API key is in ${where} (${form})`);
}

/** Fails, without printing the key, when any run of `length` characters of it is in `text`, in any case. */
export function expectNoKeyPiece(where: string, text: string, key: string, length = 10): void {
  const lower = text.toLowerCase();
  for (let i = 0; i + length <= key.length; i++) {
    if (lower.includes(key.slice(i, i + length).toLowerCase()))
      throw new Error(`a piece of the API key (characters ${i + 1} to ${i + length}) is in ${where}`);
  }
}

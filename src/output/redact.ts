/**
 * Keeping the API key out of everything the tool writes, in every form the contract lists: raw in
 * any letter case; JSON-escaped (`\"`, `\\`, `\/`, `\uXXXX` of any character); percent-encoded, any
 * mix of encoded and plain bytes, either hex case; base64 and base64url at each of the three
 * alignments it can have inside a longer base64 text; hexadecimal in any (or mixed) letter case;
 * HTML/XML character references (`&#x41;`, `&#65;`, `&amp;` and the named ones for ASCII
 * punctuation), in any mix with plain characters; as a JSON member name.
 *
 * Two strengths, because the user's own data must come out as it went in:
 * - `text` masks the whole key wherever it is, ids and values the user gave included;
 * - `server` also masks any run of MIN_PIECE characters of the key, for text that came from the
 *   server (bodies, messages, headers), where an echo cut short at an excerpt limit still leaks most
 *   of a key. It is never applied to the user's ids and values: `order-1234567890` is data even
 *   when the key holds `1234567890`.
 *
 * The escaped and encoded forms are found by decoding the text once into a view (every `%XX`,
 * `\uXXXX`, `\xXX`, JSON escape and character reference turned into its character, letters lowered) that remembers where
 * each character came from; the key is looked for in that view and masked in the text. Text with no
 * trace of any form (the usual `{"success":true}`) is let through after a few native searches.
 *
 * JSON is masked inside its strings only, so that `--json` stays JSON whatever the key is: with the
 * key `true`, `"ok":true` is left alone. The tool's own lines (`json`) are masked in their string
 * values; what the server sent (`serverJson`) in its member names too.
 */
import { maskKey } from '../settings/validate.js';

/**
 * The shortest piece of a key that is masked on its own in server text: ten characters of a random
 * key are ~60 bits of it, while shorter runs would mask ordinary text (a live key's `sk_live_` prefix
 * is eight).
 */
export const MIN_PIECE = 10;

/** Hex digits per stretch: any run of 2 x MIN_PIECE digits of the key's hex holds one at a multiple of this. */
const HEX_STRETCH = MIN_PIECE;

/** The shortest run of a key's base64 that is masked on its own in server text (twelve bytes of it). */
const BASE64_PIECE = 16;

/**
 * Keys shorter than this are masked only where they stand alone (not inside a longer word or id):
 * masking `user` inside `user42` would hide ordinary data, and so short a key hides nothing anyway.
 * The tool refuses API keys this short (MIN_KEY_LENGTH in settings/validate.ts); other secrets given
 * to a Redactor may still be.
 */
export const SHORT_KEY = 12;

/** Masks pieces of the key in text that came from the server (Redactor and Output give one). */
export interface ServerMask {
  /** Server text with the key, and any long enough piece of it, masked. */
  server(text: string): string;
  /** JSON text from the server, masked in its strings and member names only: it stays the same JSON. */
  serverJson(json: string): string;
}

const WORD = /[A-Za-z0-9_-]/;
const ESCAPES = /[%\\&]/;
/** A JSON string, and the colon after it when it is a member name. */
const MEMBER_OR_STRING = /"(?:[^"\\]|\\.)*"(\s*:)?/g;
const STANDARD = /[A-Za-z0-9+/]/;
const URL_SAFE = /[A-Za-z0-9_-]/;

/** The key's base64 at one alignment: whole groups of key bytes, and how far the key reaches on either side. */
interface Base64Needle {
  text: string;
  /** Characters before `text` that still carry bits of the key (its group shared with earlier bytes). */
  before: number;
  /** Characters after `text` that still carry bits of the key. */
  after: number;
  alphabet: RegExp;
}

/** A stretch of the text to mask; `whole` when it is a whole form of the key (masked as ••••abcd). */
type Range = [start: number, end: number, whole: boolean];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Lower-cases ASCII letters only, keeping every character where it was. */
function asciiLower(text: string): string {
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

function base64Needles(key: string): Base64Needle[] {
  const needles: Base64Needle[] = [];
  const seen = new Set<string>();
  // `lead` key bytes share a group with bytes before the key: 0, 2 or 1 of them.
  for (const lead of [0, 2, 1]) {
    const whole = Math.floor((key.length - lead) / 3) * 3;
    if (whole < 3) continue;
    const standard = Buffer.from(key.slice(lead, lead + whole), 'latin1').toString('base64');
    const rest = key.length - lead - whole;
    const around = { before: lead === 0 ? 0 : lead + 1, after: rest === 0 ? 0 : rest + 1 };
    for (const [text, alphabet] of [
      [standard, STANDARD],
      [standard.replace(/\+/g, '-').replace(/\//g, '_'), URL_SAFE],
    ] as const) {
      if (seen.has(text)) continue;
      seen.add(text);
      needles.push({ text, alphabet, ...around });
    }
  }
  return needles;
}

class Secret {
  readonly key: string;
  readonly lower: string;
  readonly mask: string;
  readonly short: boolean;
  /**
   * Whether the key holds `&`: text is then also read with its character references left as they
   * are, since a key holding `&lt;` would otherwise be decoded away wherever it is mixed with escapes.
   */
  readonly ampersand: boolean;
  readonly base64: Base64Needle[];
  /** The key's bytes in lower-case hex: looked for in the lowered view, so any letter case matches. */
  readonly hex: string;
  /** The lowered key raw, JSON-escaped and percent-encoded: looked for as they are in text with escapes. */
  readonly literal: string[];
  /** Runs of MIN_PIECE characters of the lowered key, with where each starts in it. */
  readonly pieces: Array<[start: number, text: string]> = [];
  /** Matches wherever a whole form might be: the key in any case, an escape, a base64 needle. */
  readonly #maybe: RegExp;
  /** Matches wherever a piece might be (in server text). */
  readonly #maybePiece: RegExp | undefined;
  /** The length of the shortest whole form: shorter text holds none. */
  readonly #shortest: number;

  constructor(key: string) {
    this.key = key;
    this.lower = asciiLower(key);
    this.mask = maskKey(key);
    this.short = key.length < SHORT_KEY;
    this.ampersand = key.includes('&');
    this.literal = [...new Set([this.lower, JSON.stringify(this.lower).slice(1, -1), asciiLower(encodeURIComponent(key))])];
    this.base64 = this.short ? [] : base64Needles(key);
    this.hex = Buffer.from(key, 'latin1').toString('hex');
    // One case-insensitive search (wider than base64 needs: a net never narrower than the forms).
    this.#maybe = new RegExp(
      [this.lower, this.hex, ...this.base64.map((n) => n.text)].map(escapeRegExp).concat('%', '\\\\', '&').join('|'),
      'i',
    );
    this.#shortest = Math.min(key.length, ...this.base64.map((n) => n.text.length));
    if (this.short) return;
    const seen = new Set<string>();
    for (let s = 0; s + MIN_PIECE <= this.lower.length; s++) {
      const piece = this.lower.slice(s, s + MIN_PIECE);
      if (!seen.has(piece)) this.pieces.push([s, piece]);
      seen.add(piece);
    }
    // A run of MIN_PIECE characters of the key holds one of its five-character stretches that start
    // at a multiple of five; a base64 anchor starts or ends with eight of its characters. Looking for
    // those few (in any case: a wider net, never a narrower one) rules out most text at once.
    const stretches: string[] = [];
    for (let s = 0; s + 5 <= this.lower.length; s += 5) stretches.push(this.lower.slice(s, s + 5));
    // A hex piece (2 x MIN_PIECE digits) holds one of the hex's ten-digit stretches at a multiple of ten.
    for (let s = 0; s + HEX_STRETCH <= this.hex.length; s += HEX_STRETCH) stretches.push(this.hex.slice(s, s + HEX_STRETCH));
    const anchors = this.base64.flatMap((n) => (n.text.length >= BASE64_PIECE ? [n.text.slice(0, 8), n.text.slice(-8)] : []));
    this.#maybePiece = new RegExp([...new Set([...stretches, ...anchors])].map(escapeRegExp).concat('%', '\\\\', '&').join('|'), 'i');
  }

  /** Whether `text` may hold a form of the whole key (a cheap test; false means it holds none). */
  mayHold(text: string): boolean {
    return text.length >= this.#shortest && this.#maybe.test(text);
  }

  mayHoldPiece(text: string): boolean {
    return this.#maybePiece !== undefined && text.length >= MIN_PIECE && this.#maybePiece.test(text);
  }
}

/** The text decoded: each escape or percent-encoded byte turned into its character, and where each came from. */
interface View {
  /** Decoded, letters as they were (base64 is looked for here). */
  text: string;
  /** Decoded, ASCII letters lowered (the key is looked for here). */
  lower: string;
  /** Where decoded character i starts in the text, and (at the end) the text's length; undefined when nothing was decoded. */
  at: Int32Array | undefined;
}

const [PERCENT, BACKSLASH, U, X, AMPERSAND, HASH, SEMICOLON] = [0x25, 0x5c, 0x75, 0x78, 0x26, 0x23, 0x3b];

/**
 * HTML's named character references for the characters a key can hold (printable ASCII): the
 * XML five, and HTML5's names for the rest of ASCII punctuation. `&amp`, `&lt`, `&gt` and `&quot`
 * are also read without their `;`, as browsers read them.
 */
const NAMED: Record<string, number> = {
  amp: 0x26,
  lt: 0x3c,
  gt: 0x3e,
  quot: 0x22,
  apos: 0x27,
  excl: 0x21,
  num: 0x23,
  dollar: 0x24,
  percnt: 0x25,
  lpar: 0x28,
  rpar: 0x29,
  ast: 0x2a,
  midast: 0x2a,
  plus: 0x2b,
  comma: 0x2c,
  period: 0x2e,
  sol: 0x2f,
  colon: 0x3a,
  semi: 0x3b,
  equals: 0x3d,
  quest: 0x3f,
  commat: 0x40,
  lsqb: 0x5b,
  lbrack: 0x5b,
  bsol: 0x5c,
  rsqb: 0x5d,
  rbrack: 0x5d,
  hat: 0x5e,
  lowbar: 0x5f,
  underbar: 0x5f,
  grave: 0x60,
  diacriticalgrave: 0x60,
  lcub: 0x7b,
  lbrace: 0x7b,
  verbar: 0x7c,
  vert: 0x7c,
  verticalline: 0x7c,
  rcub: 0x7d,
  rbrace: 0x7d,
  tilde: 0x7e,
  dash: 0x2010,
  hyphen: 0x2010,
  nbsp: 0xa0,
};
const LOOSE = new Set(['amp', 'lt', 'gt', 'quot']);
/** A named reference: letters after `&`, and a `;` (or not). */
const NAME_AT = /[A-Za-z]{2,20};?/y;

/** The character reference at `at` (which holds `&`) as [code unit, length], or undefined. */
function referenceAt(text: string, at: number): [unit: number, length: number] | undefined {
  if (text.charCodeAt(at + 1) === HASH) {
    const hexadecimal = (text.charCodeAt(at + 2) | 0x20) === X;
    let i = at + (hexadecimal ? 3 : 2);
    let value = 0;
    const first = i;
    for (; i < text.length && i - first < 8; i++) {
      const digit = hexAt(text, i, 1);
      if (digit < 0 || (!hexadecimal && digit > 9)) break;
      value = value * (hexadecimal ? 16 : 10) + digit;
    }
    // Only what one code unit holds: a key is ASCII, and the view keeps one unit per character.
    if (i === first || value > 0xffff) return undefined;
    if (text.charCodeAt(i) === SEMICOLON) i++;
    return [value, i - at];
  }
  NAME_AT.lastIndex = at + 1;
  const m = NAME_AT.exec(text);
  if (!m) return undefined;
  const closed = m[0].endsWith(';');
  const name = (closed ? m[0].slice(0, -1) : m[0]).toLowerCase();
  const unit = NAMED[name];
  if (unit === undefined || (!closed && !LOOSE.has(name))) return undefined;
  return [unit, m[0].length + 1];
}
/** What follows a backslash in a JSON escape, by code unit, and the code unit it stands for. */
const SHORT_ESCAPES: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 8, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9 };

/** The value of `length` hex digits at `at`, or -1. */
function hexAt(text: string, at: number, length: number): number {
  if (at + length > text.length) return -1;
  let value = 0;
  for (let i = at; i < at + length; i++) {
    const c = text.charCodeAt(i);
    const letter = c | 0x20; // A-F as a-f
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : letter >= 0x61 && letter <= 0x66 ? letter - 0x61 + 10 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

function decode(text: string, references = true): View {
  if (!ESCAPES.test(text)) return { text, lower: asciiLower(text), at: undefined };
  // Code units and offsets in typed arrays, turned into a string in one go: a megabyte of escapes
  // is decoded in milliseconds, not in a million small strings.
  const units = new Uint16Array(text.length);
  const at = new Int32Array(text.length + 1);
  let n = 0;
  for (let i = 0; i < text.length; n++) {
    let unit = text.charCodeAt(i);
    let length = 1;
    if (unit === PERCENT) {
      const byte = hexAt(text, i + 1, 2);
      if (byte >= 0) [unit, length] = [byte, 3];
    } else if (unit === BACKSLASH) {
      const next = text.charCodeAt(i + 1);
      const code = next === U ? hexAt(text, i + 2, 4) : next === X ? hexAt(text, i + 2, 2) : -1;
      if (code >= 0) [unit, length] = [code, next === U ? 6 : 4];
      else if (SHORT_ESCAPES[next] !== undefined) [unit, length] = [SHORT_ESCAPES[next], 2];
    } else if (unit === AMPERSAND && references) {
      const reference = referenceAt(text, i);
      if (reference) [unit, length] = reference;
    }
    units[n] = unit;
    at[n] = i;
    i += length;
  }
  at[n] = text.length;
  const decoded = Buffer.from(units.buffer, 0, n * 2).toString('utf16le');
  return { text: decoded, lower: asciiLower(decoded), at };
}

/** Calls `found` with every place `needle` is in `haystack`. */
function eachAt(haystack: string, needle: string, found: (at: number) => void): void {
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) found(at);
}

/** The ranges of `text` where the whole key stands, in any form. */
function wholeRanges(text: string, view: View, secret: Secret, ranges: Range[]): void {
  const add = (start: number, end: number) => {
    const [from, to] = view.at ? [view.at[start]!, view.at[end]!] : [start, end];
    // A short key counts only where it stands alone, so that `user` leaves `user42` alone.
    if (secret.short && (WORD.test(text[from - 1] ?? '') || WORD.test(text[to] ?? ''))) return;
    ranges.push([from, to, true]);
  };
  eachAt(view.lower, secret.lower, (at) => add(at, at + secret.key.length));
  eachAt(view.lower, secret.hex, (at) => add(at, at + secret.hex.length));
  if (view.at) {
    // A key that holds `%` or `\` itself, which decoding changes: its own forms, as they are.
    const lower = asciiLower(text);
    for (const form of secret.literal) {
      eachAt(lower, form, (at) => {
        if (!(secret.short && (WORD.test(text[at - 1] ?? '') || WORD.test(text[at + form.length] ?? ''))))
          ranges.push([at, at + form.length, true]);
      });
    }
  }
  for (const needle of secret.base64) {
    eachAt(view.text, needle.text, (at) => {
      let start = at;
      let end = at + needle.text.length;
      for (let n = 0; n < needle.before && start > 0 && needle.alphabet.test(view.text[start - 1]!); n++) start--;
      for (let n = 0; n < needle.after && end < view.text.length && needle.alphabet.test(view.text[end]!); n++) end++;
      ranges.push(view.at ? [view.at[start]!, view.at[end]!, true] : [start, end, true]);
    });
  }
}

/** The ranges of `text` that are runs of MIN_PIECE or more characters of the key (or of its base64). */
function pieceRanges(text: string, view: View, secret: Secret, ranges: Range[]): void {
  // The run grown from each alignment with the key (where the key would start): another piece of
  // the same alignment inside it would grow into the same run (a text of a thousand echoes stays linear).
  let grown = new Map<number, [number, number]>();
  const grow = (haystack: string, form: string, at: number, s: number, length: number, map?: Int32Array) => {
    const known = grown.get(at - s);
    if (known && known[0] <= at && at + length <= known[1]) return;
    let start = at;
    let end = at + length;
    for (let k = s - 1; k >= 0 && start > 0 && haystack[start - 1] === form[k]; k--) start--;
    for (let k = s + length; k < form.length && end < haystack.length && haystack[end] === form[k]; k++) end++;
    const whole = end - start === form.length;
    grown.set(at - s, [start, end]);
    ranges.push(map ? [map[start]!, map[end]!, whole] : [start, end, whole]);
  };
  for (const [s, piece] of secret.pieces) {
    eachAt(view.lower, piece, (at) => grow(view.lower, secret.lower, at, s, MIN_PIECE, view.at));
  }
  if (view.at) {
    const lower = asciiLower(text);
    grown = new Map();
    for (const [s, piece] of secret.pieces) eachAt(lower, piece, (at) => grow(lower, secret.lower, at, s, MIN_PIECE));
  }
  hexPieceRanges(view, secret, ranges);
  for (const needle of secret.base64) {
    if (needle.text.length < BASE64_PIECE) continue;
    grown = new Map();
    const tail = needle.text.length - BASE64_PIECE;
    for (const s of tail === 0 ? [0] : [0, tail]) {
      eachAt(view.text, needle.text.slice(s, s + BASE64_PIECE), (at) => grow(view.text, needle.text, at, s, BASE64_PIECE, view.at));
    }
  }
}

/** The ranges of the view that are runs of 2 x MIN_PIECE or more digits of the key's hex (MIN_PIECE bytes). */
function hexPieceRanges(view: View, secret: Secret, ranges: Range[]): void {
  const { hex } = secret;
  const text = view.lower;
  const grown = new Map<number, number>(); // where the key's hex would start -> the end of the run grown there
  for (let s = 0; s + HEX_STRETCH <= hex.length; s += HEX_STRETCH) {
    eachAt(text, hex.slice(s, s + HEX_STRETCH), (at) => {
      const known = grown.get(at - s);
      if (known !== undefined && at + HEX_STRETCH <= known) return;
      let start = at;
      let end = at + HEX_STRETCH;
      for (let k = s - 1; k >= 0 && start > 0 && text[start - 1] === hex[k]; k--) start--;
      for (let k = s + HEX_STRETCH; k < hex.length && end < text.length && text[end] === hex[k]; k++) end++;
      grown.set(at - s, end);
      if (end - start < 2 * MIN_PIECE) return;
      const whole = end - start === hex.length;
      ranges.push(view.at ? [view.at[start]!, view.at[end]!, whole] : [start, end, whole]);
    });
  }
}

/** `text` with the ranges replaced: a whole form by the key's mask (••••abcd), a piece by ••••. */
function applyRanges(text: string, ranges: Range[], mask: string): string {
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let result = '';
  let last = 0;
  for (let i = 0; i < ranges.length;) {
    const [start, first, wholeFirst] = ranges[i++]!;
    let [end, whole] = [first, wholeFirst];
    // Overlapping or touching ranges are one stretch of key.
    while (i < ranges.length && ranges[i]![0] <= end) {
      end = Math.max(end, ranges[i]![1]);
      whole ||= ranges[i]![2];
      i++;
    }
    result += text.slice(last, start) + (whole ? mask : '••••');
    last = end;
  }
  return result + text.slice(last);
}

/** The views the key is looked for in: the decoded text, and for a key holding `&` the text decoded but its references. */
function views(text: string, secret: Secret): View[] {
  const view = decode(text);
  return secret.ampersand && view.at !== undefined && text.includes('&') ? [view, decode(text, false)] : [view];
}

export class Redactor implements ServerMask {
  readonly #secrets: Secret[] = [];

  add(secret: string | undefined): void {
    const key = secret?.trim();
    if (!key || this.#secrets.some((s) => s.key === key)) return;
    this.#secrets.push(new Secret(key));
  }

  get empty(): boolean {
    return this.#secrets.length === 0;
  }

  /** Text with every form of the whole key masked: for anything written, the user's own data included. */
  text(input: string): string {
    let text = input;
    for (const secret of this.#secrets) {
      if (!secret.mayHold(text)) continue;
      const ranges: Range[] = [];
      for (const view of views(text, secret)) wholeRanges(text, view, secret, ranges);
      text = applyRanges(text, ranges, secret.mask);
    }
    return text;
  }

  /** Text that came from the server: every form of the key, and every long enough piece of one, masked. */
  server(input: string): string {
    let text = input;
    for (const secret of this.#secrets) {
      const whole = secret.mayHold(text);
      if (!whole && !secret.mayHoldPiece(text)) continue;
      const ranges: Range[] = [];
      for (const view of views(text, secret)) {
        if (whole) wholeRanges(text, view, secret, ranges);
        if (!secret.short) pieceRanges(text, view, secret, ranges);
      }
      text = applyRanges(text, ranges, secret.mask);
    }
    return text;
  }

  /**
   * One line of JSON the tool made, with the key masked in its string values, each re-encoded as a
   * JSON string. Nothing else is touched (not `true`, not a number, not the tool's own member names,
   * which a short key such as `ok` could equal), so the line stays the same JSON. What the server
   * sent, member names included, is masked by serverJson before it is placed in the line.
   */
  json(line: string): string {
    if (!this.#secrets.some((secret) => secret.mayHold(line))) return line;
    return maskStrings(line, false, (text) => this.text(text));
  }

  /** JSON text from the server, masked as server text in its strings and member names. */
  serverJson(json: string): string {
    if (!this.#secrets.some((secret) => secret.mayHold(json) || secret.mayHoldPiece(json))) return json;
    return maskStrings(json, true, (text) => this.server(text));
  }
}

/** JSON text with `mask` applied to its string values (and member names, with `names`), re-encoded. */
function maskStrings(json: string, names: boolean, mask: (text: string) => string): string {
  return json.replace(MEMBER_OR_STRING, (literal: string, colon: string | undefined) => {
    if (colon !== undefined && !names) return literal;
    const value = JSON.parse(colon === undefined ? literal : literal.slice(0, -colon.length)) as string;
    const masked = mask(value);
    return masked === value ? literal : `${JSON.stringify(masked)}${colon ?? ''}`;
  });
}

/**
 * A proxy URL as it may be shown: its password masked (`http://alice:••••@proxy:3128`), and a user
 * part with no password masked whole, since a lone token there is as secret as a password.
 */
export function maskProxyCredentials(proxy: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(proxy)?.[0] ?? '';
  const rest = proxy.slice(scheme.length);
  // The last `@` ends the credentials, also when a password holds a raw `/` or `@` (a proxy has no path).
  const at = rest.lastIndexOf('@');
  if (at < 0) return proxy;
  const userinfo = rest.slice(0, at);
  const colon = userinfo.indexOf(':');
  const shown = colon < 0 ? '••••' : `${userinfo.slice(0, colon)}:••••`;
  return `${scheme}${shown}${rest.slice(at)}`;
}

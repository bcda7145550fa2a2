/**
 * Keeping the API key out of everything the tool writes, in every form docs/masking.md lists. Two
 * strengths, because the user's own data must come out as it went in: `text` masks the whole key
 * wherever it is; `server` also masks any run of MIN_PIECE characters of it, for text that came from
 * the server, where an echo cut short at an excerpt limit still leaks most of a key. The encoded forms
 * are found by decoding the text into views that remember where each character came from; the key
 * is looked for in the views and masked in the text. JSON is masked inside its strings only, so that
 * `--json` stays JSON whatever the key is.
 */
import { maskKey } from '../settings/validate.js';

/**
 * The shortest piece of a key that is masked on its own in server text: ten characters of a random
 * key are ~60 bits of it, while shorter runs would mask ordinary text (a live key's `sk_live_` prefix
 * is eight).
 */
const MIN_PIECE = 10;

/** Hex digits per stretch: any run of 2 x MIN_PIECE digits of the key's hex holds one at a multiple of this. */
const HEX_STRETCH = MIN_PIECE;

/** The shortest run of a key's base64 that is masked on its own in server text (twelve bytes of it). */
const BASE64_PIECE = 16;

/**
 * Keys shorter than this are masked only where they stand alone (not inside a longer word or id):
 * masking `user` inside `user42` would hide ordinary data, and so short a key hides nothing anyway.
 */
const SHORT_KEY = 12;

/** How many times text is decoded: a key encoded twice (`%2573`, `&amp;#115;`) is still found. */
const DECODE_PASSES = 2;

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

/** A stretch of a form of the key that is looked for, with where it starts in the form. */
type Stretch = [start: number, text: string];

/** The key's base64 at one alignment: whole groups of key bytes, and how far the key reaches on either side. */
interface Base64Needle {
  text: string;
  /** Characters before `text` that still carry bits of the key (its group shared with earlier bytes). */
  before: number;
  /** Characters after `text` that still carry bits of the key. */
  after: number;
  alphabet: RegExp;
  /** The stretches of BASE64_PIECE characters a piece of it in server text is found by. */
  pieces: Stretch[];
}

/** A stretch of the text to mask; `whole` when it is a whole form of the key (masked as ••••abcd). */
type Range = [start: number, end: number, whole: boolean];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Lower-cases ASCII letters only, keeping every character where it was. */
function asciiLower(text: string): string {
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** The stretches of `form` that are `length` long and start every `step` characters. */
function stretches(form: string, length: number, step = 1): Stretch[] {
  const result: Stretch[] = [];
  for (let s = 0; s + length <= form.length; s += step) result.push([s, form.slice(s, s + length)]);
  return result;
}

function base64Needles(key: string): Base64Needle[] {
  const needles: Base64Needle[] = [];
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
      if (needles.some((needle) => needle.text === text)) continue;
      const pieces = stretches(text, BASE64_PIECE, Math.max(1, text.length - BASE64_PIECE));
      needles.push({ text, alphabet, pieces, ...around });
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
  /** The hex with its bytes apart (`73:6b:5f`, `73-6b-5f`, `73 6b 5f`), and how it starts with each separator. */
  readonly hexApart: RegExp;
  readonly apart: string[];
  /**
   * The lowered key JSON-escaped and percent-encoded, where that changes it: a key holding `"`, `\`
   * or `%` is looked for so in the text as it is, since decoding all escapes at once changes the key too.
   */
  readonly literal: string[];
  /** Runs of MIN_PIECE characters of the lowered key (any piece in server text holds one). */
  readonly pieces: Stretch[];
  /** Stretches of the hex at every HEX_STRETCH digits (any hex piece in server text holds one). */
  readonly hexPieces: Stretch[];
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
    this.literal = [...new Set([JSON.stringify(this.lower).slice(1, -1), asciiLower(encodeURIComponent(key))])].filter(
      (f) => f !== this.lower,
    );
    this.base64 = this.short ? [] : base64Needles(key);
    this.hex = Buffer.from(key, 'latin1').toString('hex');
    this.hexApart = new RegExp(this.hex.replace(/..(?!$)/g, '$&[-: ]'), 'g');
    this.apart = [':', '-', ' '].map((separator) => `${this.hex.slice(0, 2)}${separator}${this.hex.slice(2, 4)}`);
    // One case-insensitive search (wider than base64 needs: a net never narrower than the forms).
    const forms = [this.lower, ...this.base64.map((n) => n.text)].map(escapeRegExp);
    this.#maybe = new RegExp([...forms, this.hex, ...this.apart, '%', '\\\\', '&'].join('|'), 'i');
    this.#shortest = Math.min(key.length, ...this.base64.map((n) => n.text.length));
    this.pieces = this.short ? [] : stretches(this.lower, MIN_PIECE);
    this.hexPieces = this.short ? [] : stretches(this.hex, HEX_STRETCH, HEX_STRETCH);
    if (this.short) return;
    // A run of MIN_PIECE characters of the key holds one of its five-character stretches that start
    // at a multiple of five; a hex piece one of the hex's stretches; a base64 piece starts or ends with
    // eight of its needle's characters. Looking for those few (in any case: a wider net, never a
    // narrower one) rules out most text at once.
    const anchors = [
      ...stretches(this.lower, 5, 5).map(([, text]) => text),
      ...this.hexPieces.map(([, text]) => text),
      ...this.base64.flatMap((n) => (n.text.length >= BASE64_PIECE ? [n.text.slice(0, 8), n.text.slice(-8)] : [])),
    ];
    this.#maybePiece = new RegExp([...new Set(anchors)].map(escapeRegExp).concat('%', '\\\\', '&').join('|'), 'i');
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
  /** Whether decoding made an escape character, so that another pass may find more. */
  again?: boolean;
  /**
   * The text as it is beside its decoded views: only the key itself (raw, JSON-escaped,
   * percent-encoded) and its pieces are looked for here, for a key holding `%`, `\` or `&`.
   */
  raw?: boolean;
}

const [PERCENT, BACKSLASH, U, X, AMPERSAND, SEMICOLON] = [0x25, 0x5c, 0x75, 0x78, 0x26, 0x3b];

/**
 * HTML's named character references for the characters a key can hold (printable ASCII), each name
 * before its character: the XML five, and HTML5's names for the rest of ASCII punctuation.
 */
const NAMES = `
  amp & lt < gt > quot " apos '
  excl ! num # dollar $ percnt % lpar ( rpar ) ast * midast * plus + comma , period . sol / colon : semi ;
  equals = quest ? commat @ lsqb [ lbrack [ bsol \\ rsqb ] rbrack ] hat ^ lowbar _ underbar _
  grave \` diacriticalgrave \` lcub { lbrace { verbar | vert | verticalline | rcub } rbrace } tilde ~
  dash \u2010 hyphen \u2010 nbsp \u00a0`
  .split(/[ \n]+/)
  .filter(Boolean); // not trim(), which would take the nbsp
const NAMED = new Map<string, number>();
for (let i = 0; i < NAMES.length; i += 2) NAMED.set(NAMES[i]!, NAMES[i + 1]!.charCodeAt(0));
/** The names also read without their `;`, as browsers read them. */
const LOOSE = new Set(['amp', 'lt', 'gt', 'quot']);
/**
 * A character reference after `&`: hexadecimal, decimal (at most eight digits) or named, and its `;`
 * (or not).
 */
const REFERENCE_AT = /#[xX]([0-9a-fA-F]{1,8})|#(\d{1,8})|([A-Za-z]{2,20})/y;

/** The character reference at `at` (which holds `&`) as [code unit, length], or undefined. */
function referenceAt(text: string, at: number): [unit: number, length: number] | undefined {
  REFERENCE_AT.lastIndex = at + 1;
  const m = REFERENCE_AT.exec(text);
  if (!m) return undefined;
  const closed = text.charCodeAt(at + 1 + m[0].length) === SEMICOLON;
  const length = m[0].length + (closed ? 2 : 1);
  if (m[3] === undefined) {
    const value = m[1] === undefined ? Number(m[2]) : parseInt(m[1], 16);
    // Only what one code unit holds: a key is ASCII, and the view keeps one unit per character.
    return value > 0xffff ? undefined : [value, length];
  }
  const name = m[3].toLowerCase();
  const unit = NAMED.get(name);
  if (unit === undefined || (!closed && !LOOSE.has(name))) return undefined;
  return [unit, length];
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

/** `text` decoded once; `outer` says where each of its characters came from in the original text. */
function decodeOnce(text: string, references: boolean, outer: Int32Array | undefined): View {
  // Code units and offsets in typed arrays, turned into a string in one go: a megabyte of escapes
  // is decoded in milliseconds, not in a million small strings.
  const units = new Uint16Array(text.length);
  const at = new Int32Array(text.length + 1);
  let n = 0;
  let again = false;
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
    // An escape that stands for `%`, `\` or `&` may start another: the text is decoded again.
    if (length > 1 && (unit === PERCENT || unit === BACKSLASH || unit === AMPERSAND)) again = true;
    units[n] = unit;
    at[n] = outer ? outer[i]! : i;
    i += length;
  }
  at[n] = outer ? outer[text.length]! : text.length;
  const decoded = Buffer.from(units.buffer, 0, n * 2).toString('utf16le');
  return { text: decoded, lower: asciiLower(decoded), at, again };
}

/** The text decoded, and decoded again while escapes are left, up to DECODE_PASSES times: each pass a view. */
function decode(text: string, references: boolean): View[] {
  const passes: View[] = [];
  if (!ESCAPES.test(text)) return passes;
  let last: View = { text, lower: '', at: undefined, again: true };
  while (last.again && passes.length < DECODE_PASSES) {
    const next = decodeOnce(last.text, references, last.at);
    if (next.text === last.text) break;
    passes.push((last = next));
  }
  return passes;
}

/**
 * The views the key is looked for in: the text as it is, and when it holds escapes, each pass of
 * decoding them (a key that holds `%`, `\` or `&` itself is changed by a pass, so every pass is
 * searched); for a key holding `&`, also the passes that leave character references as they are.
 */
function views(text: string, secret: Secret): View[] {
  const plain: View = { text, lower: asciiLower(text), at: undefined };
  const decoded = decode(text, true);
  if (decoded.length === 0) return [plain];
  plain.raw = true;
  if (secret.ampersand && text.includes('&')) decoded.push(...decode(text, false));
  return [plain, ...decoded];
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
  if (!view.at) for (const form of secret.literal) eachAt(view.lower, form, (at) => add(at, at + form.length));
  if (view.raw) return;
  eachAt(view.lower, secret.hex, (at) => add(at, at + secret.hex.length));
  // The hex with its bytes apart is told by how it starts: a literal search is faster than the expression.
  if (secret.apart.some((start) => view.lower.includes(start))) {
    for (const m of view.lower.matchAll(secret.hexApart)) add(m.index, m.index + m[0].length);
  }
  for (const needle of secret.base64) {
    eachAt(view.text, needle.text, (at) => {
      let start = at;
      let end = at + needle.text.length;
      for (let n = 0; n < needle.before && start > 0 && needle.alphabet.test(view.text[start - 1]!); n++) start--;
      for (let n = 0; n < needle.after && end < view.text.length && needle.alphabet.test(view.text[end]!); n++) end++;
      add(start, end);
    });
  }
}

/** The ranges of `text` that are runs of MIN_PIECE or more characters of the key (or of its hex or base64). */
function pieceRanges(view: View, secret: Secret, ranges: Range[]): void {
  grownRuns(view.lower, secret.lower, secret.pieces, MIN_PIECE, view.at, ranges);
  if (view.raw) return;
  grownRuns(view.lower, secret.hex, secret.hexPieces, 2 * MIN_PIECE, view.at, ranges);
  for (const needle of secret.base64) grownRuns(view.text, needle.text, needle.pieces, BASE64_PIECE, view.at, ranges);
}

/**
 * Each place a stretch of `form` is in `haystack`, grown to the run of `form` around it, as a range
 * when the run is at least `minimum` long. The run grown from each alignment with the form (where it
 * would start) is kept: another stretch of the same alignment inside it would grow into the same run,
 * so a text of a thousand echoes stays linear.
 */
function grownRuns(haystack: string, form: string, found: Stretch[], minimum: number, map: Int32Array | undefined, ranges: Range[]): void {
  const grown = new Map<number, [number, number]>();
  for (const [s, stretch] of found) {
    eachAt(haystack, stretch, (at) => {
      const known = grown.get(at - s);
      if (known && known[0] <= at && at + stretch.length <= known[1]) return;
      let start = at;
      let end = at + stretch.length;
      for (let k = s - 1; k >= 0 && start > 0 && haystack[start - 1] === form[k]; k--) start--;
      for (let k = s + stretch.length; k < form.length && end < haystack.length && haystack[end] === form[k]; k++) end++;
      grown.set(at - s, [start, end]);
      if (end - start < minimum) return;
      const whole = end - start === form.length;
      ranges.push(map ? [map[start]!, map[end]!, whole] : [start, end, whole]);
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
    return this.#mask(input, false);
  }

  /** Text that came from the server: every form of the key, and every long enough piece of one, masked. */
  server(input: string): string {
    return this.#mask(input, true);
  }

  #mask(input: string, pieces: boolean): string {
    let text = input;
    for (const secret of this.#secrets) {
      const whole = secret.mayHold(text);
      const piece = pieces && !secret.short && secret.mayHoldPiece(text);
      if (!whole && !piece) continue;
      const ranges: Range[] = [];
      for (const view of views(text, secret)) {
        if (whole) wholeRanges(text, view, secret, ranges);
        if (piece) pieceRanges(view, secret, ranges);
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

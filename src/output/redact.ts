/**
 * Keeping the API key out of everything the tool writes, in every form docs/masking.md lists. Two strengths, because the user's own data
 * must come out as it went in: `text` masks the whole key wherever it is; `server` also masks any long enough run of it, for text that came
 * from the server, where an echo cut short at an excerpt limit still leaks most of a key. The encoded forms are found by decoding the text
 * into views that remember where each character came from; each form of the key in the table a Secret holds is looked for in the views and
 * masked in the text. JSON is masked inside its strings only, so that `--json` stays JSON whatever the key is.
 */
import { maskKey } from '../settings/validate.js';

/**
 * The shortest piece of a key masked on its own in server text: ten characters of a random key are ~60 bits, while shorter runs would mask
 * ordinary text (a live key's `sk_live_` prefix is eight). Of its hex, twice as many digits; of its base64, BASE64_PIECE characters.
 */
const MIN_PIECE = 10;

const BASE64_PIECE = 16; // The shortest run of a key's base64 that is masked on its own in server text (twelve bytes of it).

/** A key shorter than this is masked only where it stands alone: `user` in `user42` is ordinary data (and so short a key hides nothing). */
const SHORT_KEY = 12;

const CUT = /\u2026[^]{0,100}? \(\d[\d,]* characters\)/; // excerpt.ts's 'start…end' (N characters): a key typed in the wrong place, cut
const DECODE_PASSES = 2; // How many times text is decoded: a key encoded twice (`%2573`, `&amp;#115;`) is still found.

/** Masks the key and its pieces in text that came from the server (Output.serverMask gives one). */
export type ServerMask = Pick<Redactor, 'server' | 'serverJson'>;

const WORD = /[A-Za-z0-9_-]/;
const ESCAPES = /[%\\&]/;
const MEMBER_OR_STRING = /"(?:[^"\\]|\\.)*"(\s*:)?/g; // A JSON string, and the colon after it when it is a member name.

type Stretch = [start: number, text: string]; // A stretch of a form of the key that is looked for, with where it starts in the form.

/**
 * One form of the key, and how it is looked for. Every form is found whole; one with `minPiece` also as a run of that many characters in
 * server text, through its `stretches`: such a run holds one of the stretches of minPiece / 2 that start at a multiple of that.
 */
interface Form {
  text: string;
  anyCase: boolean; // Looked for in the lowered view (any letter case), else with case kept (base64).
  /** Characters before and after it, of `alphabet`, that still carry bits of the key (base64's groups). */
  before: number;
  after: number;
  alphabet: RegExp | undefined;
  minPiece: number;
  stretches: Stretch[];
  /** Found by this expression, not its text, once one of `starts` is in the view: the hex with any of `:`, `-` or space between bytes. */
  pattern?: { expression: RegExp; starts: string[] };
}

/** A stretch of the text to mask; `whole` when it is a whole form of the key (masked as ••••abcd). */
type Range = [start: number, end: number, whole: boolean];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Lower-cases ASCII letters only, keeping every character where it was. */
function asciiLower(text: string): string {
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** A form, with its stretches of minPiece / 2 characters starting every minPiece / 2 when it has pieces. */
function form(text: string, minPiece = 0, more: Partial<Form> = {}): Form {
  const half = minPiece / 2;
  const stretches: Stretch[] = [];
  for (let s = 0; half > 0 && s + half <= text.length; s += half) stretches.push([s, text.slice(s, s + half)]);
  return { text, anyCase: true, before: 0, after: 0, alphabet: undefined, minPiece, stretches, ...more };
}

const BASE64_ALPHABETS = [['base64', /[A-Za-z0-9+/]/] as const, ['base64url', /[A-Za-z0-9_-]/] as const];

/** The key's base64 and base64url at each alignment: whole groups of key bytes, and how far the key reaches on either side. */
function base64Forms(key: string): Form[] {
  const forms: Form[] = [];
  // `lead` key bytes share a group with bytes before the key: 0, 2 or 1 of them.
  for (const lead of [0, 2, 1]) {
    const whole = Math.floor((key.length - lead) / 3) * 3;
    if (whole < 3) continue;
    const bytes = Buffer.from(key.slice(lead, lead + whole), 'latin1');
    const rest = key.length - lead - whole;
    const around = { anyCase: false, before: lead === 0 ? 0 : lead + 1, after: rest === 0 ? 0 : rest + 1 };
    for (const [encoding, alphabet] of BASE64_ALPHABETS) {
      const text = bytes.toString(encoding); // whole groups: no padding
      if (!forms.some((f) => f.text === text)) forms.push(form(text, BASE64_PIECE, { alphabet, ...around }));
    }
  }
  return forms;
}

class Secret {
  readonly mask: string;
  readonly short: boolean;
  /**
   * The key lowered (looked for in lowered views, so any letter case matches); JSON-escaped and percent-encoded where that changes it (a
   * key holding `"`, `\` or `%` is looked for so in the text as it is, since decoding changes the key too); its bytes in hex, also with the
   * bytes apart (`73:6b:5f`, `73-6b 5f`: any of the three between each two); and, for a key long enough, its base64.
   */
  readonly forms: Form[];
  readonly #maybe: RegExp; // Matches wherever a whole form might be: any form in any case, or an escape.
  readonly #maybePiece: RegExp | undefined; // Matches wherever a piece might be (in server text).
  readonly #shortest: number; // The length of the shortest whole form: shorter text holds none.

  constructor(readonly key: string) {
    this.mask = maskKey(key);
    this.short = key.length < SHORT_KEY;
    const lower = asciiLower(key);
    const hex = Buffer.from(key, 'latin1').toString('hex');
    const literal = new Set([JSON.stringify(lower).slice(1, -1), asciiLower(encodeURIComponent(key))]);
    literal.delete(lower);
    this.forms = [
      form(lower, this.short ? 0 : MIN_PIECE),
      ...[...literal].map((text) => form(text)),
      form(hex, this.short ? 0 : 2 * MIN_PIECE),
      form(hex.replace(/..(?!$)/g, '$&:'), 0, {
        pattern: {
          expression: new RegExp(hex.replace(/..(?!$)/g, '$&[-: ]'), 'g'),
          starts: [':', '-', ' '].map((separator) => `${hex.slice(0, 2)}${separator}${hex.slice(2, 4)}`),
        },
      }),
      ...(this.short ? [] : base64Forms(key)),
    ];
    // Case-insensitive searches: wider than base64 needs, a net never narrower than the forms.
    const net = (texts: string[]) => new RegExp([...new Set(texts)].map(escapeRegExp).concat('%', '\\\\', '&').join('|'), 'i');
    this.#maybe = net(this.forms.flatMap((f) => f.pattern?.starts ?? f.text));
    this.#shortest = Math.min(...this.forms.map((f) => f.text.length));
    const anchors = this.forms.flatMap((f) => f.stretches.map(([, text]) => text));
    this.#maybePiece = anchors.length > 0 ? net(anchors) : undefined;
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
  text: string; // Decoded, letters as they were (base64 is looked for here).
  lower: string; // Decoded, ASCII letters lowered (the key is looked for here).
  /** Where decoded character i starts in the text, and (at the end) the text's length; undefined when nothing was decoded. */
  at: Int32Array | undefined;
  again?: boolean; // Whether decoding made an escape character, so that another pass may find more.
}

const [PERCENT, BACKSLASH, U, X, AMPERSAND, SEMICOLON] = [0x25, 0x5c, 0x75, 0x78, 0x26, 0x3b];

/** HTML's named references for printable ASCII (what a key holds), name then character: XML's five, HTML5's rest, an error page's few. */
const NAMES = `
  amp & lt < gt > quot " apos '
  excl ! num # dollar $ percnt % lpar ( rpar ) ast * midast * plus + comma , period . sol / colon : semi ;
  equals = quest ? commat @ lsqb [ lbrack [ bsol \\ rsqb ] rbrack ] hat ^ lowbar _ underbar _
  grave \` diacriticalgrave \` lcub { lbrace { verbar | vert | verticalline | rcub } rbrace } tilde ~
  dash \u2010 hyphen \u2010 nbsp \u00a0 copy \u00a9 mdash \u2014 ndash \u2013 hellip \u2026`
  .split(/[ \n]+/)
  .filter(Boolean); // not trim(), which would take the nbsp
const NAMED = new Map<string, number>();
for (let i = 0; i < NAMES.length; i += 2) NAMED.set(NAMES[i]!, NAMES[i + 1]!.charCodeAt(0));
const LOOSE = new Set(['amp', 'lt', 'gt', 'quot']); // The names also read without their `;`, as browsers read them.
/** A character reference after `&`: hexadecimal, decimal (at most eight digits) or named, and its `;` (or not). */
const REFERENCE_AT = /#[xX]([0-9a-fA-F]{1,8})|#(\d{1,8})|([A-Za-z]{2,20})/y;

/** The character reference at `at` (which holds `&`) as [code point, length], or undefined. */
function referenceAt(text: string, at: number): [code: number, length: number] | undefined {
  REFERENCE_AT.lastIndex = at + 1;
  const m = REFERENCE_AT.exec(text);
  if (!m) return undefined;
  const closed = text.charCodeAt(at + 1 + m[0].length) === SEMICOLON;
  const length = m[0].length + (closed ? 2 : 1);
  if (m[3] === undefined) {
    const value = m[1] === undefined ? Number(m[2]) : parseInt(m[1], 16);
    return value > 0x10ffff ? undefined : [value, length];
  }
  const name = m[3].toLowerCase();
  const unit = NAMED.get(name);
  return unit === undefined || (!closed && !LOOSE.has(name)) ? undefined : [unit, length];
}

/** Text with its character references decoded, as a browser shows it (an error page's words). */
export function decodeReferences(text: string): string {
  return text.replace(/&(?:#[xX][0-9a-fA-F]{1,8}|#\d{1,8}|[A-Za-z]{2,20});?/g, (reference: string, at: number) => {
    const code = referenceAt(text, at)?.[0];
    return code ? String.fromCodePoint(code) : reference;
  });
}

/** What follows a backslash in a JSON escape, by code unit, and the code unit it stands for. */
const SHORT_ESCAPES: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 8, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9 };

const HEX_DIGITS = /^[0-9a-fA-F]+$/;

/** The value of `length` hex digits at `at`, or -1. */
function hexAt(text: string, at: number, length: number): number {
  const digits = text.slice(at, at + length);
  return digits.length === length && HEX_DIGITS.test(digits) ? parseInt(digits, 16) : -1;
}

/** `text` decoded once; `outer` says where each of its characters came from in the original text. */
function decodeOnce(text: string, references: boolean, outer: Int32Array | undefined): View {
  // Code units and offsets in typed arrays, made a string in one go: a megabyte of escapes decodes in milliseconds, not a million strings.
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
      // Only what one code unit holds: a key is ASCII, and the view keeps one unit per character.
      if (reference && reference[0] <= 0xffff) [unit, length] = reference;
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
 * The views the key is looked for in: the text as it is, and when it holds escapes, each decoding pass (a key holding `%`, `\` or `&`
 * itself is changed by a pass, so each pass is searched); for a key holding `&`, also passes that leave character references as they are,
 * since a key holding `&lt;` would otherwise be decoded away wherever it is mixed with escapes.
 */
function views(text: string, secret: Secret): View[] {
  const decoded = decode(text, true);
  if (secret.key.includes('&') && text.includes('&')) decoded.push(...decode(text, false));
  return [{ text, lower: asciiLower(text), at: undefined }, ...decoded];
}

/** Calls `found` with every place `needle` is in `haystack`. */
function eachAt(haystack: string, needle: string, found: (at: number) => void): void {
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) found(at);
}

/** The ranges of `text` where a form of the key stands in `view`: each whole form, and with `pieces` each run of minPiece or more. */
function formRanges(text: string, view: View, secret: Secret, pieces: boolean, ranges: Range[]): void {
  const add = (start: number, end: number, whole = true) => {
    const [from, to] = view.at ? [view.at[start]!, view.at[end]!] : [start, end];
    // A short key counts only where it stands alone, so that `user` leaves `user42` alone.
    if (secret.short && (WORD.test(text[from - 1] ?? '') || WORD.test(text[to] ?? ''))) return;
    ranges.push([from, to, whole]);
  };
  for (const form of secret.forms) {
    const haystack = form.anyCase ? view.lower : view.text;
    if (form.pattern) {
      if (!form.pattern.starts.some((start) => haystack.includes(start))) continue;
      for (const m of haystack.matchAll(form.pattern.expression)) add(m.index, m.index + m[0].length);
      continue;
    }
    if (pieces && form.minPiece > 0) grownRuns(haystack, form, add);
    eachAt(haystack, form.text, (at) => {
      let start = at;
      let end = at + form.text.length;
      for (let n = 0; n < form.before && start > 0 && form.alphabet!.test(haystack[start - 1]!); n++) start--;
      for (let n = 0; n < form.after && end < haystack.length && form.alphabet!.test(haystack[end]!); n++) end++;
      add(start, end);
    });
  }
}

/**
 * Each place a stretch of `form` is in `haystack`, grown to the run of `form` around it, added when the run is at least its minPiece long
 * (whole when it is the whole form). The run grown from each alignment with the form (where it would start) is kept: another stretch of the
 * same alignment inside it would grow into the same run, so a text of a thousand echoes stays linear.
 */
function grownRuns(haystack: string, { text: form, stretches, minPiece }: Form, add: (s: number, e: number, whole: boolean) => void): void {
  const grown = new Map<number, [number, number]>();
  for (const [s, stretch] of stretches) {
    eachAt(haystack, stretch, (at) => {
      const known = grown.get(at - s);
      if (known && known[0] <= at && at + stretch.length <= known[1]) return;
      let start = at;
      let end = at + stretch.length;
      for (let k = s - 1; k >= 0 && start > 0 && haystack[start - 1] === form[k]; k--) start--;
      for (let k = s + stretch.length; k < form.length && end < haystack.length && haystack[end] === form[k]; k++) end++;
      grown.set(at - s, [start, end]);
      if (end - start >= minPiece) add(start, end, end - start === form.length);
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

export class Redactor {
  readonly #secrets: Secret[] = [];

  constructor(secret?: string) {
    this.add(secret);
  }

  add(secret: string | undefined): void {
    const key = secret?.trim();
    if (!key || this.#secrets.some((s) => s.key === key)) return;
    this.#secrets.push(new Secret(key));
    this.#secrets.sort((a, b) => b.key.length - a.key.length); // a key inside another (--api-key K1 beside $K) is masked after it
  }

  /** Text with every form of the whole key masked: for anything written, the user's own data included; pieces too in an excerpt. */
  text(input: string): string {
    return this.#mask(input, CUT.test(input));
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
      for (const view of views(text, secret)) formRanges(text, view, secret, piece, ranges);
      text = applyRanges(text, ranges, secret.mask);
    }
    return text;
  }

  /**
   * One line of JSON the tool made, with the key masked in its string values, each re-encoded as a JSON string. Nothing else is touched
   * (not `true`, not a number, not the tool's own member names, which a short key such as `ok` could equal), so the line stays the same
   * JSON. What the server sent, member names included, is masked by serverJson before it is placed in the line.
   */
  json(line: string): string {
    if (!this.#secrets.some((secret) => secret.mayHold(line) || (CUT.test(line) && secret.mayHoldPiece(line)))) return line;
    return maskStrings(line, false, (text) => this.text(text));
  }

  /** JSON text from the server, masked as server text in its strings and member names: it stays the same JSON. */
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

/** A proxy URL as shown: its password masked (`http://alice:••••@proxy:3128`); a user part without one, a lone token, masked whole. */
export function maskProxyCredentials(proxy: string): string {
  // Up to the last `@`, also when a password holds a raw `/` or `@` (a proxy has no path); the user is up to the first `:`.
  return proxy.replace(/^([a-z][a-z0-9+.-]*:\/\/)?(?:([^:]*):)?.*@/is, (_, scheme = '', user?: string) =>
    user === undefined ? `${scheme}••••@` : `${scheme}${user}:••••@`,
  );
}

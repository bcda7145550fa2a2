/** Building the one request the service knows: pure functions, no I/O. */
import { UsageError } from '../errors.js';
import { excerpt, quotedExcerpt } from '../output/excerpt.js';
import { VERSION } from '../version.js';

export const USER_AGENT = `trigger-cli/${VERSION} node/${process.versions.node}`;

/**
 * The headers of every request, in the order sent: the one table the client sends from and the dry run (its JSON and its curl command)
 * shows. `authorization` carries what it is given: the key for the client, the masked key or `$TRIGGER_API_KEY` for display.
 */
export function requestHeaders(authorization: string, traceparent?: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${authorization}`,
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': USER_AGENT,
  };
  if (traceparent) headers.traceparent = traceparent;
  return headers;
}

/** A value as it goes on the wire: the JSON number text, built from the digits the user typed. */
export interface EventValue {
  /** JSON number text, e.g. "9.99", "12345678901234567890", "0.5". */
  readonly json: string;
}

export interface EventInput {
  triggerId: string;
  userId: string;
  /** A decimal string as typed ("9.99", "+2", ".5", "1e3"), a finite number, or a bigint. */
  value?: string | number | bigint | undefined;
}

/** An event from prepareEvent only: the client knows one by its PREPARED brand, as a caller's row may hold a `path` of its own. */
export interface PreparedEvent {
  triggerId: string;
  userId: string;
  value: EventValue | undefined;
  /** Path below the base URL's own path: /v1/triggers/{t}/users/{u}/events */
  path: string;
  body: string;
}

// Decimal number as a person types it; hex, "1,5", "NaN", "Infinity" and trailing junk do not match.
export const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Text that is already a JSON number without an exponent, and surely within a double's range. */
const PLAIN_JSON_NUMBER = /^-?(?:0|[1-9]\d{0,299})(?:\.\d{1,300})?$/;

/**
 * Parses a decimal number the user typed into JSON number text without going through a double, so that "12345678901234567890" reaches the
 * server as typed. Throws UsageError for anything that is not a finite decimal within the range of a double.
 */
export function parseValue(raw: string, label = '--value'): EventValue {
  if (PLAIN_JSON_NUMBER.test(raw)) return { json: raw }; // the usual value, at batch rates
  const text = raw.trim();
  const m = DECIMAL.exec(text);
  const intPart = m?.[2] ?? '';
  const fracPart = m?.[3];
  if (!m || (intPart === '' && (fracPart === undefined || fracPart === '')))
    throw new UsageError(`${label} must be a decimal number such as 9.99, -3 or 1e3; got ${quotedExcerpt(raw)}`);
  const sign = m[1] === '-' ? '-' : '';
  const asDouble = Number(text); // what a double makes of it, to check its range
  if (!Number.isFinite(asDouble)) throw new UsageError(`${label} ${excerpt(raw)} is beyond the range of a double-precision number`);
  const digits = `${intPart}${fracPart ?? ''}`;
  if (asDouble === 0 && /[1-9]/.test(digits))
    throw new UsageError(`${label} ${excerpt(raw)} is too small to represent as a double-precision number`);
  // JSON forbids a leading "+", leading zeros, and a bare "." on either side of the digits.
  const int = intPart.replace(/^0+(?=\d)/, '') || '0';
  const frac = fracPart ? `.${fracPart}` : '';
  const exp = m[4] === undefined ? '' : `e${m[4]}`;
  return { json: `${sign}${int}${frac}${exp}` };
}

/** A value given as a string (parsed as --value is), a number (a library caller's, or JSON's) or a bigint. */
export function valueFromInput(value: string | number | bigint, label = '--value'): EventValue {
  if (typeof value === 'string') return parseValue(value, label);
  if (typeof value === 'bigint') return { json: String(value) }; // every digit, as a string's
  if (!Number.isFinite(value)) throw new UsageError(`value must be a finite number; got ${String(value)}`);
  return { json: JSON.stringify(value) };
}

const NUMBER_AT = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The digits of the top-level "value" member as they appear in JSON text. JSON.parse turns 12345678901234567890 into 12345678901234567000;
 * this finds the text that parsed to `value`, so the digits survive. Only members of the outermost object count (a nested "value" is
 * another field's), and the last one wins, as in JSON.parse.
 */
export function valueTextIn(jsonText: string, value: number, member = 'value'): string {
  let found: string | undefined;
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < jsonText.length; i++) {
    const c = jsonText.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = i + 1;
      while (jsonText.charCodeAt(end) !== 0x22) end += jsonText.charCodeAt(end) === 0x5c ? 2 : 1;
      if (depth === 1 && expectKey) {
        expectKey = false;
        const raw = jsonText.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (key === member) {
          let at = end + 1;
          while (/[\s:]/.test(jsonText[at] ?? '')) at++;
          NUMBER_AT.lastIndex = at;
          found = NUMBER_AT.exec(jsonText)?.[0];
        }
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth++;
      expectKey = depth === 1 && c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    } else if (c === 0x2c /* , */ && depth === 1) {
      expectKey = true;
    }
  }
  return found !== undefined && Number(found) === value ? found : JSON.stringify(value);
}

const SAFE_SEGMENT = /^(?!\.+$)[A-Za-z0-9_.~-]+$/;

/**
 * Percent-encodes one path segment. Every reserved character is encoded, and a segment of only
 * dots has its dots encoded as well, so "." and ".." can never act as dot-segments.
 */
export function encodeSegment(segment: string, name: string): string {
  // A JavaScript caller's id can be anything: a misspelt property's undefined would match SAFE_SEGMENT and record events for "undefined".
  if (typeof segment !== 'string') throw new UsageError(`${name} must be a string; got ${gotType(segment)}`);
  if (SAFE_SEGMENT.test(segment)) return segment; // the common case, at batch rates
  if (segment.length === 0) throw new UsageError(`${name} must not be empty`);
  if (!segment.isWellFormed()) throw new UsageError(`${name} contains invalid Unicode (an unpaired surrogate); it cannot be sent`);
  // Node reads argv and text with U+FFFD for bytes that are not UTF-8: it stands for lost bytes; sent, it records another user's event.
  if (segment.includes('\uFFFD')) {
    const message = `${name} is not valid UTF-8 text (it holds U+FFFD, the mark of bytes that could not be read); it cannot be sent`;
    throw new UsageError(message, { hint: 'give the id as UTF-8 text' });
  }
  const encoded = encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return /^\.+$/.test(encoded) ? encoded.replaceAll('.', '%2E') : encoded;
}

export const eventPath = (triggerId: string, userId: string): string =>
  `/v1/triggers/${encodeSegment(triggerId, 'triggerId')}/users/${encodeSegment(userId, 'userId')}/events`;

/** What a JavaScript caller gave where the types ask for a string: "undefined", "null", "a number", "an object". */
export const gotType = (v: unknown): string => (v == null ? String(v) : `${typeof v === 'object' ? 'an' : 'a'} ${typeof v}`);

/** The event to send; `label` names a bad value: the flag for `fire`, the property (`value`) for the library's client (audit24). */
export function prepareEvent(input: EventInput, label = '--value'): PreparedEvent {
  const { triggerId, userId, value } = Object(input) as EventInput; // no event at all: its ids are missing
  return eventOf(triggerId, userId, value === undefined ? undefined : valueFromInput(value, label));
}

const PREPARED = Symbol('prepared event');
export const isPrepared = (input: unknown): input is PreparedEvent => (input as { [PREPARED]?: true } | null)?.[PREPARED] === true;
/** The event for a value already parsed (a batch row's). */
export function eventOf(triggerId: string, userId: string, value: EventValue | undefined): PreparedEvent {
  const body = value === undefined ? '{}' : `{"value":${value.json}}`;
  return { triggerId, userId, value, path: eventPath(triggerId, userId), body, [PREPARED]: true } as PreparedEvent;
}

/**
 * A W3C Trace Context traceparent (version-traceid-parentid-flags, lowercase hex), as CI systems and
 * otel-cli set TRACEPARENT; undefined when it is not one (version ff, or an all-zero id, is invalid).
 */
export function parseTraceparent(value: string | undefined): string | undefined {
  const text = value?.trim().toLowerCase();
  const match = text ? /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(text) : null;
  if (!match || match[1] === 'ff' || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return undefined;
  if (match[1] === '00' && match[5] !== undefined) return undefined; // version 00 has exactly four parts
  return text;
}

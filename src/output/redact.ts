/**
 * Keeping the API key out of everything the tool writes. A key is found in any form a server or a
 * URL may give it back in: raw, JSON-escaped, percent-encoded, and as a piece of any of those long
 * enough to matter (an echo cut short at an excerpt limit still leaks most of a key).
 *
 * JSON is redacted inside its string values only (redactJson), so that `--json` stays JSON whatever
 * the key is: with the key `true`, `"ok":true` is left alone.
 */
import { maskKey } from '../settings/validate.js';

/**
 * The shortest piece of a key that is masked on its own: ten characters of a random key are ~60
 * bits of it, while shorter runs would mask ordinary text (a live key's `sk_live_` prefix is eight).
 */
export const MIN_PIECE = 10;

/**
 * Keys shorter than this are masked only where they stand alone (not inside a longer word or id):
 * masking `user` inside `user42` would hide ordinary data, and so short a key hides nothing anyway.
 */
export const SHORT_KEY = 12;

const WORD = /[A-Za-z0-9_-]/;

interface Secret {
  key: string;
  mask: string;
  /** The key as it may appear in text: raw, JSON-escaped, percent-encoded (both hex cases). */
  forms: string[];
}

function formsOf(key: string): string[] {
  const forms = new Set([key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key)]);
  forms.add(encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  return [...forms];
}

export class Redactor {
  readonly #secrets: Secret[] = [];

  add(secret: string | undefined): void {
    const key = secret?.trim();
    if (!key || this.#secrets.some((s) => s.key === key)) return;
    this.#secrets.push({ key, mask: maskKey(key), forms: formsOf(key) });
  }

  get empty(): boolean {
    return this.#secrets.length === 0;
  }

  /** Text with every form of every key, and every long enough piece of one, masked. */
  text(input: string): string {
    let text = input;
    for (const secret of this.#secrets) text = secret.key.length < SHORT_KEY ? maskShort(text, secret) : maskLong(text, secret);
    return text;
  }

  /**
   * One line of JSON with its string values redacted, re-encoded as JSON: nothing outside a string
   * value is touched (not `true`, not a member name), so the line stays the same JSON.
   */
  json(line: string): string {
    if (this.empty || this.text(line) === line) return line;
    return line.replace(/"(?:[^"\\]|\\.)*"(\s*:)?/g, (literal, colon: string | undefined) => {
      if (colon !== undefined) return literal; // a member name
      const value = JSON.parse(literal) as string;
      const redacted = this.text(value);
      return redacted === value ? literal : JSON.stringify(redacted);
    });
  }
}

/** A short key: whole occurrences of a form that stand alone. */
function maskShort(text: string, secret: Secret): string {
  let result = text;
  for (const form of secret.forms) {
    let from = 0;
    for (let at = result.indexOf(form, from); at >= 0; at = result.indexOf(form, from)) {
      const end = at + form.length;
      const alone = !WORD.test(result[at - 1] ?? '') && !WORD.test(result[end] ?? '');
      if (alone) {
        result = result.slice(0, at) + secret.mask + result.slice(end);
        from = at + secret.mask.length;
      } else {
        from = at + 1;
      }
    }
  }
  return result;
}

/** A long key: every run of MIN_PIECE or more characters that some form of the key also has. */
function maskLong(text: string, secret: Secret): string {
  if (text.length < MIN_PIECE) return text;
  const ranges: Array<[number, number]> = [];
  for (const form of secret.forms) {
    for (let s = 0; s + MIN_PIECE <= form.length; s++) {
      const needle = form.slice(s, s + MIN_PIECE);
      for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
        // Grow the match both ways while it goes on following the key.
        let start = at;
        let end = at + MIN_PIECE;
        for (let k = s - 1; k >= 0 && start > 0 && text[start - 1] === form[k]; k--) start--;
        for (let k = s + MIN_PIECE; k < form.length && end < text.length && text[end] === form[k]; k++) end++;
        ranges.push([start, end]);
      }
    }
  }
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let result = '';
  let last = 0;
  for (const [start, end] of ranges) {
    if (end <= last) continue;
    const from = Math.max(start, last);
    result += text.slice(last, from);
    const whole = secret.forms.includes(text.slice(from, end));
    if (!result.endsWith(secret.mask) && !result.endsWith('••••')) result += whole ? secret.mask : '••••';
    last = end;
  }
  return result + text.slice(last);
}

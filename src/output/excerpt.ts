/** Input echoed in an error, cut: a 10,000-digit --value as its start, end and length, not a 10 KB line. Pure; callers quote or escape. */

export const MAX_ECHO = 64; // Echoed input longer than this many characters is cut.
const HEAD = 40;
const TAIL = 12;

/** Whether the code unit at `at` is the second half of a surrogate pair (a cut there would split a character). */
const splitsPair = (text: string, at: number) => (text.codePointAt(at - 1) ?? 0) > 0xffff;

/** `text` quoted (as a JSON string unless told) when short; else its start…end quoted and the length outside the quotes. */
export function quotedExcerpt(text: string, quote: (text: string) => string = JSON.stringify): string {
  if (text.length <= MAX_ECHO) return quote(text);
  const end = splitsPair(text, HEAD) ? HEAD - 1 : HEAD;
  const tail = text.length - TAIL;
  const start = splitsPair(text, tail) ? tail + 1 : tail;
  let length = 0;
  for (const _ of text) length++;
  return `${quote(`${text.slice(0, end)}…${text.slice(start)}`)} (${length.toLocaleString('en-US')} characters)`;
}

/** `text` as it is when short; else its start…its end (N characters). */
export const excerpt = (text: string): string => quotedExcerpt(text, (t) => t);

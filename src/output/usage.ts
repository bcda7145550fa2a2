/**
 * commander's usage errors in the tool's own words: one style (lower-case `error:`), saying what was wrong and what to type instead. A pure
 * function of commander's message, tested as a table (test/unit/usage.test.ts); cli.ts routes commander's error output through it.
 */
import { quotedExcerpt } from './excerpt.js';

/** A word the user typed, in single quotes, cut to an excerpt and its length when long. */
const typed = (text: string) => quotedExcerpt(text, (t) => `'${t}'`);

/** "a, b, c" as "a, b or c" (British English: no comma before "or"). */
const orList = (items: string[]) => new Intl.ListFormat('en-GB', { type: 'disjunction' }).format(items);

const choicesOf = (text: string): string[] => text.replace(/\.$/, '').split(', ');

/** Rewrites one commander message (it may end with a newline); anything else is returned as it is. */
export function usageWords(message: string): string {
  const end = message.endsWith('\n') ? '\n' : '';
  const text = message.replace(/\n$/, '');
  let m = /^error: command-argument value '(.*)' is invalid for argument '(.+)'\. Allowed choices are (.+)$/s.exec(text);
  if (m) return `error: ${m[2]} ${typed(m[1]!)} is not one trigger knows: use ${orList(choicesOf(m[3]!))}${end}`;
  m = /^error: option '(-[^ ']+)[^']*' argument '(.*)' is invalid\. Allowed choices are (.+)$/s.exec(text);
  if (m) return `error: ${m[1]} ${typed(m[2]!)} is not one of ${orList(choicesOf(m[3]!))}${end}`;
  m = /^error: option '(-[^ ']+)[^']*' argument '(.*)' is invalid\. (.+)$/s.exec(text);
  if (m) return `error: ${m[1]} ${typed(m[2]!)} is not valid: ${m[3]!.replace(/\.$/, '')}${end}`;
  m = /^error: option '(-[^ ']+) (<[^>]+>)' argument missing$/.exec(text);
  if (m) return `error: ${m[1]} needs a value: ${m[1]} ${m[2]}${end}`;
  m = /^error: too many arguments for '(.+)'\. Expected (\d+) (arguments?) but got (\d+)\.$/.exec(text);
  if (m)
    return `error: ${m[1]} takes ${m[2]!.replace(/^0$/, 'no')} ${m[3]}; got ${m[4]}${+m[2]! ? ' — quote a value with spaces in it' : ''}${end}`;
  // The version as other tools ask for it: commander suggests only among commands (not `-v`: fire's -v may mean --value).
  if (text === "error: unknown command 'version'") return `${text}\n(did you mean --version?)${end}`;
  m = /^(error: [^']*)'(.*)'([^']*)$/s.exec(text); // Anything else commander echoes ('unknown option', 'unknown command'): cut.
  if (m && m[2]!.length > 64) return `${m[1]}${typed(m[2]!)}${m[3]}${end}`;
  // commander adds its suggestion on a line of its own, in the same message or alone.
  return message.replace(/^\(Did you mean (.+)\?\)$/m, '(did you mean $1?)');
}

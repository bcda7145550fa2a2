import { expect } from 'vitest';

/**
 * Keys too short to be API keys (docs/choices.md), and how their refusal reads: for
 * test/e2e/short-keys.test.ts (keys on standard input) and test/in-process/shells-short-keys.test.ts.
 */

export const TOO_SHORT =
  /^error: the API key from .+ is (\d+) characters? long, too short to be an API key \(trigger needs 12 or more\); nothing was stored or sent/m;

export const keys = ['x', 'purchase', 'abcdefghijk']; // 1, 8 and 11 characters

/** Fails without echoing the key when it is in the text as a word of its own. */
export const expectNotEchoed = (text: string, key: string) => {
  if (new RegExp(`(^|[^\\w])${key}([^\\w]|$)`).test(text.replace(TOO_SHORT, ''))) throw new Error('the key was echoed');
};

/** A command refused for a short key: exit 2, the refusal naming the key's length, the key echoed nowhere. */
export function expectRefusedShort(result: { code: number | null; stdout: string; stderr: string }, key: string): void {
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(TOO_SHORT);
  expect(result.stderr.match(TOO_SHORT)?.[1]).toBe(String(key.length));
  expectNotEchoed(result.stderr, key);
  expectNotEchoed(result.stdout, key);
}

/**
 * commander's usage errors in the tool's words: a table of what commander says and what we print.
 */
import { describe, expect, it } from 'vitest';
import { usageWords } from '../../src/output/usage.js';

describe('usage errors in one style', () => {
  it.each([
    [
      "error: command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.\n",
      "error: shell 'tcsh' is not one trigger knows: use bash, zsh or fish\n",
    ],
    [
      "error: option '--format <format>' argument 'xml' is invalid. Allowed choices are csv, ndjson, lines.\n",
      "error: --format 'xml' is not one of csv, ndjson or lines\n",
    ],
    [
      "error: option '--timeout <seconds>' argument '0' is invalid. expected a number of seconds over 0 and up to 86400 (a day), e.g. 30 or 2.5\n",
      "error: --timeout '0' is not valid: expected a number of seconds over 0 and up to 86400 (a day), e.g. 30 or 2.5\n",
    ],
    ["error: option '--value <number>' argument missing\n", 'error: --value needs a value: --value <number>\n'],
    ['(Did you mean fire?)\n', '(did you mean fire?)\n'],
    ["error: unknown command 'frie'\n(Did you mean fire?)\n", "error: unknown command 'frie'\n(did you mean fire?)\n"],
    ["error: missing required argument 'userId'\n", "error: missing required argument 'userId'\n"],
    ["error: unknown option '--bogus'\n", "error: unknown option '--bogus'\n"],
    ["error: unknown command 'version'\n", "error: unknown command 'version'\n(did you mean --version?)\n"],
    ["error: too many arguments for 'status'. Expected 0 arguments but got 1.\n", 'error: status takes no arguments; got 1\n'],
    [
      "error: too many arguments for 'set-key'. Expected 1 argument but got 2.\n",
      'error: set-key takes 1 argument; got 2 — quote a value with spaces in it\n',
    ],
    [
      "error: option '--shell <name>' argument 'x' is invalid. Allowed choices are bash, zsh, fish.",
      "error: --shell 'x' is not one of bash, zsh or fish",
    ],
  ])('%j', (commander, ours) => {
    expect(usageWords(commander)).toBe(ours);
  });
});

/**
 * Option values, as commander hands them to the parsers: one table.
 */
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import * as parse from '../../src/commands/parsers.js';

describe('option parsers', () => {
  it.each([
    ['wholeNumber(1, 256)', '8', 8, parse.wholeNumber(1, 256)],
    ['wholeNumber(1, 256)', ' 256 ', 256, parse.wholeNumber(1, 256)],
    ['wholeNumber(0, 65535)', '0', 0, parse.wholeNumber(0, 65_535)],
    ['seconds', '2.5', 2.5, parse.seconds],
    ['seconds', '.5', 0.5, parse.seconds],
    ['rate', '200', 200, parse.rate],
    ['retries', '0', 0, parse.retries],
    ['fraction', '0.25', 0.25, parse.fraction],
    ['fraction', '1', 1, parse.fraction],
    ['shard', '2/4', { index: 2, count: 4 }, parse.shard],
  ] as const)('%s(%j) is %j', (_name, text, value, parser) => {
    expect((parser as (t: string) => unknown)(text)).toEqual(value);
  });

  it.each([
    ['wholeNumber(1, 256)', '0', 'expected a whole number from 1 to 256', parse.wholeNumber(1, 256)],
    ['wholeNumber(1, 256)', '2.5', 'expected a whole number from 1 to 256', parse.wholeNumber(1, 256)],
    ['wholeNumber(1, 256)', '0x10', 'expected a whole number from 1 to 256', parse.wholeNumber(1, 256)],
    ['seconds', '0', 'expected a number of seconds over 0 and up to 86400 (a day), e.g. 30 or 2.5', parse.seconds],
    ['seconds', '-1', 'expected a number of seconds over 0 and up to 86400 (a day), e.g. 30 or 2.5', parse.seconds],
    ['seconds', '1e3', 'expected a number of seconds over 0 and up to 86400 (a day), e.g. 30 or 2.5', parse.seconds],
    ['seconds', '86401', 'expected a number of seconds over 0 and up to 86400 (a day), e.g. 30 or 2.5', parse.seconds],
    ['rate', 'fast', 'expected a number of requests per second over 0 and up to 1000000, e.g. 50', parse.rate],
    ['retries', '101', 'expected a whole number from 0 to 100', parse.retries],
    ['fraction', '1.5', 'expected a share from 0 to 1, e.g. 0.25', parse.fraction],
    [
      'shard',
      '5/4',
      'expected i/n with 1 <= i <= n <= 10000, e.g. 2/4; got "5/4" (in a Kubernetes Indexed Job: --shard $((JOB_COMPLETION_INDEX + 1))/<completions>)',
      parse.shard,
    ],
  ] as const)('%s(%j) is refused: %s', (_name, text, message, parser) => {
    let error: unknown;
    try {
      (parser as (t: string) => unknown)(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toBe(message);
  });
});

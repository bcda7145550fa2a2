/**
 * Parsers for option values, as commander calls them: each returns the value or throws
 * InvalidArgumentError with what was expected (commander names the option and the value itself).
 */
import { InvalidArgumentError } from 'commander';
import { parseShard, type Shard } from '../batch/shard.js';

/** A decimal written plainly: 30, 2.5, .5 (no sign, no exponent, no hex). */
const PLAIN_DECIMAL = /^\d*\.?\d+$/;

/** A whole number from min to max. */
export function wholeNumber(min: number, max: number, expected = `a whole number from ${min} to ${max}`): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!/^\d+$/.test(text.trim()) || n < min || n > max) throw new InvalidArgumentError(`expected ${expected}`);
    return n;
  };
}

/** A decimal greater than 0 and at most max; `expected` says what it is, e.g. "a number of seconds". */
export function positiveNumber(expected: string, max: number): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!PLAIN_DECIMAL.test(text.trim()) || !(n > 0) || n > max) throw new InvalidArgumentError(`expected ${expected}`);
    return n;
  };
}

/** A share from 0 to 1. */
export function fraction(text: string): number {
  const n = Number(text);
  if (!PLAIN_DECIMAL.test(text.trim()) || n > 1) throw new InvalidArgumentError('expected a share from 0 to 1, e.g. 0.25');
  return n;
}

export const seconds = positiveNumber('a number of seconds greater than 0, e.g. 30 or 2.5', 86_400);
export const rate = positiveNumber('a number of requests per second greater than 0, e.g. 50', 1_000_000);
export const retries = wholeNumber(0, 100);

/** --concurrency: auto, or a whole number from 1 to 256. */
export function concurrency(text: string): number | 'auto' {
  return text.trim().toLowerCase() === 'auto' ? 'auto' : wholeNumber(1, 256, 'auto, or a whole number from 1 to 256')(text);
}

/** --shard i/n. */
export function shard(text: string): Shard {
  try {
    return parseShard(text);
  } catch (error) {
    throw new InvalidArgumentError(
      `${(error as Error).message.replace(/^--shard takes/, 'expected')} (in a Kubernetes Indexed Job: --shard $((JOB_COMPLETION_INDEX + 1))/<completions>)`,
    );
  }
}

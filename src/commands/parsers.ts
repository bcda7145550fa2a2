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

/** A decimal greater than 0 (or 0 too, with `zero`) and at most max; `expected` says what it is, e.g. "a number of seconds". */
function decimal(expected: string, max: number, zero = false): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!PLAIN_DECIMAL.test(text.trim()) || (n === 0 && !zero) || n > max) throw new InvalidArgumentError(`expected ${expected}`);
    return n;
  };
}

export const seconds = decimal('a number of seconds greater than 0, e.g. 30 or 2.5', 86_400);
export const rate = decimal('a number of requests per second greater than 0, e.g. 50', 1_000_000);
export const fraction = decimal('a share from 0 to 1, e.g. 0.25', 1, true);
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

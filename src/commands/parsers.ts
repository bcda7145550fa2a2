/** Option parsers as commander calls them: the value, or an InvalidArgumentError saying what was expected (commander names the rest). */
import { InvalidArgumentError } from 'commander';
import type { AfterLine } from '../batch/input.js';
import { parseShard, type Shard } from '../batch/shard.js';

/** A number written plainly (as `pattern` takes it) from min to max; else it says what was `expected`. */
const plainNumber = (pattern: RegExp, min: number, max: number, expected: string) => (text: string) => {
  const n = Number(text);
  if (!pattern.test(text.trim()) || n < min || n > max) throw new InvalidArgumentError(`expected ${expected}`);
  return n;
};

export const wholeNumber = (min: number, max: number, expected = `a whole number from ${min} to ${max}`) =>
  plainNumber(/^\d+$/, min, max, expected);

const DECIMAL = /^\d*\.?\d+$/; // 30, 2.5, .5: no sign, no exponent, no hex.

export const seconds = plainNumber(DECIMAL, Number.MIN_VALUE, 86_400, 'a number of seconds over 0 and up to 86400 (a day), e.g. 30 or 2.5');
export const rate = plainNumber(DECIMAL, Number.MIN_VALUE, 1_000_000, 'a number of requests per second over 0 and up to 1000000, e.g. 50');
export const fraction = plainNumber(DECIMAL, 0, 1, 'a share from 0 to 1, e.g. 0.25');
export const retries = wholeNumber(0, 100);
export const errorStatus = wholeNumber(400, 599);
export const line = wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a line number, e.g. 1000');
/** --after-line <n>, or <n>:<check> as a stopped batch prints it (a check of the rows up to n: input.ts). */
export function afterLine(text: string): AfterLine {
  const [n = '', check, more] = text.split(':');
  if (more !== undefined || (check !== undefined && !/^[0-9a-f]{8}$/.test(check)))
    throw new InvalidArgumentError('expected a line number, e.g. 1000 (or <n>:<check>, as a stopped batch prints it)');
  return { line: line(n), check };
}

export const concurrency = (text: string): number | 'auto' =>
  text.trim().toLowerCase() === 'auto' ? 'auto' : wholeNumber(1, 256, 'auto, or a whole number from 1 to 256')(text);

export function shard(text: string): Shard {
  try {
    return parseShard(text);
  } catch (error) {
    const { message, hint } = error as { message: string; hint: string };
    throw new InvalidArgumentError(`${message.replace(/^--shard takes/, 'expected')} (${hint})`);
  }
}

/**
 * formatCount groups digits by a regular expression, not Intl.NumberFormat, which cost about 10 ms of a one-row batch's 50 ms
 * of CPU to start (perf22): the same text for every count the summary and the progress line show.
 */
import { expect, it } from 'vitest';
import { formatCount } from '../../src/batch/report.js';

it.each([
  [0, '0'],
  [7, '7'],
  [999, '999'],
  [1_000, '1,000'],
  [12_345, '12,345'],
  [1_234_567, '1,234,567'],
  [100_000_000, '100,000,000'],
  [12.6, '13'],
  [-1_234, '-1,234'],
  [2 ** 53, '9,007,199,254,740,992'],
])('%d as %s, as Intl.NumberFormat("en-US") writes it', (n, text) => {
  expect(formatCount(n)).toBe(text);
  expect(formatCount(n)).toBe(new Intl.NumberFormat('en-US').format(Math.round(n)));
});

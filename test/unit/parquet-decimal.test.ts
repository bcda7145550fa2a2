/**
 * A Parquet DECIMAL's text (src/batch/parquet.ts): the unscaled integer with its point placed by the
 * scale, every digit kept, as the service is sent it. A negative scale is outside the format but a
 * writer can make one: its value is the digits followed by that many zeros, never a value 100x smaller.
 */
import { describe, expect, it } from 'vitest';
import { decimalText } from '../../src/batch/parquet.js';

describe('decimalText', () => {
  it.each([
    [12345n, 2, '123.45'],
    [-12345n, 2, '-123.45'],
    [5n, 3, '0.005'],
    [-5n, 3, '-0.005'],
    [0n, 2, '0.00'],
    [12345678901234567890123n, 0, '12345678901234567890123'],
    [123n, -2, '12300'],
    [-7n, -3, '-7000'],
  ])('%s with scale %s is %s', (unscaled, scale, text) => {
    expect(decimalText(unscaled, scale)).toBe(text);
  });
});

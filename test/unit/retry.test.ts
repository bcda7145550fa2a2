import { describe, expect, it } from 'vitest';
import { backoffMs, isConnectionNotMade, isRetryableStatus, parseRetryAfter } from '../../src/client/retry.js';

function err(code: string, cause?: unknown) {
  return Object.assign(new Error(code), { code, cause });
}

describe('retry classification', () => {
  it.each([
    ['ECONNREFUSED', true],
    ['ENOTFOUND', true],
    ['EAI_AGAIN', true],
    ['UND_ERR_CONNECT_TIMEOUT', true],
    ['EHOSTUNREACH', true],
    ['ECONNRESET', false],
    ['UND_ERR_SOCKET', false],
    ['UND_ERR_HEADERS_TIMEOUT', false],
    ['UND_ERR_BODY_TIMEOUT', false],
    ['EPIPE', false],
    ['CERT_HAS_EXPIRED', false],
    ['UND_ERR_ABORTED', false],
  ])('%s: retry %s', (code, expected) => {
    expect(isConnectionNotMade(err(code))).toBe(expected);
  });

  it('looks through causes', () => {
    expect(isConnectionNotMade(err('UND_ERR_SOCKET', err('ECONNREFUSED')))).toBe(true);
    expect(isConnectionNotMade(new Error('no code'))).toBe(false);
  });

  it.each([
    [429, true],
    [503, true],
    [500, false],
    [502, false],
    [504, false],
    [408, false],
    [401, false],
  ])('status %i: retry %s', (status, expected) => {
    expect(isRetryableStatus(status)).toBe(expected);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  it.each([
    [undefined, undefined],
    ['0', 0],
    ['5', 5000],
    [' 120 ', 120_000],
    ['Sat, 21 Nov 2026 12:00:30 GMT', 30_000],
    ['Sat, 21 Nov 2026 11:00:00 GMT', 0],
    ['-1', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    // audit26 #12: sent twice, the longest wait, whatever the order; more than a day is read as a day.
    [['1', '100'], 100_000],
    [['100', '1'], 100_000],
    [['soon', '3'], 3000],
    ['1, 100', 100_000],
    ['99999999999999999999', 86_400_000],
  ])('%j → %s ms', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });
});

describe('backoffMs', () => {
  it('is full jitter under an exponential ceiling with a cap', () => {
    expect(backoffMs(1, { random: () => 0.999999 })).toBe(499);
    expect(backoffMs(2, { random: () => 0.999999 })).toBe(999);
    expect(backoffMs(3, { random: () => 0.5 })).toBe(1000);
    expect(backoffMs(20, { random: () => 0.999999 })).toBe(7999);
    expect(backoffMs(4, { random: () => 0 })).toBe(0);
  });
});

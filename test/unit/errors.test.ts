import { describe, expect, it } from 'vitest';
import { ConfigError, InterruptedError, NetworkError, ServiceError, UsageError, exitCodeFor } from '../../src/errors.js';

describe('exit codes', () => {
  it('maps each kind to the contract table', () => {
    expect(exitCodeFor('usage')).toBe(2);
    expect(exitCodeFor('config')).toBe(2);
    expect(exitCodeFor('refused')).toBe(1);
    expect(exitCodeFor('network')).toBe(3);
    expect(exitCodeFor('timeout')).toBe(3);
    expect(exitCodeFor('interrupted')).toBe(130);
    expect(exitCodeFor('unavailable')).toBe(3);
    expect(exitCodeFor('bug')).toBe(70);
  });

  // The contract's three outcomes, for every answer that is not a success.
  it.each([
    [301, 'refused', 1, 'no'],
    [400, 'refused', 1, 'no'],
    [401, 'refused', 1, 'no'],
    [404, 'refused', 1, 'no'],
    [408, 'unavailable', 3, 'no'],
    [429, 'unavailable', 3, 'no'],
    [500, 'unavailable', 3, 'unknown'],
    [502, 'unavailable', 3, 'unknown'],
    [503, 'unavailable', 3, 'no'],
    [504, 'unavailable', 3, 'unknown'],
    [200, 'refused', 1, 'no'], // "success": false
  ])('an answer %i is %s, exit %i, recorded "%s"', (status, kind, exitCode, recorded) => {
    const error = new ServiceError('x', { status, statusText: '', attempts: 1, durationMs: 1 });
    expect([error.kind, error.exitCode, error.recorded]).toEqual([kind, exitCode, recorded]);
  });

  it('gives each error type its code', () => {
    const info = { attempts: 1, durationMs: 1 };
    expect(new UsageError('x').exitCode).toBe(2);
    expect(new ConfigError('x').exitCode).toBe(2);
    expect(new ServiceError('x', { status: 404, statusText: 'Not Found', ...info }).exitCode).toBe(1);
    expect(new NetworkError('network', 'x', { ...info, recorded: 'no' }).exitCode).toBe(3);
    expect(new NetworkError('timeout', 'x', { ...info, recorded: 'unknown' }).exitCode).toBe(3);
    expect(new InterruptedError('x', info).exitCode).toBe(130);
    expect(new InterruptedError('x', info).recorded).toBe('unknown');
    expect(new InterruptedError('x', { ...info, notSent: true }).recorded).toBe('no');
  });
});

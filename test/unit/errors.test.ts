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
  });

  it('gives each error type its code', () => {
    const info = { attempts: 1, durationMs: 1 };
    expect(new UsageError('x').exitCode).toBe(2);
    expect(new ConfigError('x').exitCode).toBe(2);
    expect(new ServiceError('x', { status: 404, statusText: 'Not Found', ...info }).exitCode).toBe(1);
    expect(new NetworkError('network', 'x', info).exitCode).toBe(3);
    expect(new NetworkError('timeout', 'x', info).exitCode).toBe(3);
    expect(new InterruptedError('x', info).exitCode).toBe(130);
  });
});

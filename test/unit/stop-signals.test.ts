/**
 * onStopSignals: one signal delivered twice at once is one (GNU `timeout` signals its child and then the child's process
 * group: inputs20 saw a batch under `timeout -s TERM` cancel its requests in flight, 64 rows of outcome unknown, 1 run in 6);
 * a second one later is a second (it cancels them, as the contract says). Listeners are called as Node calls them, by emit.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { onStopSignals } from '../../src/signals.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('stop signals', () => {
  it('the same signal twice at once counts once; again 50 ms later, or another signal, counts', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const seen: string[] = [];
    const remove = onStopSignals((signal, count) => seen.push(`${signal} ${count}`));
    try {
      process.emit('SIGTERM');
      process.emit('SIGTERM');
      expect(seen).toEqual(['SIGTERM 1']);
      vi.advanceTimersByTime(49);
      process.emit('SIGTERM');
      expect(seen).toEqual(['SIGTERM 1']);
      vi.advanceTimersByTime(50);
      process.emit('SIGTERM');
      process.emit('SIGINT');
      expect(seen).toEqual(['SIGTERM 1', 'SIGTERM 2', 'SIGINT 3']);
    } finally {
      remove();
    }
  });
});

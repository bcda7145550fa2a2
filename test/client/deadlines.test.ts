/**
 * The shared time limit of attempts (client/attempt.ts): one timer and a doubly linked list in start
 * order, which an attempt leaves the moment it ends. What must hold: an attempt still in flight behind
 * thousands that ended still times out, on time; the list holds only attempts in flight; and ended
 * attempts are let go of at once rather than kept until the slow one ends (a queue that kept them all
 * held 300 MB in a batch on Node 24).
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { Attempt, Deadlines } from '../../src/client/attempt.js';

/** Ends an attempt as undici would for a 200 answer with the usual body. */
function answer(attempt: Attempt): void {
  const controller = { abort: () => {} } as unknown as Dispatcher.DispatchController;
  attempt.onRequestStart(controller);
  attempt.onResponseStart(controller, 200, { 'content-length': '16' });
  attempt.onResponseData(controller, Buffer.from('{"success":true}'));
  attempt.onResponseEnd();
}

/** Full collections (gc exposed at run time), each with a turn for FinalizationRegistry callbacks. */
async function collect(enough: () => boolean): Promise<void> {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  for (let round = 0; round < 10 && !enough(); round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('Deadlines', () => {
  it('times out a slow attempt behind thousands that ended, and lists only what is in flight', async () => {
    const deadlines = new Deadlines();
    const slow = new Attempt(300, deadlines, undefined);
    const started = performance.now();
    const fast: Attempt[] = [];
    for (let i = 0; i < 5000; i++) {
      const attempt = new Attempt(300, deadlines, undefined);
      answer(attempt);
      fast.push(attempt);
    }
    const last = new Attempt(300, deadlines, undefined);
    expect(deadlines.all()).toEqual([slow, last]);

    const outcome = await slow.promise;
    expect(outcome).toMatchObject({ kind: 'failed', timedOut: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    expect((await fast[4999]!.promise).kind).toBe('answer');
    expect((await last.promise).kind).toBe('failed'); // its limit came with the same sweep or the next
    expect(deadlines.all()).toEqual([]);
  });

  it('lets ended attempts go at once when they end in about the order they started', async () => {
    const deadlines = new Deadlines();
    const collected = new Set<number>();
    const registry = new FinalizationRegistry<number>((i) => collected.add(i));
    // Eight in flight at all times, as in a batch: the queue is never empty.
    const inFlight: Attempt[] = [];
    for (let i = 0; i < 1000; i++) {
      const attempt = new Attempt(5_000, deadlines, undefined);
      registry.register(attempt, i);
      inFlight.push(attempt);
      if (inFlight.length > 8) answer(inFlight.shift()!);
    }
    await collect(() => collected.size >= 990);
    expect(collected.size).toBeGreaterThanOrEqual(990);
    for (const attempt of inFlight) attempt.interrupt();
  });

  it('holds at most about a thousand ended attempts while an older one is still in flight', async () => {
    const deadlines = new Deadlines();
    const slow = new Attempt(5_000, deadlines, undefined);
    const collected = new Set<number>();
    const registry = new FinalizationRegistry<number>((i) => collected.add(i));
    for (let i = 0; i < 3000; i++) {
      const attempt = new Attempt(5_000, deadlines, undefined);
      registry.register(attempt, i);
      answer(attempt);
    }
    await collect(() => collected.size >= 1900);
    // The queue is swept of ended attempts whenever it has grown by 1,024 since the last sweep.
    expect(collected.size).toBeGreaterThanOrEqual(3000 - 1100);
    slow.interrupt();
    expect((await slow.promise).kind).toBe('failed');
  });
});

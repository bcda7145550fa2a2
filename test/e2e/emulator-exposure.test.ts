/**
 * `trigger emulator --host`: one warning line when it listens where other machines can reach it.
 */
import { describe, expect, it } from 'vitest';
import { sandbox } from '../helpers/cli.js';
import { startEmulatorProcess } from '../helpers/emulator.js';

describe('trigger emulator --host', () => {
  it.each([
    ['0.0.0.0', true],
    ['127.0.0.1', false],
  ])('--host %s: warned %s', async (host, warned) => {
    const box = sandbox({ TRIGGER_API_KEY: 'emu_exposure_test_key_0001' });
    const emulator = await startEmulatorProcess(['--host', host], box.env);
    try {
      const lines = emulator.stderr().split('\n');
      const warnings = lines.filter((line) => line.includes('reachable from the network'));
      expect(warnings).toHaveLength(warned ? 1 : 0);
      if (warned) expect(warnings[0]).toMatch(/^warning: --host 0\.0\.0\.0 makes the emulator reachable from the network/);
      // Clients on this machine are still pointed at loopback.
      expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await emulator.stop();
      box.cleanup();
    }
  });
});

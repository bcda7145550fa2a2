/**
 * A standard output that cannot be written (/dev/full), which only a process shows. The three
 * outcomes of an attempt (recorded, not recorded, unknown) and the batch's replay command run
 * in-process: test/in-process/outcomes.test.ts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, sandbox, TEST_KEY, type Sandbox } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
let box: Sandbox | undefined;
afterEach(async () => {
  await server?.close();
  box?.cleanup();
  server = box = undefined;
});

describe('standard output that cannot be written', () => {
  it('an accepted event keeps exit 0, with one line on stderr and no stack trace', async () => {
    server = await startServer();
    box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
    const full = fs.openSync('/dev/full', 'w');
    try {
      // Not spawnSync: the server answering the fire runs in this process.
      const child = spawn(process.execPath, [BIN, 'fire', 'purchase', 'alice', '--json'], {
        env: box.env,
        stdio: ['ignore', full, 'pipe'],
      });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      expect(server.requests).toHaveLength(1);
      const lines = stderr.trim().split('\n');
      expect(lines).toEqual([
        'error: cannot write to standard output (no space left on the device); what was done stands, but its output is lost',
      ]);
    } finally {
      fs.closeSync(full);
    }
  });
});

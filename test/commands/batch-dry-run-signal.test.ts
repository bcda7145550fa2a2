/**
 * A dry run stopped by a signal (sig22's first item): it printed "✔ dry run: N of N rows can be sent" and "sending stopped,
 * waiting for 0 requests in flight", as if it had checked the whole input. In-process, rows from a pipe that stays open, the
 * signal delivered to the command's own listener.
 */
import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { Output } from '../../src/output/io.js';
import { Captured, commandEnv } from '../helpers/in-process.js';

it('says it was interrupted and checked only the rows read, and exits as a stopped batch does', async () => {
  const box = commandEnv({});
  try {
    const [stdout, stderr, stdin] = [new Captured(), new Captured(), new PassThrough()];
    const args = ['node', 'trigger', 'batch', '-', '--dry-run', '--format', 'lines', '--trigger', 't'];
    const running = main(args, { io: new Output({ stdout, stderr }), env: box.env, stdin });
    stdin.write('u1\nu2\nu3\n');
    while (stdin.readableLength > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    process.emit('SIGTERM', 'SIGTERM');
    const code = await running;
    expect(code).toBe(143);
    expect(stderr.text).toContain('interrupted (SIGTERM): checking stopped');
    expect(stderr.text).not.toContain('requests in flight');
    expect(stdout.text + stderr.text).toMatch(
      /⚠ interrupted \(SIGTERM\): dry run: [0-3] of [0-3] rows? read can be sent, 0 invalid; nothing was sent/,
    );
    expect(stdout.text + stderr.text).not.toContain('✔');
  } finally {
    box.cleanup();
  }
});

/**
 * The progress line after the first signal (issue 28 item 12): it showed `292/300 rows … ETA 3.48 s`
 * when 20 rows were accepted and 280 not sent. In-process, with a stderr that says it is a terminal
 * (so the line is redrawn in place, as in a real one), a real server on 127.0.0.1, and the signal
 * delivered to the command's own listener.
 */
import fs from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { Output } from '../../src/output/io.js';
import { progressLine } from '../../src/batch/report.js';
import { emptyCounts } from '../../src/batch/recorder.js';
import { PLAIN } from '../../src/output/colors.js';
import { TEST_KEY } from '../helpers/cli.js';
import { Captured, commandEnv, type CommandSandbox } from '../helpers/in-process.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

/** Waits for a condition the test is driving towards (no time is asserted). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The frames of a progress line redrawn in place ("\r\x1b[K" before each). */
const frames = (text: string) =>
  text
    .split('\r\u001b[K')
    .map((frame) => frame.split('\n')[0]!)
    .filter((frame) => frame.startsWith('batch '));

let server: TestServer;
let box: CommandSandbox;
const held: http.ServerResponse[] = [];
beforeEach(async () => {
  // The first 20 answers come at once; the service then holds every request until the test lets go.
  server = await startServer((_req, res, index) => {
    if (index < 20) json(res, 200, { success: true });
    else held.push(res);
  });
  box = commandEnv({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
});
afterEach(async () => {
  for (const res of held.splice(0)) res.destroy();
  await server.close();
  box.cleanup();
});

describe('the progress line after the first signal', () => {
  it('counts rows as they ended: the accepted, the not sent apart, no ETA', async () => {
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, `triggerId,userId\n${Array.from({ length: 300 }, (_, i) => `t,u${i}`).join('\n')}\n`);
    const stdout = new Captured();
    const stderr = Object.assign(new Captured(), { isTTY: true, columns: 200 });
    const io = new Output({ stdout, stderr });
    const failed = path.join(box.home, 'failed.csv');
    const running = main(['node', 'trigger', 'batch', file, '--failed', failed, '--concurrency', '8', '--retries', '0'], {
      io,
      env: { ...box.env, TERM: 'xterm' },
    });
    // 20 accepted, 8 held in flight, and a frame that knows the total.
    await until(() => server.requests.length === 28 && frames(stderr.text).some((f) => f.startsWith('batch 20/300 rows')), '28 requests');
    const before = frames(stderr.text).at(-1)!;
    expect(before).toMatch(/^batch 20\/300 rows · 0 failed · \d+\/s · 8 in flight · ETA /);

    process.emit('SIGINT', 'SIGINT');
    const signalledAt = stderr.text.length;
    const after = () => frames(stderr.text.slice(signalledAt));
    // The 8 lanes wait for their answers, so the rows after them come out unsent once those are in.
    await until(() => after().length >= 2, 'frames after the signal');
    for (const res of held.splice(0)) json(res, 200, { success: true });
    const code = await running;

    expect(code).toBe(130);
    const shown = after();
    expect(shown.length).toBeGreaterThan(0);
    for (const frame of shown) {
      expect(frame).not.toContain('ETA');
      expect(frame).toContain('stopping: nothing more is sent');
      const done = Number(/^batch (\d+)\/300 rows/.exec(frame)?.[1]);
      expect(done).toBeLessThanOrEqual(28); // rows not sent are never counted as done
    }
    expect(shown[0]).toMatch(/^batch 20\/300 rows · 0 failed · \d+\/s · 8 in flight · stopping: nothing more is sent$/);
    // What the summary and the failed file say agrees with it.
    expect(stderr.text).toContain('28 accepted · 0 failed · 0 invalid · 272 not sent of 300 rows');
    expect(fs.readFileSync(failed, 'utf8').trim().split('\n')).toHaveLength(1 + 272);
    expect(server.requests).toHaveLength(28);
  });

  it('a stop of any kind ends the ETA, even before a row has come out unsent', () => {
    const counts = { ...emptyCounts(), rows: 20, accepted: 20 };
    expect(progressLine(counts, 300, 1000, PLAIN, { inFlight: 8 })).toContain('ETA');
    const stopped = progressLine(counts, 300, 1000, PLAIN, { inFlight: 8, stopped: true });
    expect(stopped).toBe('batch 20/300 rows · 0 failed · 20/s · 8 in flight · stopping: nothing more is sent');
    const unsent = { ...counts, rows: 292, unsent: 272 };
    expect(progressLine(unsent, 300, 1000, PLAIN)).toBe(
      'batch 20/300 rows · 0 failed · 272 not sent · 20/s · stopping: nothing more is sent',
    );
    const unknown = { ...counts, rows: 25, unknown: 5 };
    expect(progressLine(unknown, 300, 1000, PLAIN)).toMatch(/^batch 25\/300 rows · 0 failed · 5 outcome unknown · 25\/s · ETA /);
  });
});

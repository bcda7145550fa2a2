/**
 * audit27 #2: an earlier run's journal was read whole (readFileSync, then split) before the batch listened for anything: 10 million
 * rows held 2.1 GB for 8 s, and a SIGTERM 3 s into it was heard only when the read was done, 17 s later. It is now read a piece at a
 * time, and a stop signal ends that read. The built binary, sent a real signal well into the read of a journal many gigabytes long:
 * the exit code of the signal, one line, nothing sent, the journal as it was (not cut at its last record), nothing left behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { csvRows, leftIn, signalOnceRead } from '../helpers/batch.js';
import { json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const at = (name: string) => path.join(box.home, name);

it.each([
  ['SIGINT', 130, []],
  ['SIGTERM', 143, ['--json']],
] as const)(
  '%s while an earlier run’s journal is read: exit %i, one line, nothing sent, the journal as it was',
  async (signal, code, extra) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    fs.writeFileSync(at('in.csv'), csvRows(3));
    const args = ['batch', at('in.csv'), '--journal', at('b.journal'), '--failed', at('f.csv')];
    expect((await run(args, { env: box.env })).code).toBe(0);
    expect(server.requests).toHaveLength(3);
    // 16 GiB without the disk: the journal's end is a hole (NUL bytes, as a crash can leave), read long after the signal came.
    fs.truncateSync(at('b.journal'), 2 ** 34);
    const before = fs.readFileSync(at('f.csv'));
    // Sent once it has read 64 MiB: the input it hashes first is 30 bytes, so that is well into the journal.
    const result = await run([...args, '--resume', ...extra], { env: box.env, onSpawn: signalOnceRead(signal) });
    // Before (9acec57): the signal unheard, the whole journal read into memory until the test's hang timer killed it at 50 s.
    // Worded as the read of the input for --journal says it (fix28b): not `error: interrupted …`, and with --json no error object.
    expect({ code: result.code, signal: result.signal, stdout: result.stdout }).toEqual({ code, signal: null, stdout: '' });
    expect(result.stderr).toBe(
      `interrupted (${signal}) while reading the journal ${at('b.journal')}: nothing was sent; run the command again\n`,
    );
    expect(server.requests).toHaveLength(3);
    expect(fs.statSync(at('b.journal')).size).toBe(2 ** 34);
    expect(fs.readFileSync(at('f.csv'))).toEqual(before);
    expect(leftIn(box)).toEqual(['b.journal', 'f.csv', 'in.csv']);
  },
);

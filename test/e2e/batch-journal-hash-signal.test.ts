/**
 * audit24 item 11: with --journal every input is read whole for its fingerprint before the first row. That read was one blocking
 * loop: a signal during it killed the process outright, with no line, and left the failed file's .tmp and the locks behind. The
 * built binary, stopped by a real signal while it reads: the exit code of the signal, one line, no request, and nothing it made
 * left (the earlier failed file as it was, no journal, no .tmp, no lock).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { leftIn, signalOnceRead } from '../helpers/batch.js';
import { json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const at = (name: string) => path.join(box.home, name);

it.each([
  ['SIGINT', 130, []],
  ['SIGTERM', 143, ['--json']],
] as const)(
  '%s while the input is read for --journal: exit %i, one line, nothing sent, nothing left behind',
  async (signal, code, extra) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    // A gigabyte without a gigabyte of disk: a CSV whose end is a hole, read for its fingerprint long after the signal came.
    fs.writeFileSync(at('big.csv'), 'triggerId,userId\nt,a\n');
    fs.truncateSync(at('big.csv'), 2 ** 30);
    fs.writeFileSync(at('f.csv'), 'kept by an earlier run\n');
    // Sent once it has read 64 MiB, well into that read: its .tmp is made a moment before it listens for signals.
    const args = ['batch', at('big.csv'), '--journal', at('big.journal'), '--failed', at('f.csv'), ...extra];
    const result = await run(args, { env: box.env, onSpawn: signalOnceRead(signal) });
    expect({ code: result.code, signal: result.signal, stdout: result.stdout }).toEqual({ code, signal: null, stdout: '' }); // no object
    // Its one line; under a heavy load the read may pass 2 s before the signal, and then says so first off a terminal (fix26a).
    const lines = result.stderr.split('\n').filter((line) => !line.endsWith('; sending starts once it is read'));
    expect(lines.join('\n')).toBe(
      `interrupted (${signal}) while reading the input for --journal: nothing was sent; run the command again\n`,
    );
    expect(server.requests).toHaveLength(0);
    expect(fs.readFileSync(at('f.csv'), 'utf8')).toBe('kept by an earlier run\n');
    expect(leftIn(box)).toEqual(['big.csv', 'f.csv']);
  },
);

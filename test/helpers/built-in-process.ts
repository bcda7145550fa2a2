/**
 * main() of the built bundle (dist/cli.cjs, what bin/trigger.cjs runs), called in this process: for
 * the runs of a spawned test that need to be another batch or command, not another process (one
 * refused by a lock a spawned run holds, a replay followed after the run under test ended).
 *
 * Why not test/helpers/in-process.ts here: that one imports src/ through vitest's transform, which an
 * e2e file (isolated: a module graph of its own) paid for again, a second or more of CPU a file,
 * about what it saved in spawned Nodes. Node's own require loads the one bundled file in a fraction
 * of that, and it is the code the binary runs.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ROOT, type RunResult } from './cli.js';

type Main = (argv: string[], context: { env: NodeJS.ProcessEnv; cwd: string; stdin: NodeJS.ReadableStream }) => Promise<number>;
let main: Main | undefined;

/**
 * In place of test/helpers/cli.ts's run(): the same arguments and result (main()'s code, what was
 * written to stdout and stderr; never a signal). Standard input is empty and no stream is a terminal,
 * as for a spawned run with pipes. One at a time: it takes this process's stdout and stderr meanwhile.
 */
export async function runBuilt(args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<RunResult> {
  main ??= (createRequire(import.meta.url)(path.join(ROOT, 'dist', 'cli.cjs')) as { main: Main }).main;
  const streams = { stdout: process.stdout, stderr: process.stderr };
  const text = { stdout: '', stderr: '' };
  const saved = { stdout: streams.stdout.write, stderr: streams.stderr.write };
  const tty = {
    stdout: Object.getOwnPropertyDescriptor(streams.stdout, 'isTTY'),
    stderr: Object.getOwnPropertyDescriptor(streams.stderr, 'isTTY'),
  };
  // What main() leaves on the process (an Output's 'error' listener on stdout, a signal handler) is
  // taken off again: listeners would pile up over a file's runs, each keeping an Output alive.
  const watched: Array<[NodeJS.EventEmitter, string]> = [
    [streams.stdout, 'error'],
    [streams.stderr, 'error'],
    ...(['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal): [NodeJS.EventEmitter, string] => [process, signal]),
  ];
  const listeners = watched.map(([emitter, event]) => [emitter, event, new Set(emitter.listeners(event))] as const);
  for (const name of ['stdout', 'stderr'] as const) {
    streams[name].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      text[name] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
      return true;
    }) as typeof process.stdout.write;
    Object.defineProperty(streams[name], 'isTTY', { value: false, configurable: true });
  }
  try {
    const code = await main(['node', 'trigger', ...args], {
      env: options.env,
      cwd: options.cwd ?? options.env.HOME ?? process.cwd(),
      stdin: Readable.from([]),
    });
    return { code, signal: null, ...text };
  } finally {
    for (const [emitter, event, before] of listeners) {
      for (const listener of emitter.listeners(event)) {
        if (!before.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
    for (const name of ['stdout', 'stderr'] as const) {
      streams[name].write = saved[name];
      const before = tty[name];
      if (before) Object.defineProperty(streams[name], 'isTTY', before);
      else delete (streams[name] as { isTTY?: boolean }).isTTY;
    }
  }
}

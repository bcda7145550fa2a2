/**
 * Runs `trigger emulator` as a child process on a free port and reads what it prints.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './cli.js';

export interface EmulatorProcess {
  url: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Sends a signal and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stdout has at least n lines. */
  waitForLines(n: number, timeoutMs?: number): Promise<string[]>;
}

export function startEmulatorProcess(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<EmulatorProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'emulator', '--port', '0', ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.on('close', (code, signal) => done({ code, signal })),
    );
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the emulator did not start: ${err}`));
    }, 10_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const m = /listening on .*?(http:\/\/\S+)/.exec(err);
      if (m?.[1] && err.includes('Ctrl-C')) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          child,
          stdout: () => out,
          stderr: () => err,
          async stop(signal = 'SIGINT') {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
          async waitForLines(n, timeoutMs = 5_000) {
            const until = Date.now() + timeoutMs;
            while (out.split('\n').filter(Boolean).length < n) {
              if (Date.now() > until) throw new Error(`expected ${n} lines, got: ${out}`);
              await new Promise((r) => setTimeout(r, 20));
            }
            return out.split('\n').filter(Boolean);
          },
        });
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`the emulator exited with ${code}: ${err}`));
    });
  });
}

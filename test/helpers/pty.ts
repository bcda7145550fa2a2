/**
 * Runs the built binary in a real pseudo-terminal (python3's pty.fork in terminal.py, sized with TIOCSWINSZ), as a
 * person's shell runs it: for spinners, progress lines, colours and Ctrl-C (type '\x03').
 */
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN } from './cli.js';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'terminal.py');

export interface TerminalRun {
  /** The exit code, or minus the signal that ended it. */
  status: number;
  /** Everything the terminal received (stdout and stderr together), escape sequences included. */
  output: string;
}

export interface TerminalOptions {
  env: NodeJS.ProcessEnv;
  rows?: number;
  cols?: number;
  /** [seconds after start (or after `waitFor` appeared), text to type]. */
  input?: Array<[number, string]>;
  waitFor?: string;
  timeoutMs?: number;
}

export function inTerminal(args: string[], options: TerminalOptions): Promise<TerminalRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', () => {
      try {
        const run = JSON.parse(out) as TerminalRun;
        resolve({ ...run, output: Buffer.from(run.output, 'latin1').toString('utf8') });
      } catch (error) {
        reject(error as Error);
      }
    });
    child.stdin.end(
      JSON.stringify({
        argv: [process.execPath, BIN, ...args],
        env: options.env,
        rows: options.rows ?? 24,
        cols: options.cols ?? 80,
        input: options.input ?? [],
        wait_for: options.waitFor,
        timeout: (options.timeoutMs ?? 20_000) / 1000,
      }),
    );
  });
}

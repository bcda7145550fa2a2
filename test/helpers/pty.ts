/**
 * Runs the built binary in a real pseudo-terminal (python3's pty.fork in terminal.py, sized with TIOCSWINSZ), as a
 * person's shell runs it: for spinners, progress lines, colours and Ctrl-C (type '\x03'). A test that
 * uses it calls needs(...TERMINAL) in its describe block: python3 is not part of every machine.
 */
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN } from './cli.js';
import type { Need } from './needs.js';

/** What inTerminal needs from the machine. */
export const TERMINAL: Need[] = ['python3'];

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
  /**
   * Instead of `waitFor`: the input clock starts when this settles (e.g. when the server has the
   * request, so that a Ctrl-C surely comes after the binary took its signals, however loaded the machine).
   */
  startWhen?: Promise<unknown>;
  timeoutMs?: number;
}

export function inTerminal(args: string[], options: TerminalOptions): Promise<TerminalRun> {
  const startFile = options.startWhen ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-pty-')), 'start') : undefined;
  void options.startWhen?.then(() => {
    if (fs.existsSync(path.dirname(startFile!))) fs.writeFileSync(startFile!, '');
  });
  const cleanup = () => startFile && fs.rmSync(path.dirname(startFile), { recursive: true, force: true });
  return new Promise<TerminalRun>((resolve, reject) => {
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
        start_file: startFile,
        timeout: (options.timeoutMs ?? 20_000) / 1000,
      }),
    );
  }).finally(cleanup);
}

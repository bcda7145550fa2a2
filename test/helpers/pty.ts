/**
 * Runs the built binary in a real pseudo-terminal (python3's pty.fork in terminal.py, sized with TIOCSWINSZ), as a
 * person's shell runs it: for spinners, progress lines, colours and Ctrl-C (type '\x03'). A test that
 * uses it calls needs(...TERMINAL) in its describe block: python3 is not part of every machine.
 *
 * What the terminal receives comes as it comes, so a test acts on what it sees (types a key once the
 * prompt is there, answers a request once the spinner shows) instead of after a fixed time.
 */
import { Buffer } from 'node:buffer';
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN } from './cli.js';
import type { Need } from './needs.js';

/** What inTerminal needs from the machine. */
export const TERMINAL: Need[] = ['python3'];

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'terminal.py');

let interpreter: string | undefined;

/**
 * The python3 on PATH, as the file it runs: a pyenv shim (a bash script that runs pyenv, which runs
 * python) took half a second of CPU to start it, more than the run it served; asked once per worker.
 */
function python(): string {
  interpreter ??= execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim() || 'python3';
  return interpreter;
}

export interface TerminalRun {
  /** The exit code, or minus the signal that ended it. */
  status: number;
  /** Everything the terminal received (stdout and stderr together), escape sequences included. */
  output: string;
}

export interface TerminalSize {
  env: NodeJS.ProcessEnv;
  rows?: number;
  cols?: number;
  /** A hang detector: the run is killed after this long. */
  timeoutMs?: number;
}

/** What a person cannot see on the terminal but a test must wait for; undefined where it cannot be read. */
export interface TerminalState {
  /** Whether the terminal echoes what is typed (false at a hidden prompt). */
  echo: boolean | undefined;
}

export type Wanted = string | RegExp | ((output: string, state: TerminalState) => boolean);

/** The terminal shows `text` and no longer echoes: a hidden prompt waits for what is typed. */
export const hiddenPrompt =
  (text: string): Wanted =>
  (output, state) =>
    output.includes(text) && state.echo === false;

export interface Terminal {
  /** Everything the terminal has received so far. */
  output(): string;
  /**
   * Resolves with the output once it contains `wanted` (a string), matches it (a RegExp) or satisfies
   * it (a function of the output and the state); rejects if the run ends first.
   */
  waitFor(wanted: Wanted): Promise<string>;
  /** Types on the terminal, as a person at the keyboard (a string, so '\x03' is Ctrl-C). */
  type(text: string): void;
  /** Resizes the terminal, as a person dragging its window: the program gets SIGWINCH. */
  resize(rows: number, cols: number): void;
  /** The end of the run. */
  done: Promise<TerminalRun>;
}

/** Starts `trigger <args>` in a pseudo-terminal; see Terminal. */
export function startTerminal(args: string[], options: TerminalSize): Terminal {
  const child = spawn(python(), [SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  let text = '';
  let status: number | undefined;
  const state: TerminalState = { echo: undefined };
  let ended = false;
  const waiters = new Set<() => void>();
  const matches = (wanted: Wanted) =>
    typeof wanted === 'string' ? text.includes(wanted) : typeof wanted === 'function' ? wanted(text, state) : wanted.test(text);

  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (data: string) => {
    const lines = (pending + data).split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const message = JSON.parse(line) as { out?: string; status?: number; echo?: boolean | null };
      if (message.out !== undefined) chunks.push(Buffer.from(message.out, 'latin1'));
      if ('echo' in message) state.echo = message.echo ?? undefined;
      if (message.status !== undefined) status = message.status;
    }
    text = Buffer.concat(chunks).toString('utf8');
    for (const waiter of [...waiters]) waiter();
  });
  child.stdin.on('error', () => undefined); // typed after the run ended: nobody to read it
  const done = new Promise<TerminalRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => {
      ended = true;
      for (const waiter of [...waiters]) waiter();
      if (status === undefined) reject(new Error(`terminal.py ended without a status; the terminal showed:\n${text}`));
      else resolve({ status, output: text });
    });
  });
  child.stdin.write(
    `${JSON.stringify({
      argv: [process.execPath, BIN, ...args],
      env: options.env,
      rows: options.rows ?? 24,
      cols: options.cols ?? 80,
      timeout: (options.timeoutMs ?? 20_000) / 1000,
    })}\n`,
  );
  return {
    output: () => text,
    waitFor: (wanted) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if (matches(wanted)) {
            waiters.delete(check);
            resolve(text);
          } else if (ended) {
            waiters.delete(check);
            reject(new Error(`the terminal never showed ${String(wanted)}; it showed:\n${text}`));
          }
        };
        waiters.add(check);
        check();
      }),
    type(typed) {
      if (!ended) child.stdin.write(`${JSON.stringify(typed)}\n`);
    },
    resize(rows, cols) {
      if (!ended) child.stdin.write(`${JSON.stringify({ resize: [rows, cols] })}\n`);
    },
    done,
  };
}

export interface TerminalOptions extends TerminalSize {
  /** [seconds after start (or after `waitFor` appeared), text to type]. */
  input?: Array<[number, string]>;
  waitFor?: string;
  /**
   * Instead of `waitFor`: the input clock starts when this settles (e.g. when the server has the
   * request, so that a Ctrl-C surely comes after the binary took its signals, however loaded the machine).
   */
  startWhen?: Promise<unknown>;
}

/** Runs `trigger <args>` in a pseudo-terminal to its end, typing `input` on a clock. */
export function inTerminal(args: string[], options: TerminalOptions): Promise<TerminalRun> {
  const terminal = startTerminal(args, options);
  const start = options.startWhen ?? (options.waitFor === undefined ? Promise.resolve() : terminal.waitFor(options.waitFor));
  start.then(
    () => {
      for (const [seconds, text] of options.input ?? []) setTimeout(() => terminal.type(text), seconds * 1000);
    },
    () => undefined, // the run ended without it: its output tells why
  );
  return terminal.done;
}

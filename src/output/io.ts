/**
 * The one place that writes to stdout and stderr (spinners and prompts through `terminal`). Every line is redacted, so a key a server
 * echoes or a URL the user typed holds is masked before a terminal or log gets it; JSON lines inside their strings only: they stay JSON.
 */
import { PLAIN, paletteFor, type Palette } from './colors.js';
import { Redactor, type ServerMask } from './redact.js';

/** A stream that may be a terminal (process.stdout and process.stderr say so, and their width). */
export type TerminalStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export type Streams = Record<'stdout' | 'stderr', TerminalStream>;

export class Output {
  readonly #redactor = new Redactor();
  readonly #streams: Streams;
  outColors: Palette = PLAIN; // Colours for what goes to stdout, named by meaning (none when stdout is not a terminal, or NO_COLOR).
  errColors: Palette = PLAIN; // Colours for what goes to stderr.
  /** Why stdout could not be written (a reader gone, a full disk, EIO): what was done stands (still exit 0); only its report is lost. */
  stdoutError: NodeJS.ErrnoException | undefined;
  stderrError: NodeJS.ErrnoException | undefined; // Why stderr could not be written, once it could not: nothing more is written there.
  printOnly = false; // the output is the whole result (cli.ts PRINT_ONLY): nothing else was done to stand

  constructor(streams: Streams = { stdout: process.stdout, stderr: process.stderr }) {
    this.#streams = streams;
    // Without a listener, a stdout write error is thrown from the event loop: a stack trace and exit 1 ("refused") for an accepted event.
    streams.stdout.on('error', (error: NodeJS.ErrnoException) => this.#stdoutFailed(error));
    // So for stderr (`2>/dev/full`, `2>&1 | head`): a batch died with no failed file, its sent rows recorded nowhere (audit25). Nobody
    // can be told when stderr is gone: what is done stands, the files are written, the exit code says the rest.
    streams.stderr.on('error', (error: NodeJS.ErrnoException) => (this.stderrError ??= error));
  }

  /** stderr as a terminal for what redraws in place, read when asked (it may be resized); columns 0 with no size (a pty nobody sized). */
  get terminal(): { isTTY: boolean; columns: number; stream: TerminalStream } {
    const stream = this.#streams.stderr;
    return { isTTY: stream.isTTY === true, columns: stream.columns ?? 0, stream };
  }

  #stdoutFailed(error: NodeJS.ErrnoException): void {
    if (this.stdoutError) return;
    this.stdoutError = error;
    if (error.code === 'EPIPE') return; // A reader that went away (`trigger ... | head -1`) is not news to anyone: stop writing, quietly.
    const why = error.code === 'ENOSPC' ? 'no space left on the device' : error.code === 'EIO' ? 'an I/O error' : error.message;
    const lost = this.printOnly ? 'the output is lost' : 'what was done stands, but its output is lost';
    this.stderr(`error: cannot write to standard output (${why}); ${lost}`);
  }

  /** Once what was written to stdout has gone out, or failed (then stdoutError says why). */
  flushed(): Promise<void> {
    return new Promise((resolve) => (this.stdoutError ? resolve() : this.#streams.stdout.write('', () => setImmediate(resolve))));
  }

  async useColors(env: NodeJS.ProcessEnv): Promise<void> {
    [this.outColors, this.errColors] = await Promise.all([
      paletteFor('stdout', env, this.#streams.stdout),
      paletteFor('stderr', env, this.#streams.stderr),
    ]);
  }

  /** Adds a value (the API key) that must never be printed. */
  addSecret(secret: string | undefined): void {
    this.#redactor.add(secret);
  }

  /** Masks server text (bodies, messages, headers), pieces of the key too: render.ts uses it there, never on the user's ids and values. */
  get serverMask(): ServerMask {
    return this.#redactor;
  }

  /** Text (a line, a reason for a file) with the whole key masked in any form. */
  redact(text: string): string {
    return this.#redactor.text(text);
  }

  /** One line of JSON with the key masked inside its strings and member names only. */
  redactJson(line: string): string {
    return this.#redactor.json(line);
  }

  json(line: string): void {
    if (!this.stdoutError) this.#streams.stdout.write(`${this.#redactor.json(line)}\n`);
  }

  /** Writes text to stderr as it is (no newline added), redacted like every line. */
  writeErr(text: string): void {
    if (!this.stderrError) this.#streams.stderr.write(this.redact(text));
  }

  /** The stream stdout lines go to (the batch writes its NDJSON there, with back-pressure). */
  get stdoutStream(): Streams['stdout'] {
    return this.#streams.stdout;
  }

  /** Writes text to stdout as it is (no newline added), redacted like every line. */
  write(text: string): void {
    if (!this.stdoutError) this.#streams.stdout.write(this.redact(text));
  }

  stdout(line: string): void {
    if (!this.stdoutError) this.#streams.stdout.write(`${this.redact(line)}\n`);
  }

  stderr(line: string): void {
    if (!this.stderrError) this.#streams.stderr.write(`${this.redact(line)}\n`);
  }
}

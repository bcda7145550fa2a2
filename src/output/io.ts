/**
 * The one place that writes to stdout and stderr. Every line passes through redaction, so a key that
 * a server echoes back, or that sits in a URL the user typed, is masked before it reaches a terminal
 * or a log; JSON lines are redacted inside their strings only, so they stay JSON.
 */
import { PLAIN, paletteFor, type Palette } from './colors.js';
import { Redactor, type ServerMask } from './redact.js';

export interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export class Output {
  readonly #redactor = new Redactor();
  readonly #streams: Streams;
  /** Colours for what goes to stdout, named by meaning (none when stdout is not a terminal, or NO_COLOR). */
  outColors: Palette = PLAIN;
  /** Colours for what goes to stderr. */
  errColors: Palette = PLAIN;

  constructor(streams: Streams = { stdout: process.stdout, stderr: process.stderr }) {
    this.#streams = streams;
  }

  /** Loads colours for the real process streams. */
  async useColors(env: NodeJS.ProcessEnv = process.env): Promise<void> {
    [this.outColors, this.errColors] = await Promise.all([paletteFor('stdout', env), paletteFor('stderr', env)]);
  }

  /** Adds a value (the API key) that must never be printed. */
  addSecret(secret: string | undefined): void {
    this.#redactor.add(secret);
  }

  /**
   * Masking for text that came from the server (bodies, messages, headers), where pieces of the key
   * are masked too; render.ts applies it to exactly those parts, never to the user's ids and values.
   */
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

  /** Writes one JSON line to stdout. */
  json(line: string): void {
    this.#streams.stdout.write(`${this.#redactor.json(line)}\n`);
  }

  /** Writes text to stderr as it is (no newline added), redacted like every line. */
  writeErr(text: string): void {
    this.#streams.stderr.write(this.redact(text));
  }

  /** The stream stdout lines go to (the batch writes its NDJSON there, with back-pressure). */
  get stdoutStream(): Streams['stdout'] {
    return this.#streams.stdout;
  }

  /** Writes text to stdout as it is (no newline added), redacted like every line. */
  write(text: string): void {
    this.#streams.stdout.write(this.redact(text));
  }

  stdout(line: string): void {
    this.#streams.stdout.write(`${this.redact(line)}\n`);
  }

  stderr(line: string): void {
    this.#streams.stderr.write(`${this.redact(line)}\n`);
  }
}

/**
 * The one place that writes to stdout and stderr. Every line passes through redaction, so a key that
 * a server echoes back, or that sits in a URL the user typed, is masked before it reaches a terminal
 * or a log.
 */
import { maskKey } from '../settings/validate.js';
import { PLAIN, paletteFor, type Palette } from './colors.js';

export interface Streams {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

export class Output {
  readonly #secrets = new Set<string>();
  readonly #streams: Streams;
  out: Palette = PLAIN;
  err: Palette = PLAIN;

  constructor(streams: Streams = { stdout: process.stdout, stderr: process.stderr }) {
    this.#streams = streams;
  }

  /** Loads colours for the real process streams. */
  async useColors(env: NodeJS.ProcessEnv = process.env): Promise<void> {
    [this.out, this.err] = await Promise.all([paletteFor('stdout', env), paletteFor('stderr', env)]);
  }

  /** Adds a value (the API key) that must never be printed. */
  addSecret(secret: string | undefined): void {
    if (secret && secret.trim().length >= 4) this.#secrets.add(secret.trim());
  }

  redact(text: string): string {
    let result = text;
    for (const secret of this.#secrets) result = result.split(secret).join(maskKey(secret));
    return result;
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

/**
 * Progress on stderr. In a terminal (see spinnerWanted), one line redrawn in place; lines written
 * meanwhile go through clear() first so that they never run into it. Without one (CI, a log file),
 * the same line as a plain line every PLAIN_PROGRESS_MS (10 s), so that a long job's log never goes silent.
 */
import type { Output } from './io.js';

/** How often a plain progress line is written when stderr is not a terminal. */
export const PLAIN_PROGRESS_MS = 10_000;

export class Progress {
  readonly #io: Output;
  readonly #render: () => string;
  readonly #plain: boolean;
  #timer: NodeJS.Timeout | undefined;
  #shown = false;

  /** `plain`: a plain line now and then instead of one redrawn in place. */
  constructor(io: Output, render: () => string, options: { plain?: boolean } = {}) {
    this.#io = io;
    this.#render = render;
    this.#plain = options.plain === true;
  }

  start(): void {
    this.#timer = setInterval(() => this.draw(), this.#plain ? PLAIN_PROGRESS_MS : 200);
    this.#timer.unref();
  }

  draw(): void {
    if (this.#plain) return this.#io.stderr(this.#render());
    this.#io.writeErr(`\r\x1b[K${this.#render()}`);
    this.#shown = true;
  }

  clear(): void {
    if (this.#shown) this.#io.writeErr('\r\x1b[K');
    this.#shown = false;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.clear();
  }
}

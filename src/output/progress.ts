/**
 * A progress line on stderr, redrawn in place, for a terminal only (see spinnerWanted). Lines written
 * meanwhile go through clear() first so that they never run into it.
 */
import type { Output } from './io.js';

export class Progress {
  readonly #io: Output;
  readonly #render: () => string;
  #timer: NodeJS.Timeout | undefined;
  #shown = false;

  constructor(io: Output, render: () => string) {
    this.#io = io;
    this.#render = render;
  }

  start(): void {
    this.#timer = setInterval(() => this.draw(), 200);
    this.#timer.unref();
  }

  draw(): void {
    this.#io.terminal.write(`\r\x1b[K${this.#render()}`);
    this.#shown = true;
  }

  clear(): void {
    if (this.#shown) this.#io.terminal.write('\r\x1b[K');
    this.#shown = false;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.clear();
  }
}

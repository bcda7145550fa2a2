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
    // Cut to the terminal's width, read at each draw (it may be resized), less the last column where some terminals wrap:
    // `\r ESC[K` clears one row, so a wrapped line left a row behind at every redraw (a 20-column pane, 81 characters when stopping).
    this.#io.writeErr(`\r\x1b[K${fit(this.#render(), this.#io.terminal.columns - 1)}`);
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

/** `line` cut to `width` columns (0 or less: the width is unknown, as it is); colour codes take none, and one cut inside them is closed. */
function fit(line: string, width: number): string {
  if (width < 1) return line;
  let [shown, out] = [0, ''];
  // eslint-disable-next-line no-control-regex
  for (const piece of line.split(/(\x1b\[[0-9;]*m)/)) {
    if (piece.startsWith('\x1b[')) {
      out += piece;
      continue;
    }
    const chars = [...piece];
    if (shown + chars.length > width) return out + chars.slice(0, width - shown).join('') + (out.includes('\x1b[') ? '\x1b[0m' : '');
    [shown, out] = [shown + chars.length, out + piece];
  }
  return out;
}

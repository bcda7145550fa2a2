/**
 * Progress on stderr. In a terminal (see spinnerWanted), one line redrawn in place; lines written meanwhile go through clear() first so
 * that they never run into it. Without one (CI, a log file), a plain line every PLAIN_PROGRESS_MS: a long job's log never goes silent.
 */
import type { Output } from './io.js';

export const PLAIN_PROGRESS_MS = 10_000; // How often a plain progress line is written when stderr is not a terminal.

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
    // One row, cut to the terminal's width, read at each draw (it may be resized), less ROOM: `\r ESC[K` clears one row, so a wrapped
    // line left a row behind at every redraw (a 20-column pane, 81 characters when stopping; at 80, the tty's ^C echo: audit25 #8).
    this.#io.writeErr(`\r\x1b[K${fit(this.#render(), this.#io.terminal.columns - ROOM)}`);
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

/** Left free: the last column, where some terminals wrap, and two for ^C's echo. Made narrower, no row is cleared upwards (docs/choices.md). */
export const ROOM = 3;
// eslint-disable-next-line no-control-regex
const [CODES, SEPARATOR] = [/\x1b\[[0-9;]*m/g, /(?=(?:\x1b\[[0-9;]*m)* \u00b7 )/];
/** What takes two columns (East Asian wide and fullwidth: CJK, kana, Hangul, fullwidth forms, most emoji); a combining mark takes none. */
const WIDE =
  /[\u1100-\u115f\u231a\u231b\u2329\u232a\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
const columns = (c: string) => (/\p{M}/u.test(c) ? 0 : WIDE.test(c) ? 2 : 1); // review26 #5: a CJK id counted one a character wrapped
const shown = (text: string) => [...text.replace(CODES, '')].reduce((n, c) => n + columns(c), 0);

/**
 * `line` cut to `width` terminal columns (0 or less: the width is unknown, as it is). The parts between ` · ` before the last go first, so that the
 * last (the stop, or the ETA) shows whole; then whole words, with `…` (a word longer than the width is cut). Colour codes take none.
 */
export function fit(line: string, width: number): string {
  if (width < 1 || shown(line) <= width) return line;
  const parts = line.split(SEPARATOR);
  while (parts.length > 2 && shown(parts.join('')) > width) parts.splice(-2, 1);
  if (shown(parts.join('')) <= width) return parts.join('');
  const words = parts.join('').split(/(?= )/);
  while (words.length > 1 && (shown(words.join('')) >= width || words.at(-1)!.replace(CODES, '') === ' \u00b7')) words.pop();
  let room = width - 1; // the single word's characters that fit (widths never negative: once one does not, none after it does)
  const cut = words.length > 1 ? words.join('') : [...words[0]!.replace(CODES, '')].filter((c) => (room -= columns(c)) >= 0).join('');
  return `${cut}\u2026${cut.includes('\x1b[') ? '\x1b[0m' : ''}`;
}

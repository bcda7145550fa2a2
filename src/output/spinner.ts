/**
 * An ora spinner on stderr, only where a person is watching: stderr is a terminal that reports a size (a pty nobody sized says 0 columns,
 * and ora redraws forever), it is not TERM=dumb, and CI is not set. ora loads in the background so the request does not wait for it.
 */
import { fit, ROOM } from './progress.js';
import type { TerminalStream } from './io.js';

type Spinner = { stop(): void; update(text: string): void }; // update: changes what the spinner says (for a wait before a retry).

const NONE: Spinner = { stop() {}, update() {} };

export const spinnerWanted = (env: NodeJS.ProcessEnv, stream: { isTTY?: boolean; columns?: number }): boolean =>
  stream.isTTY === true && !env.CI && env.TERM !== 'dumb' && (stream.columns ?? 0) > 0;

/** `color`: whether stderr gets colours (NO_COLOR, FORCE_COLOR; see colors.ts). `stream`: the terminal's. */
export function startSpinner(text: string, enabled: boolean, color: boolean, stream: TerminalStream): Spinner {
  if (!enabled) return NONE;
  let stopped = false;
  let spinner: { stop(): unknown; text: string } | undefined;
  let current = text;
  // One row, cut as the progress line is, less the frame and its space: ora left a long id's rows behind when resized (audit25 #8).
  const cut = () => fit(current, (stream.columns ?? 0) - ROOM - 2);
  const resized = () => spinner && (spinner.text = cut());
  stream.on('resize', resized);
  void import('ora')
    .then(({ default: ora }) => {
      if (!stopped) spinner = ora({ text: cut(), stream, discardStdin: false, color: color ? 'cyan' : false }).start();
    })
    .catch(() => undefined);
  return {
    stop() {
      stopped = true;
      stream.off('resize', resized);
      spinner?.stop();
    },
    update(next: string) {
      current = next;
      if (spinner) spinner.text = cut();
    },
  };
}

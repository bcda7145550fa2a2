/**
 * An ora spinner on stderr, only where a person is watching: stderr is a terminal that reports a size (a pty nobody sized says 0 columns,
 * and ora redraws forever), it is not TERM=dumb, and CI is not set. ora loads in the background so the request does not wait for it.
 */
interface Spinner {
  stop(): void;
  update(text: string): void; // Changes what the spinner says (for a wait before a retry).
}

const NONE: Spinner = { stop() {}, update() {} };

export const spinnerWanted = (env: NodeJS.ProcessEnv, stream: { isTTY?: boolean; columns?: number }): boolean =>
  stream.isTTY === true && !env.CI && env.TERM !== 'dumb' && (stream.columns ?? 0) > 0;

/** `color`: whether stderr gets colours (NO_COLOR, FORCE_COLOR; see colors.ts). `stream`: the terminal's. */
export function startSpinner(text: string, enabled: boolean, color: boolean, stream: NodeJS.WritableStream): Spinner {
  if (!enabled) return NONE;
  let stopped = false;
  let spinner: { stop(): unknown; text: string } | undefined;
  let current = text;
  void import('ora')
    .then(({ default: ora }) => {
      if (!stopped) spinner = ora({ text: current, stream, discardStdin: false, color: color ? 'cyan' : false }).start();
    })
    .catch(() => undefined);
  return {
    stop() {
      stopped = true;
      spinner?.stop();
    },
    update(next: string) {
      current = next;
      if (spinner) spinner.text = next;
    },
  };
}

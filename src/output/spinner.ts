/**
 * An ora spinner on stderr, only where a person is watching: stderr is a terminal that reports a size
 * (a pty nobody sized reports 0 columns, and ora then redraws forever), it is not TERM=dumb, and CI is
 * not set. ora is loaded in the background so the request does not wait for it.
 */
export interface Spinner {
  stop(): void;
}

const NONE: Spinner = { stop() {} };

export function spinnerWanted(env: NodeJS.ProcessEnv = process.env, stream: { isTTY?: boolean; columns?: number } = process.stderr): boolean {
  return stream.isTTY === true && !env.CI && env.TERM !== 'dumb' && (stream.columns ?? 0) > 0;
}

/** `color`: whether stderr gets colours (NO_COLOR, FORCE_COLOR; see colors.ts). */
export function startSpinner(text: string, enabled: boolean, color = true): Spinner {
  if (!enabled) return NONE;
  let stopped = false;
  let spinner: { stop(): unknown } | undefined;
  void import('ora')
    .then(({ default: ora }) => {
      if (!stopped) spinner = ora({ text, stream: process.stderr, discardStdin: false, color: color ? 'cyan' : false }).start();
    })
    .catch(() => undefined);
  return {
    stop() {
      stopped = true;
      spinner?.stop();
    },
  };
}

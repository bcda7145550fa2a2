/**
 * An ora spinner on stderr, only where a person is watching: stderr is a TTY and CI is not set.
 * ora is loaded in the background so the request does not wait for it.
 */
export interface Spinner {
  stop(): void;
}

const NONE: Spinner = { stop() {} };

export function spinnerWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return process.stderr.isTTY === true && !env.CI;
}

export function startSpinner(text: string, enabled: boolean): Spinner {
  if (!enabled) return NONE;
  let stopped = false;
  let spinner: { stop(): unknown } | undefined;
  void import('ora')
    .then(({ default: ora }) => {
      if (!stopped) spinner = ora({ text, stream: process.stderr, discardStdin: false }).start();
    })
    .catch(() => undefined);
  return {
    stop() {
      stopped = true;
      spinner?.stop();
    },
  };
}

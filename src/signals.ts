/**
 * SIGINT, SIGTERM and SIGHUP all stop a command the same way: Ctrl-C, `timeout`, `docker stop`,
 * Kubernetes, systemd and a cancelled CI job must each get the summary, the kept rows and the JSON
 * object that Ctrl-C gets. While a handler is installed Node does not die of these signals.
 */
import { STOP_SIGNALS, type StopSignal } from './errors.js';

/** Calls `handler` for each stop signal (with how many have come so far) until the returned function is called. */
export function onStopSignals(handler: (signal: StopSignal, count: number) => void): () => void {
  let count = 0;
  const listeners = (Object.keys(STOP_SIGNALS) as StopSignal[]).map((signal) => {
    const listener = () => handler(signal, ++count);
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) process.removeListener(signal, listener);
  };
}

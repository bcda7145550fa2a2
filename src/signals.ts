/**
 * SIGINT, SIGTERM and SIGHUP stop a command alike: Ctrl-C, `timeout`, `docker stop`, Kubernetes, systemd and a cancelled CI job must each
 * get the summary, the kept rows and the JSON object that Ctrl-C gets. While a handler is installed Node does not die of these signals.
 */
import { STOP_SIGNALS, type StopSignal } from './errors.js';

const ECHO_MS = 50; // A signal again within this many ms is the same one delivered twice, not a second (see onStopSignals).

/**
 * Calls `handler` for each stop signal (with how many have come so far) until the returned function is called. GNU `timeout`
 * signals its child and then the child's process group, so one `timeout` can deliver SIGTERM twice at once (inputs20: 1 run
 * in 6), which a batch took for a second signal and cancelled its requests in flight: the same signal within ECHO_MS is one.
 */
export function onStopSignals(handler: (signal: StopSignal, count: number) => void): () => void {
  let [count, last, at] = [0, '', -Infinity];
  const listeners = (Object.keys(STOP_SIGNALS) as StopSignal[]).map((signal) => {
    const listener = () => {
      const now = performance.now();
      if (signal === last && now - at < ECHO_MS) return;
      [last, at] = [signal, now];
      handler(signal, ++count);
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) process.removeListener(signal, listener);
  };
}

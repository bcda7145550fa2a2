/**
 * V8 settings made at run time, each for one command and each measured (README, Performance). Flags
 * at start-up would need a second Node process, and signals, exit codes and `kill -9` must reach the
 * process that does the work; these are flags V8 reads when it uses them, so setting them late works.
 */
import { setFlagsFromString } from 'node:v8';

/**
 * undici parses HTTP with WebAssembly; on Node 20, V8's optimising tier-up of it runs in the
 * background and the process waits for it at exit, about 100 ms on every `trigger fire`. The baseline
 * compiler is plenty for one request. Set after undici is loaded: set earlier, the flag made Node
 * discard its stored compiled code for every built-in loaded afterwards (http, net and tls went from
 * 12.6 to 27.6 ms). Node 22 and 24 do not wait at exit, and there the flag cost 14-18 ms.
 */
export function keepWasmOnBaselineTier(): void {
  if (process.versions.node.startsWith('20.')) setFlagsFromString('--liftoff-only');
}

/**
 * A batch makes a few short-lived objects per row, and V8 answers a steady stream of them by growing
 * the young generation (doubling each time, to 16 MB semi-spaces on Node 20 and more on 24): 239 MB
 * peak RSS for 200,000 rows on Node 24, 122 MB on 20. Keeping it at its starting size (growth factor
 * 1, read by V8 each time it would grow) gave 125 MB and 106 MB, and no measurable loss of rate
 * (rounds within noise on both). `--max-semi-space-size` would do the same, but only at start-up.
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * V8 settings made at run time, each for one command and each measured (README, Performance). Flags
 * at start-up would need a second Node process, and signals, exit codes and `kill -9` must reach the
 * process that does the work; these are flags V8 reads when it uses them, so setting them late works.
 */

/**
 * Sets a V8 flag. bin/trigger.cjs on Node 20 keeps a V8 code cache, which V8 accepts only under the
 * flags it was made with, so the bin's hook makes it first. node:v8 is loaded only here (2 ms).
 */
function setFlag(flag: string): void {
  const beforeV8Flags = (globalThis as Record<symbol, unknown>)[Symbol.for('trigger.beforeV8Flags')];
  if (typeof beforeV8Flags === 'function') beforeV8Flags();
  process.getBuiltinModule('node:v8').setFlagsFromString(flag);
}

/**
 * undici parses HTTP with WebAssembly; on Node 20, V8's optimising tier-up of it runs in the
 * background and the process waits for it at exit, about 100 ms on every `trigger fire`. The baseline
 * compiler is plenty for one request. Set after undici is loaded: set earlier, the flag made Node
 * discard its stored compiled code for every built-in loaded afterwards (http, net and tls went from
 * 12.6 to 27.6 ms). Node 22 and 24 do not wait at exit, and there the flag cost 14-18 ms.
 */
export function keepWasmOnBaselineTier(): void {
  if (process.versions.node.startsWith('20.')) setFlag('--liftoff-only');
}

/**
 * A batch makes a few short-lived objects per row, and V8 answers a steady stream of them by growing
 * the young generation (doubling each time, to 16 MB semi-spaces on Node 20 and more on 24): 239 MB
 * peak RSS for 200,000 rows on Node 24, 122 MB on 20. Keeping it at its starting size (growth factor
 * 1, read by V8 each time it would grow) gave 125 MB and 106 MB, and no measurable loss of rate
 * (rounds within noise on both). `--max-semi-space-size` would do the same, but only at start-up.
 */
export function keepYoungGenerationSmall(): void {
  setFlag('--semi-space-growth-factor=1');
}

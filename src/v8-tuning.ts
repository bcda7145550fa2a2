/**
 * V8 settings made at run time, each for one command and each measured (docs/performance.md). Flags
 * at start-up would need a second Node process, and signals, exit codes and `kill -9` must reach the
 * process that does the work; these are flags V8 reads when it uses them, so setting them late works.
 */

/**
 * Sets V8 flags, telling bin/trigger.cjs how to undo them: it keeps a V8 code cache, which V8 accepts
 * only under the flags it was made with, and makes it at exit, after undoing these. `undo` must bring
 * back every flag `flags` changed, implied ones included, or the cache is made anew on every run
 * (test/e2e/startup.test.ts checks it is not). node:v8 is loaded only here, where it is needed.
 */
function setFlags(flags: string, undo: string): void {
  const changed = (globalThis as Record<symbol, unknown>)[Symbol.for('trigger.v8FlagsChanged')];
  if (typeof changed === 'function') changed(undo);
  process.getBuiltinModule('node:v8').setFlagsFromString(flags);
}

/**
 * undici parses HTTP with WebAssembly; on Node 20, V8's optimising tier-up of it runs in the
 * background and the process waits for it at exit. The baseline compiler is plenty for one request.
 * Set after undici is loaded: set earlier, the flag made Node discard its stored compiled code for
 * every built-in loaded afterwards. Node 22 and 24 do not wait at exit, and there the flag only costs:
 * Node 20 alone gets it. (Figures: docs/performance.md, "Numbers behind the code's choices".)
 */
export function keepWasmOnBaselineTier(): void {
  // --liftoff-only implies the other two off; Node 20's defaults have them on.
  if (process.versions.node.startsWith('20.')) setFlags('--liftoff-only', '--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering');
}

/**
 * The largest young generation a batch lets V8 have: 32 MB, as far as Node 20 goes by itself. Node
 * 24 goes on doubling it, which raises peak RSS at no gain in rate; a smaller cap costs rate. (Figures:
 * docs/performance.md.)
 */
const YOUNG_GENERATION_CAP = 32 * 1024 * 1024;

/**
 * Keeps V8's young generation at YOUNG_GENERATION_CAP at most while a batch runs, by switching V8's
 * `--semi-space-growth-factor` between 1 (do not grow) at the cap and 2 (V8's default) below it.
 * V8 reads the factor each time it would grow (unlike `--max-semi-space-size`, fixed at start-up),
 * and it shrinks the young generation now and then, which with the factor left at 1 it could never
 * undo. Returns a function that stops watching.
 */
export function capYoungGeneration(): () => void {
  const v8 = process.getBuiltinModule('node:v8');
  let holding = false;
  const check = () => {
    const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    if (!young) return;
    const atCap = young.space_size >= YOUNG_GENERATION_CAP;
    if (atCap === holding) return;
    holding = atCap;
    setFlags(`--semi-space-growth-factor=${atCap ? 1 : 2}`, '--semi-space-growth-factor=2');
  };
  const timer = setInterval(check, 10);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (holding) setFlags('--semi-space-growth-factor=2', '--semi-space-growth-factor=2');
  };
}

/**
 * Start-up, in one room (docs/startup.md): what bin/trigger.cjs runs before the CLI. The inspector guard, then a V8 code cache of
 * dist/cli.cjs used only from the very file this user's trigger wrote for this very bundle, and the V8 flags the commands set at run time,
 * undone before the cache data is made. TRIGGER_NO_STARTUP_CACHE=1 turns the cache and the flags off, for debugging. Built on its own to
 * dist/startup.cjs; the CLI bundle exports restoreV8Flags for start() to call.
 */
import fs from 'node:fs';
import nodeModule from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { makeFolders, writeFileAtomic } from './atomic-write.js';
import { configFolder, homeDir, xdgDir } from './settings/paths.js';
import { tryOr } from './try-or.js';
import { VERSION } from './version.js';
import type * as CliModule from './cli.js';

const off = () => process.env.TRIGGER_NO_STARTUP_CACHE === '1';

type Cli = typeof CliModule;

export function start(bundle: string): void {
  guardInspector();
  const args = process.argv.slice(2);
  // `--version` (which scripts call often) is answered without loading the CLI at all.
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) return void process.stdout.write(`${VERSION}\n`);
  const cli = (off() ? nodeModule.createRequire(bundle)(bundle) : runWithCodeCache(bundle)) as Cli;
  void cli.main().then((code) => (process.exitCode = code));
}

/**
 * First, before anything reads the API key: Node opens its inspector (a debugger on 127.0.0.1:9229, which any local user can connect to and
 * read process.env from) on SIGUSR1, unless the process has a SIGUSR1 listener of its own. So the signal is taken and ignored. One that
 * came during start-up has opened the inspector or is about to: it is closed now and after the event loop's first turn (Node starts it from
 * an interrupt and again from the loop), unless Node was started with --inspect. process._debugEnd does nothing without an inspector.
 */
function guardInspector(): void {
  if (process.platform === 'win32') return; // no SIGUSR1
  process.on('SIGUSR1', () => {});
  const options = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  const asked = options.includes('--inspect') && /--inspect(?:-brk|-wait)?(?:[=\s]|$)/.test(options);
  const debugEnd = (process as unknown as { _debugEnd?: () => void })._debugEnd;
  if (asked || typeof debugEnd !== 'function') return;
  debugEnd.call(process);
  setImmediate(() => debugEnd.call(process));
}

/** The cache folder; an empty HOME or a relative XDG_CACHE_HOME is not the current folder (audit26: HOME= left caches in a checkout). */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(homeDir(env), 'AppData', 'Local'), 'trigger', 'Cache');
  if (process.platform === 'darwin') return path.join(homeDir(env), 'Library', 'Caches', 'trigger');
  return path.join(xdgDir(env, 'XDG_CACHE_HOME', '.cache'), 'trigger');
}

/**
 * Compiles dist/cli.cjs as Node would a CommonJS module, with V8 code cache data kept in the cache folder (Node's own compile cache costs
 * 16-19% more CPU per fire; Node 20 has none). V8 checks only the source's length, its version and flags before it runs cache data as code,
 * so data is used only where code-cache.json in the config folder records this very file, made for this very bundle: fileIdentity of both,
 * Node's and V8's versions, the start-up flags (docs/startup.md says why each check, and why not an HMAC). Nothing here may fail the
 * command: no cache is only a slower start.
 */
function runWithCodeCache(file: string): Cli {
  const fd = fs.openSync(file, 'r');
  const bundleStat = fs.fstatSync(fd, { bigint: true });
  // The build checks that the bundle is ASCII, which latin1 reads exactly and fastest.
  const source = fs.readFileSync(fd, 'latin1');
  // A bundle replaced while it was read (an update) is compiled without the cache.
  const unchanged = fileIdentity(fs.fstatSync(fd, { bigint: true })) === fileIdentity(bundleStat);
  fs.closeSync(fd);
  const bundle = `cli-${fnv1a(file)}`;
  const build = `${bundle}-${fnv1a(JSON.stringify([String(bundleStat.size), String(bundleStat.mtimeNs)]))}`;
  const startFlags = [process.execArgv, process.env.NODE_OPTIONS || ''];
  const name = `${build}-${fnv1a(JSON.stringify(startFlags))}-node${process.versions.node}-${process.arch}.v8cache`;
  const madeFor = JSON.stringify([process.versions.node, process.versions.v8, process.arch, startFlags, file, fileIdentity(bundleStat)]);
  // cacheDir() throws for a user without a home folder or a passwd entry: no cache, a slower start.
  const cacheFile = tryOr(() => path.join(cacheDir(), name));
  const cachedData = tryOr(() =>
    cacheFile !== undefined && unchanged && privateFolder(path.dirname(cacheFile), false)
      ? readCache(cacheFile, readOwnRecord(recordsFile(), MAX_RECORDS_BYTES)[name], madeFor)
      : undefined,
  );
  const script = new vm.Script(nodeModule.wrap(source), { filename: file, cachedData });
  const module = { exports: {} as Cli };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper(module.exports, nodeModule.createRequire(file), module, file, path.dirname(file));
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    // Made when the process is about to exit, so every function the command compiled is in it.
    process.once('beforeExit', () => writeCache(module.exports, script, cacheFile, { bundle, build, madeFor }));
  }
  return module.exports;
}

/**
 * Writes new cache data whole, with its record, and removes the files of earlier builds of the same bundle (those for other flags are kept:
 * a job may alternate them). V8 rejects data made under other flags, so the flags the command changed are set back first.
 */
function writeCache(cli: Cli, script: vm.Script, cacheFile: string, names: Record<'bundle' | 'build' | 'madeFor', string>) {
  const dir = path.dirname(cacheFile);
  try {
    cli.restoreV8Flags();
    if (!privateFolder(dir, true) || !recordsWritable()) return;
    writeFileAtomic(cacheFile, script.createCachedData(), { mode: 0o600, forceMode: true, follow: false });
    // Taken after the rename, which moves the change time.
    const identity = fileIdentity(fs.lstatSync(cacheFile, { bigint: true }));
    const present = new Set(fs.readdirSync(dir));
    for (const other of present) {
      if (other.startsWith(`${names.bundle}-`) && !other.startsWith(`${names.build}-`) && other.endsWith('.v8cache')) {
        fs.rmSync(path.join(dir, other), { force: true });
        present.delete(other);
      }
    }
    const records = readOwnRecord(recordsFile(), MAX_RECORDS_BYTES);
    for (const other of Object.keys(records)) if (!present.has(other)) delete records[other];
    records[path.basename(cacheFile)] = { file: identity, for: names.madeFor };
    // In the folder recordsWritable made, 0600, replacing the file whole.
    writeFileAtomic(recordsFile(), `${JSON.stringify(records)}\n`, { mode: 0o600, forceMode: true, follow: false });
  } catch {
    // A file without its record would only be written again by every run.
    tryOr(() => fs.rmSync(cacheFile, { force: true }));
  }
}

/**
 * A file as the kernel knows it: what changes with any write, chmod, chown, rename or copy. The change time carries it (which no one can
 * set: any write, chmod, chown or rename moves it to the present), and the birth time, where a file system has no change time of its own.
 */
const fileIdentity = (stat: fs.BigIntStats) => [stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs, stat.birthtimeNs].join(':');

/** Windows: the folder's access list decides. */
export const writableByOwnerOnly = (stat: fs.Stats | fs.BigIntStats): boolean =>
  process.platform === 'win32' || (Number(stat.mode) & 0o022) === 0;

/** This user's, and no one else can write to it (Windows has no owners to compare here). */
const ownedPrivately = (stat: fs.Stats | fs.BigIntStats) =>
  typeof process.getuid !== 'function' || (BigInt(stat.uid) === BigInt(process.getuid()) && writableByOwnerOnly(stat));

/**
 * Whether the cache folder can be trusted: a real folder, this user's, that no one else can write to. One that does not exist is made
 * (0700) when `make` is set. One not trusted is left as it is (an existing folder keeps its mode): the cache is not used, a slower start.
 */
function privateFolder(dir: string, make: boolean): boolean {
  return tryOr(() => {
    if (make) makeFolders(dir);
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && ownedPrivately(stat);
  }, false);
}

/**
 * What `read` makes of a regular file of this user's that no one else can write, opened never through
 * a symbolic link (and never blocking on a FIFO); undefined where it cannot, or `read` throws.
 */
function readMine<T>(file: string, read: (fd: number, stat: fs.BigIntStats) => T | undefined): T | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW || 0) | (fs.constants.O_NONBLOCK || 0));
    const stat = fs.fstatSync(fd, { bigint: true });
    return stat.isFile() && ownedPrivately(stat) ? read(fd, stat) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * A record the tool keeps (a JSON object), if its file is this user's own regular file that no one else can write, reached through no link,
 * and at most `limit` bytes; else none. The code cache's records and the catalogs' checked record (catalog/load.ts) are read so.
 */
export function readOwnRecord(file: string, limit: number): Record<string, unknown> {
  const data = readMine(file, (fd, stat) =>
    stat.size <= BigInt(limit) ? (JSON.parse(fs.readFileSync(fd, 'utf8')) as unknown) : undefined,
  );
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

function readCache(cacheFile: string, record: unknown, madeFor: string): Buffer | undefined {
  const { file, for: made } = (record ?? {}) as { file?: unknown; for?: unknown };
  if (made !== madeFor || typeof file !== 'string') return undefined;
  return readMine(cacheFile, (fd, stat) => {
    if (fileIdentity(stat) !== file) return undefined;
    const data = fs.readFileSync(fd);
    // Unchanged while it was read, too.
    return fileIdentity(fs.fstatSync(fd, { bigint: true })) === file ? data : undefined;
  });
}

/** The config folder's file of cache records: { [cache file name]: { file, for } }; none for a relative TRIGGER_CONFIG_DIR (refused). */
const recordsFile = () => {
  const folder = configFolder();
  if (folder === undefined) throw new Error('TRIGGER_CONFIG_DIR is relative: no code cache');
  return path.join(folder, 'code-cache.json');
};
const MAX_RECORDS_BYTES = 1024 * 1024;

/**
 * Whether the records can be kept: the config folder (made 0700 if need be) is writable. Checked
 * before the cache data is made, so that a read-only config folder does not cost every run that.
 */
function recordsWritable(): boolean {
  const dir = path.dirname(recordsFile());
  return tryOr(() => {
    makeFolders(dir);
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  }, false);
}

function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

// V8 flags. Set at run time, each for one command and each measured (docs/performance.md): flags at
// start-up would need a second Node process, and signals, exit codes and `kill -9` must reach the
// process that does the work; these are flags V8 reads when it uses them, so setting them late works.

const undoFlags: string[] = []; // The flags that undo each change, in the order made.

/**
 * Sets V8 flags, remembering how to undo them: V8 accepts cache data only under the flags it was made with. `undo` must bring back every
 * flag `flags` changed, implied ones included, or the cache is made anew on every run (test/e2e/startup.test.ts checks it is not).
 */
function setV8Flags(flags: string, undo: string): void {
  if (off()) return;
  undoFlags.push(undo);
  process.getBuiltinModule('node:v8').setFlagsFromString(flags);
}

export function restoreV8Flags(): void {
  for (const flags of undoFlags.reverse()) process.getBuiltinModule('node:v8').setFlagsFromString(flags);
  undoFlags.length = 0;
}

/**
 * undici parses HTTP with WebAssembly; on Node 20, V8's optimising tier-up of it runs in the background and the process waits for it at
 * exit. The baseline compiler is plenty for one request. Set after undici is loaded: set earlier, the flag made Node discard its stored
 * compiled code for every built-in loaded afterwards. Node 22 and 24 do not wait at exit, and there the flag only costs.
 */
export function keepWasmOnBaselineTier(): void {
  // --liftoff-only implies the other two off; Node 20's defaults have them on.
  if (process.versions.node.startsWith('20.')) setV8Flags('--liftoff-only', '--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering');
}

/**
 * The largest young generation a batch lets V8 have: 32 MB, as far as Node 20 goes by itself. Node 24 goes on doubling it, which raises
 * peak RSS at no gain in rate; a smaller cap costs rate. A Parquet read lowers it to 8 MB (youngGenerationForParquet): it decodes 65,536
 * rows of each column at once, and with 32 MB Node 24 peaked at 156-162 MB against 129-132 MB at 8 MB (1,000,000 rows).
 */
let youngGenerationCap = 32 * 1024 * 1024;

export function youngGenerationForParquet(): void {
  youngGenerationCap = 8 * 1024 * 1024;
}

/**
 * Holds V8's young generation at youngGenerationCap while a batch runs, by `--semi-space-growth-factor`: 1 (do not grow) at the cap, else
 * the factor that reaches it (half that from V8's first 1 MB, which Node 24 grows by twice the factor, Node 20 by 2 then by the factor); by
 * 2s it scavenged every 1-2 ms for a second, 3% of CPU. V8 reads the factor each time it would grow (its least size is set at start-up),
 * and shrinks the young generation now and then, which with the factor left at 1 it could never undo. Returns a function to stop watching.
 */
export function capYoungGeneration(): () => void {
  const v8 = process.getBuiltinModule('node:v8');
  let factor = 2; // V8's default
  const check = () => {
    const size = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size || youngGenerationCap;
    const next = size >= youngGenerationCap ? 1 : Math.max(2, Math.floor(youngGenerationCap / (size > 2 ** 20 ? size : 2 * size)));
    if (next === factor) return;
    factor = next;
    setV8Flags(`--semi-space-growth-factor=${next}`, '--semi-space-growth-factor=2');
  };
  check();
  // The old generation grows by 5% past what survived a full collection, not V8's up to 4x: a batch
  // promotes much short-lived data (a Parquet slice's strings), and the default let its peak pass 150 MB.
  setV8Flags('--heap-growing-percent=5', '--heap-growing-percent=0');
  const timer = setInterval(check, 10);
  timer.unref();
  return () => {
    clearInterval(timer);
    setV8Flags('--heap-growing-percent=0', '--heap-growing-percent=0');
    if (factor !== 2) setV8Flags('--semi-space-growth-factor=2', '--semi-space-growth-factor=2');
  };
}

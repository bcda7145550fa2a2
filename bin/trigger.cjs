#!/usr/bin/env node
'use strict';
// First, before anything reads the API key: Node opens its inspector (a debugger on 127.0.0.1:9229,
// which any local user can connect to and read process.env from) on SIGUSR1, unless the process has
// a SIGUSR1 listener of its own. So the signal is taken and ignored, for every command. (Windows has
// no SIGUSR1.)
if (process.platform !== 'win32') process.on('SIGUSR1', () => {});
// CommonJS and small, because start-up is most of what `trigger fire` costs (README, Performance).
// `--version` (which scripts call often) is answered without loading the CLI at all. Everything else
// runs dist/cli.cjs, the CLI bundled into one file, kept compiled between runs in a V8 code cache of
// ours (see runWithCodeCache).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${require('../dist/version.cjs').VERSION}\n`);
} else {
  const cli = runWithCodeCache(require('node:path').join(__dirname, '..', 'dist', 'cli.cjs'));
  cli.main().then((code) => {
    process.exitCode = code;
  });
}

/** The user's cache folder for trigger (XDG on Linux, Library/Caches on macOS, LOCALAPPDATA on Windows). */
function cacheDir() {
  const os = require('node:os');
  const path = require('node:path');
  const env = process.env;
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(os.homedir(), 'AppData', 'Local'), 'trigger', 'Cache');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches', 'trigger');
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'trigger');
}

/**
 * Compiles dist/cli.cjs as Node would a CommonJS module, with V8 code cache data kept in the cache
 * folder, made once a command has compiled what it runs (see below). Node 22 and 24 have a compile
 * cache of their own (module.enableCompileCache), but with it a fire took 62 ms of CPU time on Node
 * 22 and 66 ms on 24, against 50 and 56 ms with this; Node 20 has none.
 *
 * V8 accepts cache data only for the same V8 and flags, and checks the source by its length alone,
 * so the file is named for this bundle (its path), its build (size and time), the flags Node was
 * started with, and Node's version. Stale or damaged data is rejected by V8, and then, as
 * when there is none, new data is written: to a temporary file renamed into place, so a reader never
 * sees half of one; the files of earlier builds of the same bundle are removed then (those for other
 * flags are kept: a job may alternate them). Nothing here may fail the command: a cache that cannot
 * be read or written is only a slower start.
 *
 * The data is made when the process is about to exit, so every function the command compiled is in
 * it. V8 rejects data made under other flags than the ones it is used with, so the flags the command
 * changed (src/v8-tuning.ts reports each, with the flags that undo it) are set back first.
 */
function runWithCodeCache(file) {
  const fs = require('node:fs');
  const path = require('node:path');
  const vm = require('node:vm');
  const nodeModule = require('node:module');
  const dir = cacheDir();
  const { size, mtimeMs } = fs.statSync(file);
  const bundle = `cli-${fnv1a(file)}`;
  const build = `${bundle}-${fnv1a(JSON.stringify([size, mtimeMs]))}`;
  const flags = fnv1a(JSON.stringify([process.execArgv, process.env.NODE_OPTIONS || '']));
  const cacheFile = path.join(dir, `${build}-${flags}-node${process.versions.node}-${process.arch}.v8cache`);
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // none yet
  }
  // The build checks that the bundle is ASCII, which latin1 reads exactly and fastest.
  const script = new vm.Script(nodeModule.wrap(fs.readFileSync(file, 'latin1')), { filename: file, cachedData });
  // V8 loses import() in a script compiled from cache data; the bundle imports through this instead.
  globalThis[Symbol.for('trigger.import')] = (id) => import(id);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, nodeModule.createRequire(file), module, file, path.dirname(file));
  if (cachedData === undefined || script.cachedDataRejected) {
    // V8 flags the command changes (src/v8-tuning.ts), each with the flags that undo it.
    const undo = [];
    globalThis[Symbol.for('trigger.v8FlagsChanged')] = (flags) => undo.push(flags);
    const write = () => {
      const temp = `${cacheFile}.${process.pid}.tmp`;
      try {
        for (const flags of undo.reverse()) require('node:v8').setFlagsFromString(flags);
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        fs.writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
        fs.renameSync(temp, cacheFile);
        for (const name of fs.readdirSync(dir)) {
          if (name.startsWith(`${bundle}-`) && !name.startsWith(`${build}-`) && name.endsWith('.v8cache'))
            fs.rmSync(path.join(dir, name), { force: true });
        }
      } catch {
        try {
          fs.rmSync(temp, { force: true });
        } catch {
          // the folder could not be made
        }
      }
    };
    process.once('beforeExit', write);
  }
  return module.exports;
}

function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

#!/usr/bin/env node
'use strict';
// First, before anything reads the API key: Node opens its inspector (a debugger on 127.0.0.1:9229,
// which any local user can connect to and read process.env from) on SIGUSR1, unless the process has
// a SIGUSR1 listener of its own. So the signal is taken and ignored, for every command. (Windows has
// no SIGUSR1.) One that came during Node's own start-up, before this line, has opened the inspector
// or is about to: it is closed now, and again after the event loop's first turn (Node starts it
// from an interrupt and again from the loop, so the first close alone can be undone), unless the
// user started Node with --inspect. process._debugEnd stops a listening inspector and does nothing
// otherwise.
/* global setImmediate */
if (process.platform !== 'win32') {
  process.on('SIGUSR1', () => {});
  const options = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS || ''}`;
  const asked = options.includes('--inspect') && /--inspect(?:-brk|-wait)?(?:[=\s]|$)/.test(options);
  if (!asked && typeof process._debugEnd === 'function') {
    process._debugEnd();
    setImmediate(() => process._debugEnd());
  }
}
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

/** The folder of config.json, as src/settings/paths.ts finds it (keep the two in step). */
function configDir() {
  const os = require('node:os');
  const path = require('node:path');
  const env = process.env;
  if (env.TRIGGER_CONFIG_DIR) return path.resolve(env.TRIGGER_CONFIG_DIR);
  const home = env.HOME || os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Preferences', 'trigger');
  if (process.platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'trigger', 'Config');
  const xdg = env.XDG_CONFIG_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'trigger');
}

/**
 * Compiles dist/cli.cjs as Node would a CommonJS module, with V8 code cache data kept in the cache
 * folder, made once a command has compiled what it runs (see below). Node 22 and 24 have a compile
 * cache of their own (module.enableCompileCache), but with it a fire took 62 ms of CPU time on Node
 * 22 and 66 ms on 24, against 50 and 56 ms with this; Node 20 has none.
 *
 * V8 runs the cache data it is given as compiled code, checking only that the source has the same
 * length and that V8 and its flags are the same: data made from other code of that length runs that
 * code, with the key in the environment. So data is used only from the very file this user's trigger
 * wrote for this very bundle, unchanged since. When it writes one, it records in the config folder
 * (code-cache.json, 0600; never in the cache folder, which a CI cache may restore from elsewhere)
 * the file's identity as the kernel keeps it, device, inode, size and change time (ctime, which no
 * one can set: any write, chmod, chown or rename moves it to the present), with the same identity
 * of dist/cli.cjs and Node's version, V8's and the start-up flags. A file is used only if all of it
 * matches. A file planted or changed in place, restored from a cache, or made for another build or
 * install has another identity; a file or record another user owns, a record others can write to,
 * and a cache folder another user owns or can write to are not trusted either. Each is treated as
 * no cache, and the file is written anew. (An HMAC of the data under a secret kept there as well
 * did the same, but loading node:crypto cost every start 4-7 ms of CPU time: docs/startup.md.)
 *
 * Data that passes is still checked by V8 (it rejects data for another V8 or flags), and then, as
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
  let dir;
  try {
    dir = cacheDir();
  } catch {
    // no home folder (a user without a passwd entry): no cache
  }
  // The identity and the bytes of the same open file.
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
  const flags = fnv1a(JSON.stringify(startFlags));
  const name = `${build}-${flags}-node${process.versions.node}-${process.arch}.v8cache`;
  const cacheFile = dir === undefined ? undefined : path.join(dir, name);
  // What the data was made for.
  const madeFor = JSON.stringify([process.versions.node, process.versions.v8, process.arch, startFlags, file, fileIdentity(bundleStat)]);
  let cachedData;
  try {
    if (cacheFile !== undefined && unchanged && privateFolder(dir, false)) cachedData = readCache(cacheFile, readRecords()[name], madeFor);
  } catch {
    // no cache: a slower start
  }
  const script = new vm.Script(nodeModule.wrap(source), { filename: file, cachedData });
  // V8 loses import() in a script compiled from cache data; the bundle imports through this instead.
  globalThis[Symbol.for('trigger.import')] = (id) => import(id);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, nodeModule.createRequire(file), module, file, path.dirname(file));
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    // V8 flags the command changes (src/v8-tuning.ts), each with the flags that undo it.
    const undo = [];
    globalThis[Symbol.for('trigger.v8FlagsChanged')] = (flags) => undo.push(flags);
    const write = () => {
      const temp = `${cacheFile}.${process.pid}.tmp`;
      let out;
      let renamed = false;
      try {
        for (const flags of undo.reverse()) require('node:v8').setFlagsFromString(flags);
        if (!privateFolder(dir, true) || !recordsWritable()) return;
        out = fs.openSync(temp, 'wx', 0o600);
        fs.writeFileSync(out, script.createCachedData());
        fs.renameSync(temp, cacheFile);
        renamed = true;
        // Taken after the rename, which moves the change time.
        const identity = fileIdentity(fs.fstatSync(out, { bigint: true }));
        const names = new Set(fs.readdirSync(dir));
        for (const other of names) {
          if (other.startsWith(`${bundle}-`) && !other.startsWith(`${build}-`) && other.endsWith('.v8cache')) {
            fs.rmSync(path.join(dir, other), { force: true });
            names.delete(other);
          }
        }
        const records = readRecords();
        for (const other of Object.keys(records)) if (!names.has(other)) delete records[other];
        records[name] = { file: identity, for: madeFor };
        writeRecords(records);
      } catch {
        try {
          // A file without its record would only be written again by every run.
          fs.rmSync(renamed ? cacheFile : temp, { force: true });
        } catch {
          // the folder could not be made
        }
      } finally {
        if (out !== undefined) fs.closeSync(out);
      }
    };
    process.once('beforeExit', write);
  }
  return module.exports;
}

/**
 * A file as the kernel knows it: what changes with any write, chmod, chown, rename or copy. The
 * change time carries it (birth time too, where a file system has no change time of its own).
 */
function fileIdentity(stat) {
  return [stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs, stat.birthtimeNs].join(':');
}

/** Whether a file or folder is this user's (Windows has no owners to compare here). */
function mine(stat) {
  return typeof process.getuid !== 'function' || BigInt(stat.uid) === BigInt(process.getuid());
}

/** Whether no one but its owner can write to it (Windows: its folder's access list decides). */
function writableByOwnerOnly(stat) {
  return process.platform === 'win32' || (Number(stat.mode) & 0o022) === 0;
}

/**
 * Whether the cache folder can be trusted: a real folder, this user's, that no one else can write to.
 * One that does not exist is made (0700) when `make` is set. One that is not trusted is left as it
 * is (an existing folder keeps its mode): the cache is not used, a slower start.
 */
function privateFolder(dir, make) {
  const fs = require('node:fs');
  let stat;
  try {
    stat = fs.lstatSync(dir);
  } catch {
    if (!make) return false;
    try {
      makeFolder(dir);
      stat = fs.lstatSync(dir);
    } catch {
      return false;
    }
  }
  return stat.isDirectory() && mine(stat) && writableByOwnerOnly(stat);
}

/**
 * Makes a folder and the missing ones above it, each 0700; throws where one cannot be made. Not
 * mkdirSync's `recursive`, which never returns under /proc (its mkdir answers ENOENT for ever).
 */
function makeFolder(dir) {
  const fs = require('node:fs');
  const path = require('node:path');
  const missing = [];
  for (let folder = dir; !fs.existsSync(folder); folder = path.dirname(folder)) {
    missing.push(folder);
    if (path.dirname(folder) === folder) break;
  }
  for (const folder of missing.reverse()) {
    try {
      fs.mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
}

/** Opens a regular file of this user's, never through a symbolic link; undefined where it cannot. */
function openMine(file) {
  const fs = require('node:fs');
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW || 0));
    const stat = fs.fstatSync(fd, { bigint: true });
    if (stat.isFile() && mine(stat)) return { fd, stat };
  } catch {
    // none, or not readable
  }
  if (fd !== undefined) fs.closeSync(fd);
  return undefined;
}

/** The data in the cache file if it is the file `record` describes, made for `madeFor`; else undefined. */
function readCache(cacheFile, record, madeFor) {
  if (typeof record !== 'object' || record === null || record.for !== madeFor || typeof record.file !== 'string') return undefined;
  const fs = require('node:fs');
  const opened = openMine(cacheFile);
  if (opened === undefined) return undefined;
  try {
    if (fileIdentity(opened.stat) !== record.file) return undefined;
    const data = fs.readFileSync(opened.fd);
    // Unchanged while it was read, too.
    return fileIdentity(fs.fstatSync(opened.fd, { bigint: true })) === record.file ? data : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(opened.fd);
  }
}

/** The config folder's file of cache records: { [cache file name]: { file, for } }. */
function recordsFile() {
  return require('node:path').join(configDir(), 'code-cache.json');
}

/** The records, if the file is this user's and no one else can write to it; else none. */
function readRecords() {
  const fs = require('node:fs');
  const opened = openMine(recordsFile());
  if (opened === undefined) return {};
  try {
    if (!writableByOwnerOnly(opened.stat)) return {};
    const records = JSON.parse(fs.readFileSync(opened.fd, 'utf8'));
    return typeof records === 'object' && records !== null && !Array.isArray(records) ? records : {};
  } catch {
    return {};
  } finally {
    fs.closeSync(opened.fd);
  }
}

/**
 * Whether the records can be kept: the config folder (made 0700 if need be) is writable. Checked
 * before the cache data is made, so that a read-only config folder does not cost every run that.
 */
function recordsWritable() {
  const fs = require('node:fs');
  const dir = require('node:path').dirname(recordsFile());
  try {
    makeFolder(dir);
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Writes the records (0600, in a folder made 0700), replacing the file whole; throws if it cannot. */
function writeRecords(records) {
  const fs = require('node:fs');
  const path = require('node:path');
  const file = recordsFile();
  const temp = `${file}.${process.pid}.tmp`;
  makeFolder(path.dirname(file));
  try {
    fs.writeFileSync(temp, `${JSON.stringify(records)}\n`, { mode: 0o600, flag: 'wx' });
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

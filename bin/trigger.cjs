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

const { Buffer } = require('node:buffer');

// A code cache file: these 8 bytes, the 32-byte tag (cacheTag), then V8's data.
const CACHE_MAGIC = Buffer.from('trgcc\x00\x01\n', 'latin1');
const CACHE_HEADER = CACHE_MAGIC.length + 32;

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
 * V8 runs cache data it is given as compiled code, checking only that the source has the same
 * length and that V8 and its flags are the same: data made from other code of that length runs
 * that code, with the key in the environment. So the data is used only if this user's tool wrote
 * it for these exact bytes of the bundle: each file carries an HMAC-SHA256, under a secret kept
 * 0600 in the config folder (never in the cache folder, which a CI cache may restore from
 * elsewhere), over the bundle, the Node version and flags, and the data. The folder is made 0700;
 * one that another user owns or can write to, a file another user owns, and a file that fails the
 * check are all treated as no cache, and the file is written anew. Stale or damaged data that
 * passes is still checked by V8 (it rejects data for another V8 or flags), and then, as when there
 * is none, new data is written: to a temporary file renamed into place, so a reader never sees half
 * of one; the files of earlier builds of the same bundle are removed then (those for other flags
 * are kept: a job may alternate them). Nothing here may fail the command: a cache that cannot be
 * read or written is only a slower start.
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
  const source = fs.readFileSync(file);
  const { mtimeMs } = fs.statSync(file);
  const bundle = `cli-${fnv1a(file)}`;
  const build = `${bundle}-${fnv1a(JSON.stringify([source.length, mtimeMs]))}`;
  const startFlags = [process.execArgv, process.env.NODE_OPTIONS || ''];
  const flags = fnv1a(JSON.stringify(startFlags));
  const cacheFile = path.join(dir, `${build}-${flags}-node${process.versions.node}-${process.arch}.v8cache`);
  // What the data is for, besides the bundle's bytes: V8 and Node, and the flags Node started with.
  const identity = `${JSON.stringify(['trigger code cache 1', process.versions.node, process.versions.v8, process.arch, startFlags, source.length])}\n`;
  const cachedData = privateFolder(dir, false) ? readCache(cacheFile, identity, source) : undefined;
  // The build checks that the bundle is ASCII, which latin1 reads exactly and fastest.
  const script = new vm.Script(nodeModule.wrap(source.toString('latin1')), { filename: file, cachedData });
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
        if (!privateFolder(dir, true)) return;
        const secret = cacheSecret(true);
        if (secret === undefined) return;
        const data = script.createCachedData();
        fs.writeFileSync(temp, Buffer.concat([CACHE_MAGIC, cacheTag(secret, identity, source, data), data]), { mode: 0o600, flag: 'wx' });
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

function cacheTag(secret, identity, source, data) {
  return require('node:crypto').createHmac('sha256', secret).update(identity).update(source).update(data).digest();
}

/** Whether a file or folder is this user's (Windows has no owners to compare here). */
function mine(stat) {
  return typeof process.getuid !== 'function' || stat.uid === process.getuid();
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
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      stat = fs.lstatSync(dir);
    } catch {
      return false;
    }
  }
  return stat.isDirectory() && mine(stat) && (process.platform === 'win32' || (stat.mode & 0o022) === 0);
}

/** Opens a regular file of this user's, never through a symbolic link; undefined where it cannot. */
function openMine(file) {
  const fs = require('node:fs');
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW || 0));
    const stat = fs.fstatSync(fd);
    if (stat.isFile() && mine(stat)) return { fd, stat };
  } catch {
    // none, or not readable
  }
  if (fd !== undefined) fs.closeSync(fd);
  return undefined;
}

/** The cache data in the file if this user's tool wrote it for this bundle and Node, else undefined. */
function readCache(cacheFile, identity, source) {
  const fs = require('node:fs');
  const opened = openMine(cacheFile);
  if (opened === undefined) return undefined;
  let content;
  try {
    content = fs.readFileSync(opened.fd);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(opened.fd);
  }
  if (content.length <= CACHE_HEADER || !content.subarray(0, CACHE_MAGIC.length).equals(CACHE_MAGIC)) return undefined;
  const secret = cacheSecret(false);
  if (secret === undefined) return undefined;
  const data = content.subarray(CACHE_HEADER);
  const tag = cacheTag(secret, identity, source, data);
  return require('node:crypto').timingSafeEqual(tag, content.subarray(CACHE_MAGIC.length, CACHE_HEADER)) ? data : undefined;
}

/**
 * The secret the cache files are signed with: 32 random bytes in the config folder, readable by this
 * user only. A missing one, or one that others could read or that another user owns, is replaced
 * (when `make` is set), which makes every cache file written before it fail the check.
 */
function cacheSecret(make) {
  const fs = require('node:fs');
  const path = require('node:path');
  const dir = configDir();
  const file = path.join(dir, 'code-cache.key');
  const opened = openMine(file);
  if (opened !== undefined) {
    try {
      if (opened.stat.size === 32 && (process.platform === 'win32' || (opened.stat.mode & 0o077) === 0)) {
        const secret = Buffer.alloc(32);
        if (fs.readSync(opened.fd, secret, 0, 32, 0) === 32) return secret;
      }
    } catch {
      // replaced below
    } finally {
      fs.closeSync(opened.fd);
    }
  }
  if (!make) return undefined;
  const secret = require('node:crypto').randomBytes(32);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(temp, secret, { mode: 0o600, flag: 'wx' });
    fs.renameSync(temp, file);
    return secret;
  } catch {
    try {
      fs.rmSync(temp, { force: true });
    } catch {
      // the folder could not be made
    }
    return undefined;
  }
}

function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

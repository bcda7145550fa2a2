/**
 * The operating system's credential store (macOS Keychain, Windows Credential Manager, the Secret Service on Linux desktops) through
 * @napi-rs/keyring, the maintained successor of keytar. The native module is loaded only when a command needs the store, so `trigger fire`
 * with TRIGGER_API_KEY or a key in the file pays nothing for it. Every call gives up after STORE_TIMEOUT_MS: a store that does not answer
 * is treated as no store.
 */
import type { AsyncEntry as KeyringEntry } from '@napi-rs/keyring';
import net from 'node:net';
import { ConfigError } from '../errors.js';

const SERVICE = 'trigger-cli';
export const STORE_TIMEOUT_MS = 1000;

export const storeName = (platform: NodeJS.Platform = process.platform): string =>
  platform === 'darwin' ? 'the macOS Keychain' : platform === 'win32' ? 'the Windows Credential Manager' : 'the Secret Service keyring';

/**
 * On Linux the module connects to the session bus in its constructor, on the main thread: a bus socket that takes the connection and
 * never answers (a frozen dbus-daemon, a stale forwarded socket) would hang the process there, past any timer (audit23). So the bus is
 * asked first, without the module: any answer to a bare AUTH line (REJECTED, naming its mechanisms) is a bus that answers. Settles
 * when it answers or cannot be reached (the module then says why, at once); a silent one is left to the caller's second.
 */
function busAnswers(signal: AbortSignal, env = process.env): Promise<void> {
  if (process.platform !== 'linux') return Promise.resolve();
  // The addresses libdbus tries, in its order (their bytes may be %-escaped); none named: where a bus is looked for (review23).
  const listed = env.DBUS_SESSION_BUS_ADDRESS?.split(';') ?? (env.XDG_RUNTIME_DIR ? [`unix:path=${env.XDG_RUNTIME_DIR}/bus`] : []);
  const targets = listed.flatMap((address): net.NetConnectOpts[] => {
    const unescape = (text: string) => text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    const key = (name: string) => new RegExp(`[:,]${name}=([^,]*)`).exec(address)?.[1];
    const [path, abstract, port] = [key('path'), key('abstract'), key('port')];
    if (address.startsWith('unix:') && (path ?? abstract) !== undefined)
      return [{ path: path !== undefined ? unescape(path) : `\0${unescape(abstract!)}` }];
    return address.startsWith('tcp:') && port ? [{ host: unescape(key('host') ?? 'localhost'), port: Number(port) }] : [];
  });
  return new Promise((resolve) => {
    const next = (): void => {
      const target = targets.shift();
      if (!target) return resolve();
      const socket = net.createConnection(target);
      let [connected, over] = [false, false];
      // Answered, or closed once connected: settled (the module says why); not connected: the next address, as libdbus goes on.
      const done = () => void (over || ((over = true), socket.destroy(), signal.aborted || (connected ? resolve() : next())));
      socket.on('connect', () => ((connected = true), socket.write('\0AUTH\r\n')));
      socket.on('data', done).on('error', done).on('close', done);
      signal.addEventListener('abort', () => socket.destroy(), { once: true }); // silent for its second: left to the caller
    };
    next();
  });
}

/** Runs one store call within STORE_TIMEOUT_MS; rejects when the store fails or does not answer. */
async function bounded<T>(call: (entry: KeyringEntry, signal: AbortSignal) => Promise<T>, profile: string): Promise<T> {
  // One timer, kept ref'd, rejects then aborts: an AbortSignal.timeout's abort could close a silent bus first, and status exit 0 unsaid.
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => (reject(new Error(`no answer within ${STORE_TIMEOUT_MS / 1000} s`)), controller.abort()), STORE_TIMEOUT_MS);
  });
  try {
    // Pinned to the Secret Service on Linux: else the module falls back to the kernel keyring, which forgets the key at logout or reboot.
    const entry = Promise.all([import('@napi-rs/keyring'), busAnswers(controller.signal)]).then(
      ([{ AsyncEntry }]) => new AsyncEntry(SERVICE, profile, { linux: { store: 'secret-service' } }),
    );
    return await Promise.race([entry.then((e) => call(e, controller.signal)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** D-Bus failures that mean no Secret Service runs here at all (a server, a container, SSH). */
const NO_STORE =
  /autolaunch|failed to connect to socket|not provided by any \.service files|DBUS_SESSION_BUS_ADDRESS|DBus\.Error\.(ServiceUnknown|NoServer|Spawn)/i;
/** A store that runs but will not hand out or take a key without a desktop prompt. */
const LOCKED = /\blocked\b|no result found|prompt|dismissed|cancel/i; // not "blocked" (a policy's refusal; review23)

/** A store failure in words a person can act on, not the D-Bus or platform message ("Using X11 for dbus-daemon autolaunch was ..."). */
export function storeTrouble(reason: string): string {
  if (NO_STORE.test(reason)) return 'no system keychain is running here';
  if (/^no answer within/.test(reason)) return 'the system keychain did not answer within a second';
  if (LOCKED.test(reason)) return 'the system keychain is locked (or has no default keyring)';
  return `the system keychain refused it (${reason})`;
}

const reason = (error: unknown) => ((error as Error)?.message ?? String(error)).split('\n')[0]!.replace(/^Platform failure: /, '');

/** Runs one store call that may fail; returns undefined when it worked, else why not. */
const tryStore = (call: (entry: KeyringEntry, signal: AbortSignal) => Promise<unknown>, profile: string): Promise<string | undefined> =>
  bounded(call, profile).then(() => undefined, reason);

/** Stores the key; returns undefined when stored, else why the store could not take it. */
export const storeKey = (profile: string, key: string) => tryStore((e, signal) => e.setPassword(key, signal), profile);

/** Removes a profile's key from the store; returns why not when the store could not be reached. */
export const deleteKey = (profile: string) => tryStore((e, signal) => e.deleteCredential(signal), profile);

/** Reads the key a profile keeps in the store; a ConfigError when it is not there or no store answers. */
export async function loadKey(profile: string): Promise<string> {
  let key: string | null;
  try {
    key = await bounded((e, signal) => e.getPassword(signal), profile);
  } catch (error) {
    const hint = `unlock it, or store the key in the config file instead: trigger config set-key --insecure-storage${profile === 'default' ? '' : ` --profile ${profile}`}`;
    throw new ConfigError(`the API key of profile "${profile}" is kept in ${storeName()}, but ${storeTrouble(reason(error))}`, { hint });
  }
  if (key === null || key === '') {
    const hint = `store it again: trigger config set-key${profile === 'default' ? '' : ` --profile ${profile}`}`;
    throw new ConfigError(`the API key of profile "${profile}" should be in ${storeName()} but is not there`, { hint });
  }
  return key;
}

/**
 * What a test needs from the machine beyond Node and npm, in one place. A test that needs something
 * missing is skipped, with a note that names it and the line that installs it (the summary at the end
 * of the run, test/helpers/skip-reporter.ts, gathers the notes); with TRIGGER_TEST_REQUIRE_ALL=1 (as
 * .ci/run sets) a missing package fails the test instead, so CI never goes green by skipping.
 *
 * What needs a privilege (root, mounting a file system) is skipped with a note where it is not held,
 * even under TRIGGER_TEST_REQUIRE_ALL: that depends on who runs the suite, not on what is installed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach } from 'vitest';

interface Package {
  kind: 'package';
  /** The Debian package that brings it. */
  apt: string;
  /** Where it is (a command on PATH, a file), or undefined when it is missing. */
  find(): string | undefined;
}

interface Privilege {
  kind: 'privilege';
  /** What is missing, and how to get it, in a few words. */
  missing: string;
  held(): boolean;
}

/** A program on PATH that this user may run. */
function command(name: string): () => string | undefined {
  return () => {
    for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
      if (!dir) continue;
      const file = path.join(dir, name);
      try {
        fs.accessSync(file, fs.constants.X_OK);
        if (fs.statSync(file).isFile()) return file;
      } catch {
        // not here
      }
    }
    return undefined;
  };
}

function firstFile(candidates: () => string[]): () => string | undefined {
  return () => candidates().find((file) => fs.existsSync(file) && fs.statSync(file).isFile());
}

const LIB_DIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib', '/usr/local/lib'];

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

const NEEDS = {
  /** LD_PRELOAD library that moves the clock of a process (the settings lock under clock skew). */
  libfaketime: {
    kind: 'package',
    apt: 'libfaketime',
    find: firstFile(() => LIB_DIRS.map((dir) => path.join(dir, 'faketime', 'libfaketime.so.1'))),
  },
  'gnome-keyring': { kind: 'package', apt: 'gnome-keyring', find: command('gnome-keyring-daemon') },
  'secret-tool': { kind: 'package', apt: 'libsecret-tools', find: command('secret-tool') },
  'dbus-run-session': { kind: 'package', apt: 'dbus', find: command('dbus-run-session') },
  zsh: { kind: 'package', apt: 'zsh', find: command('zsh') },
  fish: { kind: 'package', apt: 'fish', find: command('fish') },
  tmux: { kind: 'package', apt: 'tmux', find: command('tmux') },
  'bash-completion': { kind: 'package', apt: 'bash-completion', find: firstFile(() => ['/usr/share/bash-completion/bash_completion']) },
  /** The pseudo-terminal of test/helpers/pty.ts, and a process that leaves a zombie. */
  python3: { kind: 'package', apt: 'python3', find: command('python3') },
  root: { kind: 'privilege', missing: 'runs as root only (it changes files to other owners or runs as another user)', held: isRoot },
  mount: {
    kind: 'privilege',
    missing: 'mounts a small tmpfs: run as root where mounting is allowed (a container needs CAP_SYS_ADMIN)',
    held: () => isRoot() && canMount(),
  },
} satisfies Record<string, Package | Privilege>;

export type Need = keyof typeof NEEDS;

/** Whether this process may mount a tmpfs: tried once, on a folder of its own. */
let mountable: boolean | undefined;
function canMount(): boolean {
  if (mountable !== undefined) return mountable;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-mount-'));
  try {
    mountable = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4k', 'tmpfs', dir]).status === 0;
    if (mountable) spawnSync('umount', [dir]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return mountable;
}

const found = new Map<Need, string | undefined>();

/** Where the package is on this machine (a command or file), or undefined when it is missing. */
export function where(need: Need): string | undefined {
  const entry: Package | Privilege = NEEDS[need];
  if (entry.kind !== 'package') throw new Error(`${need} is a privilege, not a package`);
  if (!found.has(need)) found.set(need, entry.find());
  return found.get(need);
}

function held(need: Need): boolean {
  const entry: Package | Privilege = NEEDS[need];
  return entry.kind === 'package' ? where(need) !== undefined : entry.held();
}

/** Whether TRIGGER_TEST_REQUIRE_ALL asks for every test to run (CI). */
export const requireAll = process.env.TRIGGER_TEST_REQUIRE_ALL === '1';

/**
 * Why a test that needs `what` cannot run here: the skip note, or the failure under
 * TRIGGER_TEST_REQUIRE_ALL. undefined when everything is here.
 */
export function missing(...what: Need[]): { note: string; fails: boolean } | undefined {
  const absent = what.filter((need) => !held(need));
  if (absent.length === 0) return undefined;
  const packages = absent.filter((need) => NEEDS[need].kind === 'package');
  if (packages.length > 0) {
    const apt = [...new Set(packages.map((need) => (NEEDS[need] as Package).apt))].join(' ');
    return {
      note: `needs ${packages.join(', ')}, not installed here (apt-get install ${apt}; .ci/run installs it)`,
      fails: requireAll,
    };
  }
  return { note: `needs ${absent.join(', ')}: ${absent.map((need) => (NEEDS[need] as Privilege).missing).join('; ')}`, fails: false };
}

/**
 * For a describe block (or a whole file): each of its tests is skipped, with a note naming what is
 * missing and how to install it, unless every one of `what` is here. Under TRIGGER_TEST_REQUIRE_ALL=1
 * a missing package fails each test instead. Returns whether everything is here, for the block's own
 * beforeAll (which runs even when its tests are skipped).
 */
export function needs(...what: Need[]): boolean {
  const why = missing(...what);
  if (why) {
    beforeEach((ctx) => {
      if (why.fails) throw new Error(`${why.note}; TRIGGER_TEST_REQUIRE_ALL=1 asks for every test to run`);
      ctx.skip(why.note);
    });
  }
  return why === undefined;
}

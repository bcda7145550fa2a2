/**
 * The settings lock, with real processes: concurrent writers under a clock 30 s ahead of the file
 * system (libfaketime, which .ci/run installs), a holder that lives and then is SIGKILLed, a holder
 * that has ended, one on another host, and a lock that is a folder (which used to spin at 100% CPU).
 * How long a write waits, and that it pauses between looks, is asserted on a fake clock in-process
 * (test/unit/lock-wait.test.ts); here, what a process shows, never how long it took.
 * The holders are real processes; the writer facing one runs main() of the built bundle in this
 * process (`inProcess`, test/helpers/built-in-process.ts) where only its code, message and the file
 * matter, and is a spawned binary for the eight at once under libfaketime and for the folder lock (a
 * spin there would be a process at 100% CPU).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { runBuilt } from '../helpers/built-in-process.js';
import { needs, where } from '../helpers/needs.js';

let box: Sandbox;
let file: string;
let lock: string;
beforeEach(() => {
  box = sandbox();
  file = path.join(box.configDir, 'config.json');
  lock = `${file}.lock`;
  fs.mkdirSync(box.configDir, { recursive: true });
});
afterEach(() => box.cleanup());

const cli = (args: string[], env: NodeJS.ProcessEnv = box.env, timeoutMs?: number) => run(args, { env, timeoutMs });
const inProcess = (args: string[], env: NodeJS.ProcessEnv) => runBuilt(args, { env });
const stored = () => JSON.parse(fs.readFileSync(file, 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
const seed = () =>
  fs.writeFileSync(file, JSON.stringify({ profiles: { default: { baseUrl: 'https://kept.example.com' } } }), { mode: 0o600 });

/** A real process that writes a lock naming itself, then waits to be killed. */
async function holder(host = os.hostname()): Promise<{ pid: number; kill(): Promise<void> }> {
  const script = `require('fs').writeFileSync(${JSON.stringify(lock)}, JSON.stringify({ pid: process.pid, host: ${JSON.stringify(host)} })); console.log('ready'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('error', reject);
  });
  return {
    pid: child.pid!,
    kill: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

describe('the settings lock under a clock 30 s ahead', () => {
  needs('libfaketime');

  it('8 writers at once with the clock 30 s ahead of the file system keep all 8 profiles', async () => {
    // A wait far beyond the default 15 s: eight Node start-ups in turn under the lock can take longer
    // than that on a loaded machine, and what is tested here is that no lock is broken, not the wait.
    const env = { ...box.env, LD_PRELOAD: where('libfaketime'), FAKETIME: '+30s', TRIGGER_LOCK_WAIT: '120' };
    // The clock really is skewed for the binary: a file it makes looks 30 s old to it.
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        `const f=require('fs');f.writeFileSync(${JSON.stringify(path.join(box.home, 'probe'))},'');console.log(Date.now()-f.statSync(${JSON.stringify(path.join(box.home, 'probe'))}).mtimeMs)`,
      ],
      { env, encoding: 'utf8' },
    );
    expect(Number(probe.stdout)).toBeGreaterThan(25_000);

    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => cli(['config', 'set-key', `${TEST_KEY}_${i}`, '--profile', `p${i}`, '--insecure-storage'], env)),
    );
    expect(results.map((r) => r.code)).toEqual(Array(8).fill(0));
    const profiles = stored().profiles;
    expect(Object.keys(profiles).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `p${i}`));
    expect(Array.from({ length: 8 }, (_, i) => profiles[`p${i}`]?.apiKey === `${TEST_KEY}_${i}`).every(Boolean)).toBe(true);
    expect(fs.existsSync(lock)).toBe(false);
  });
});

describe('the settings lock', () => {
  it('is never broken while its holder lives; taken over once the holder is SIGKILLed', async () => {
    seed();
    const holding = await holder();
    let killed = false;
    try {
      const waited = await inProcess(['config', 'set-base-url', 'https://new.example.com'], { ...box.env, TRIGGER_LOCK_WAIT: '1' });
      expect(waited.code).toBe(2);
      expect(waited.stderr.trim().split('\n')).toHaveLength(1);
      expect(waited.stderr).toContain(`error: cannot write ${file}: process ${holding.pid} holds its lock ${lock}; gave up after 1 s`);
      expect(stored().profiles.default?.baseUrl).toBe('https://kept.example.com');
      expect(JSON.parse(fs.readFileSync(lock, 'utf8'))).toMatchObject({ pid: holding.pid });

      await holding.kill();
      killed = true;
      const taken = await inProcess(['config', 'set-base-url', 'https://new.example.com'], { ...box.env, TRIGGER_LOCK_WAIT: '0' });
      expect(taken.stderr).toBe('');
      expect(taken.code).toBe(0);
      expect(stored().profiles.default?.baseUrl).toBe('https://new.example.com');
      expect(fs.existsSync(lock)).toBe(false);
    } finally {
      if (!killed) await holding.kill();
    }
  });

  it('a lock left by a process that has ended is taken over at once, whatever its date', async () => {
    const ended = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    fs.writeFileSync(lock, JSON.stringify({ pid: Number(ended.stdout), host: os.hostname() }));
    // Dated an hour ahead, as a machine whose clock runs ahead would leave it: its age says nothing.
    const ahead = new Date(Date.now() + 3_600_000);
    fs.utimesSync(lock, ahead, ahead);
    const result = await inProcess(['config', 'set-key', TEST_KEY, '--insecure-storage'], { ...box.env, TRIGGER_LOCK_WAIT: '0' });
    expect(result.code).toBe(0);
    expect(stored().profiles.default?.apiKey === TEST_KEY).toBe(true);
    expect(fs.existsSync(lock)).toBe(false);
    expectNoKey(result);
  });

  it('a lock held on another host is waited for, then exit 2 naming it and the host', async () => {
    seed();
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: 'build-7.example.net' }));
    const result = await inProcess(['config', 'set-key', TEST_KEY, '--insecure-storage'], { ...box.env, TRIGGER_LOCK_WAIT: '0.5' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`its lock ${lock} is held by process ${process.pid} on build-7.example.net`);
    expect(result.stderr).toContain(`if no trigger command is running there, remove it: rm ${lock}`);
    expectNoKey(result);
    expect(stored().profiles.default).toEqual({ baseUrl: 'https://kept.example.com' });
    expect(fs.existsSync(lock)).toBe(true);
  });

  it('an old lock that is a folder: no spinning, exit 2 naming it once the wait is over', async () => {
    seed();
    fs.mkdirSync(lock);
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(lock, old, old);
    const result = await cli(['config', 'set-base-url', 'https://new.example.com'], { ...box.env, TRIGGER_LOCK_WAIT: '1' }, 20_000);
    expect(result.signal).toBeNull(); // not killed by the run's time limit
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `error: cannot write ${file}: its lock ${lock} is a folder, not a lock file; gave up after 1 s — remove it: rm -r ${lock}`,
    );
    expect(stored().profiles.default?.baseUrl).toBe('https://kept.example.com');
  });

  it('a TRIGGER_LOCK_WAIT that is not a number of seconds: exit 2, nothing stored', async () => {
    const result = await inProcess(['config', 'set-key', TEST_KEY, '--insecure-storage'], { ...box.env, TRIGGER_LOCK_WAIT: '5s' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('error: TRIGGER_LOCK_WAIT="5s" is not a number of seconds — set it to e.g. 15, or unset it');
    expect(fs.existsSync(file)).toBe(false);
  });
});

/**
 * Runs the built binary with an explicit environment: a temporary HOME and config folder, no colour,
 * and nothing of the machine's own TRIGGER_* or CI variables.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(ROOT, 'bin', 'trigger.cjs');

/** A fake key used by the tests; never printed by an assertion (see expectNoKey). */
export const TEST_KEY = 'tk_test_5ecret_Abc123xyz789';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  home: string;
  configDir: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** Writes `text` to `name` in the sandbox's home folder; returns the file's path. */
export function homeFile(box: Sandbox, name: string, text: string): string {
  const target = path.join(box.home, name);
  fs.writeFileSync(target, text);
  return target;
}

export function sandbox(extra: NodeJS.ProcessEnv = {}): Sandbox {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-test-'));
  const configDir = path.join(home, 'trigger-config');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    TRIGGER_CONFIG_DIR: configDir,
    FORCE_COLOR: '0',
    LANG: 'C.UTF-8',
    ...extra,
  };
  return { home, configDir, env, cleanup: () => fs.rmSync(home, { recursive: true, force: true }) };
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
  /** Called with the child once it started (to send signals). */
  onSpawn?: (child: ReturnType<typeof spawn>) => void;
  /** Another `trigger` to run (an installed one) instead of the built bin/trigger.cjs. */
  command?: string;
  cwd?: string;
}

export function run(args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.command ?? process.execPath, options.command ? args : [BIN, ...args], {
      env: options.env,
      // In the sandbox's home unless told: a batch writes its default failed file to the current folder.
      cwd: options.cwd ?? options.env.HOME,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // A hang detector, not a measure of speed: under a load of 20 on two cores a batch of 3,000 rows
    // took over 15 s. Below vitest's 60 s per test, so that a hang fails with the run's output.
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 50_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    options.onSpawn?.(child);
    // A run that ends before reading its input (refused at once) closes the pipe: EPIPE here is the
    // child's doing, judged by its exit code and output, not an error of the test run.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Fails without repeating the key in the failure message. */
export function expectNoKey(result: Pick<RunResult, 'stdout' | 'stderr'>, key: string = TEST_KEY): void {
  for (const stream of ['stdout', 'stderr'] as const) {
    if (result[stream].includes(key)) throw new Error(`the API key appeared on ${stream}`);
  }
}

/** A command trigger printed, run as a user pastes it: in bash, in the sandbox's home, `trigger` being the built binary. */
export function paste(command: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return run(['-c', command.replaceAll('trigger batch', `'${process.execPath}' '${BIN}' batch`)], {
    env,
    command: 'bash',
    timeoutMs: 120_000,
  });
}

/** `trigger batch - <args>` with `fd` (opened by the caller, closed here) as its standard input, in the sandbox's home. */
export async function batchOnFd0(fd: number, args: string[], box: Sandbox): Promise<Pick<RunResult, 'code' | 'stdout' | 'stderr'>> {
  const child = spawn(process.execPath, [BIN, 'batch', '-', ...args], { env: box.env, cwd: box.home, stdio: [fd, 'pipe', 'pipe'] });
  fs.closeSync(fd);
  const [out, err] = [[] as string[], [] as string[]];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => out.push(d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => err.push(d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/**
 * Runs the program in-process, as `trigger` would run it, with a capturing Output and an explicit
 * environment: for the command tests in test/commands/ and test/in-process/, which need no spawned
 * binary. Exit codes as a shell sees them, signals, terminals and piped stdin are for test/e2e/.
 */
import { Console } from 'node:console';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach } from 'vitest';
import { main } from '../../src/cli.js';
import { Output } from '../../src/output/io.js';
import { inputVariable, loadAction, parseOutputFile, splitMasks, type ActionRun } from './action.js';
import { TEST_KEY, type RunResult } from './cli.js';
import { startServer, type TestServer } from './server.js';

/** A stream that keeps what is written to it. */
export class Captured extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += String(chunk);
    done();
  }
}

export function capturingOutput(): { io: Output; stdout: Captured; stderr: Captured } {
  const stdout = new Captured();
  const stderr = new Captured();
  return { io: new Output({ stdout, stderr }), stdout, stderr };
}

export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A temporary HOME and config folder, and no TRIGGER_*, CI or colour from the machine. */
export function commandEnv(extra: NodeJS.ProcessEnv = {}): { env: NodeJS.ProcessEnv; home: string; cleanup(): void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-cmd-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    TRIGGER_CONFIG_DIR: path.join(home, 'config'),
    NO_COLOR: '1',
    ...extra,
  };
  return { env, home, cleanup: () => fs.rmSync(home, { recursive: true, force: true }) };
}

/**
 * Runs `trigger <args>`; `cwd` is the command's working folder (where the catalog is looked for, and a batch without --failed
 * writes its failed file): the sandbox's HOME unless given, never the checkout (a batch left trigger-failed-*.csv there).
 */
export async function runCommand(args: string[], env: NodeJS.ProcessEnv, cwd = env.HOME): Promise<CommandRun> {
  const { io, stdout, stderr } = capturingOutput();
  const code = await straysCaught(stdout, stderr, () =>
    main(['node', 'trigger', ...args], { io, env, ...(cwd === undefined ? {} : { cwd }) }),
  );
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/**
 * Runs `body` with anything written straight to process.stdout, process.stderr or the console (past
 * the Output it was given) kept with what the Output wrote, as a spawned run would show it: a key
 * that leaks by another way still fails a test that looks for it. Test files run one at a time in a
 * worker, so what is written meanwhile is the command's.
 */
async function straysCaught<T>(stdout: Captured, stderr: Captured, body: () => Promise<T>): Promise<T> {
  const saved = { out: process.stdout.write, err: process.stderr.write, console: globalThis.console };
  globalThis.console = new Console({ stdout, stderr });
  const keep = (into: Captured) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      into.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = keep(stdout);
  process.stderr.write = keep(stderr);
  try {
    return await body();
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    globalThis.console = saved.console;
  }
}

export type CommandSandbox = ReturnType<typeof commandEnv>;

/*
 * The system keychain is reached through a native module that reads this process's own environment,
 * not the one a command is given: without a session bus here it finds no store, as a spawned run in a
 * sandbox (which passes no DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR or DISPLAY) finds none either, and
 * no in-process test can write a key into the keychain of the person running the tests.
 */
for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'DISPLAY', 'WAYLAND_DISPLAY']) delete process.env[name];

export interface InProcessOptions {
  env: NodeJS.ProcessEnv;
  /** The command's working folder; the sandbox's home unless told, as test/helpers/cli.ts's run(). */
  cwd?: string;
  /** Standard input is the process's own: a case that pipes something in stays a spawned run. */
  input?: string;
  /** Taken for run()'s sake and not used: the test's own timeout stops a run that hangs. */
  timeoutMs?: number;
}

/**
 * In place of test/helpers/cli.ts's run(): the same arguments and the same result (the code main()
 * returns, what it wrote to stdout and stderr; never a signal), so a table case moved in-process keeps
 * its assertions word for word.
 */
export async function runInProcess(args: string[], options: InProcessOptions): Promise<RunResult> {
  if (options.input) throw new Error('runInProcess has no standard input to give: pipe it to a spawned run');
  const result = await runCommand(args, options.env, options.cwd ?? options.env.HOME);
  return { ...result, signal: null };
}

/** Before each test a server on 127.0.0.1 and an environment pointing at it with the test key. */
export function useCommandServer(set: (server: TestServer, sandbox: CommandSandbox) => void): void {
  let current: { server: TestServer; sandbox: CommandSandbox } | undefined;
  beforeEach(async () => {
    const server = await startServer();
    const sandbox = commandEnv({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
    current = { server, sandbox };
    set(server, sandbox);
  });
  afterEach(async () => {
    await current?.server.close();
    current?.sandbox.cleanup();
  });
}

export interface InProcessEmulator {
  url: string;
  stdout(): string;
  stderr(): string;
  /** What a SIGINT or SIGTERM does to the command (its own listener, called here), and main()'s code. */
  stop(_signal?: NodeJS.Signals): Promise<{ code: number; signal: null }>;
  /** Resolves once stdout has at least n lines. */
  waitForLines(n: number, timeoutMs?: number): Promise<string[]>;
}

/**
 * `trigger emulator --port 0 <args>` through main(), in this process: test/helpers/emulator.ts's
 * spawned one without a Node start-up. The command waits for SIGINT or SIGTERM; stop() calls the
 * listener it added for them instead of signalling this process (a real signal is for the spawned
 * tests). One at a time: the listener is told from the others by being the one added meanwhile.
 */
export async function startEmulatorInProcess(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<InProcessEmulator> {
  const { io, stdout, stderr } = capturingOutput();
  const before = new Set(process.listeners('SIGINT'));
  let ended: number | undefined;
  const running = main(['node', 'trigger', 'emulator', '--port', '0', ...args], { io, env, cwd: cwd ?? env.HOME ?? os.tmpdir() }).then(
    (code) => (ended = code),
  );
  const until = Date.now() + 10_000;
  while (!stderr.text.includes('Ctrl-C')) {
    if (ended !== undefined) throw new Error(`the emulator exited with ${ended}: ${stderr.text}`);
    if (Date.now() > until) throw new Error(`the emulator did not start: ${stderr.text}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const url = /listening on .*?(http:\/\/\S+)/.exec(stderr.text)?.[1];
  const listener = process.listeners('SIGINT').find((l) => !before.has(l));
  if (!url || !listener) throw new Error(`the emulator printed no URL or waits for no signal: ${stderr.text}`);
  return {
    url,
    stdout: () => stdout.text,
    stderr: () => stderr.text,
    async stop() {
      if (ended === undefined) (listener as () => void)();
      return { code: await running, signal: null };
    },
    async waitForLines(n, timeoutMs = 5_000) {
      const lines = () => stdout.text.split('\n').filter(Boolean);
      const deadline = Date.now() + timeoutMs;
      while (lines().length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} lines, got: ${stdout.text}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return lines();
    },
  };
}

/**
 * The GitHub Action's step (action/main.ts run()) in this process, with the environment a runner
 * gives it as test/helpers/action.ts's runAction() builds it: INPUT_* variables, GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files. The source, not the committed bundle: test/e2e/action.test.ts runs the
 * bundle from a plain clone, and checks that it matches the source.
 */
export async function runActionInProcess(
  inputs: Record<string, string>,
  options: {
    env: NodeJS.ProcessEnv;
    workspace?: string;
    /** GITHUB_OUTPUT as given (a folder, /dev/full); outputs then {} */ output?: string;
  },
): Promise<ActionRun> {
  const [{ run }, { ROOT }] = await Promise.all([import('../../action/main.js'), import('./cli.js')]);
  const action = loadAction(ROOT);
  for (const name of Object.keys(inputs)) if (!(name in action.inputs)) throw new Error(`the action has no input ${name}`);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-action-run-'));
  const files = Object.fromEntries(
    ['GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STEP_SUMMARY'].map((name) => [name, path.join(temp, name)]),
  );
  for (const file of Object.values(files)) fs.writeFileSync(file, '');
  const env: NodeJS.ProcessEnv = {
    ...options.env,
    ...files,
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    RUNNER_TEMP: temp,
    GITHUB_ACTION_PATH: ROOT,
    GITHUB_WORKSPACE: options.workspace ?? temp,
    GITHUB_OUTPUT: options.output ?? files.GITHUB_OUTPUT,
  };
  for (const [name, spec] of Object.entries(action.inputs)) {
    const value = inputs[name] ?? spec.default;
    if (value !== undefined) env[inputVariable(name)] = value;
  }
  const stdout = new Captured();
  const stderr = new Captured();
  // run() is typed for process.stdout and process.stderr; it only writes to them.
  const code = await run(env, { stdout, stderr } as unknown as Parameters<typeof run>[1]);
  const outputFile = fs.readFileSync(files.GITHUB_OUTPUT!, 'utf8');
  const summary = fs.readFileSync(files.GITHUB_STEP_SUMMARY!, 'utf8');
  fs.rmSync(temp, { recursive: true, force: true });
  return { code, ...splitMasks(stdout.text), stderr: stderr.text, outputs: parseOutputFile(outputFile), outputFile, summary };
}

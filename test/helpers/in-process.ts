/**
 * Runs the program in-process, as `trigger` would run it, with a capturing Output and an explicit
 * environment: for the command tests in test/commands/, which need no spawned binary. Exit codes,
 * signals and terminals are for the spawned tests in test/e2e/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach } from 'vitest';
import { main } from '../../src/cli.js';
import { Output } from '../../src/output/io.js';
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

/** Runs `trigger <args>`; `cwd` is the command's working folder (where the catalog is looked for). */
export async function runCommand(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<CommandRun> {
  const { io, stdout, stderr } = capturingOutput();
  const code = await main(['node', 'trigger', ...args], { io, env, ...(cwd === undefined ? {} : { cwd }) });
  return { code, stdout: stdout.text, stderr: stderr.text };
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

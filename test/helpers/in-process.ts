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
import { TEST_KEY } from './cli.js';
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

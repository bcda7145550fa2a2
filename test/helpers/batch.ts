/**
 * What the batch tests read back: the rows a CSV failed file keeps, and the command a summary printed
 * to carry the batch on; and servers that answer after a delay, so a batch is still running.
 */
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { expect } from 'vitest';
import type { Sandbox } from './cli.js';
import { json, startServer, type TestServer } from './server.js';

/** The rows of a CSV failed file's text (triggerId,userId,...,error): each user id with its error. */
export function keptRows(text: string): Array<{ user: string; error: string }> {
  return text
    .trim()
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => ({ user: line.split(',')[1]!, error: line.slice(line.indexOf(',', 2) + 1) }));
}

/** Every answer a 200, after `ms`. */
export function answerSlowly(server: TestServer, ms: number): void {
  server.handle(async (_req, res) => {
    await new Promise((r) => setTimeout(r, ms));
    json(res, 200, { success: true });
  });
}

/**
 * The command a summary printed to send the kept rows or carry the batch on, as the words after
 * `trigger`. The tests name plain paths, so splitting on spaces and dropping quotes gives the words a
 * shell would.
 */
export function printedCommand(output: string): string[] | undefined {
  const command = /(?:send (?:them|it) (?:later )?with|carry the batch on with): trigger (batch .*)$/m.exec(output)?.[1];
  return command
    ?.trim()
    .split(/\s+/)
    .map((word) => word.replace(/^'(.*)'$/, '$1'));
}

/** The command (after `trigger`) a run printed, which must be there. */
export function printedNext(result: { stdout: string; stderr: string }): string[] {
  const command = printedCommand(`${result.stdout}\n${result.stderr}`);
  if (!command) throw new Error(`no command printed:\n${result.stdout}\n${result.stderr}`);
  return command;
}

/** The rest a trailing-garbage stop prints, after `<tool> -t F && trigger `, pasted twice once the bytes are cut off: sends nothing again. */
export async function pasteRestTwice(
  stdout: string,
  check: string,
  run: (args: string[]) => Promise<{ code: number }>,
  sent: () => number,
): Promise<void> {
  const before = sent();
  const rest = new RegExp(`then send any rows after them with: ${check} && trigger (.*)$`, 'm').exec(stdout)![1]!.split(' ');
  for (const _twice of [1, 2]) {
    expect((await run(rest)).code).toBe(0);
    expect(sent()).toBe(before);
  }
}

/** The user id a request was sent for (its URL is /v1/triggers/<trigger>/users/<user>/...). */
export const userOf = (url: string) => decodeURIComponent(url.split('/')[5] ?? '');
/** n user ids: u0, u1, ... */
export const users = (n: number, prefix = 'u') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
/** A CSV of n rows for trigger t, one per user of users(n, prefix). */
export const csvRows = (n: number, prefix = 'u') =>
  `triggerId,userId\n${users(n, prefix)
    .map((user) => `t,${user}`)
    .join('\n')}\n`;

/**
 * Answers `answer` (a 200 unless told) to the first `free` requests, and holds every later one until
 * release(): a batch that is surely still running for as long as a test needs it, with no sleep.
 * The request numbered `releaseAt` (one more than the held run can have sent: a sign that another run
 * is sending too, so the feature under test broke) releases them all, so that such a test fails
 * rather than hangs.
 */
export function holdAnswers(
  server: TestServer,
  free: number,
  options: { answer?: (res: ServerResponse) => void; releaseAt?: number } = {},
): { release(): void } {
  const answer = options.answer ?? ((res: ServerResponse) => json(res, 200, { success: true }));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  server.handle(async (_req, res, index) => {
    if (index + 1 === options.releaseAt) release();
    if (index >= free) await released;
    answer(res);
  });
  return { release };
}

/** Resolves once `condition()` holds, checked every 5 ms: waiting on an event, not on a guess of its time. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * A service on 127.0.0.1 for following printed replay commands: it refuses the users in `refused`
 * (422) while the cause is not fixed, answers after `delayMs` (so a run can be killed in the middle)
 * and 300 ms later still for the users in `slow`, and counts what it received for each user.
 */
export interface CountingService {
  server: TestServer;
  refused: Set<string>;
  slow: Set<string>;
  delayMs: number;
  /** While set, every answer waits for it: a run holds its journal for as long as the test needs. */
  hold?: Promise<void>;
  /** How many times the server received an event for each user (refused or not). */
  received(): Map<string, number>;
}

export async function countingService(): Promise<CountingService> {
  const server = await startServer();
  const service: CountingService = {
    server,
    refused: new Set(),
    slow: new Set(),
    delayMs: 0,
    received() {
      const counts = new Map<string, number>();
      for (const { url } of server.requests) counts.set(userOf(url), (counts.get(userOf(url)) ?? 0) + 1);
      return counts;
    },
  };
  server.handle(async (req, res) => {
    const user = userOf(req.url);
    const wait = service.delayMs + (service.slow.has(user) ? 300 : 0);
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
    if (service.hold) await service.hold;
    if (service.refused.has(user)) json(res, 422, { error: 'value out of range' });
    else json(res, 200, { success: true });
  });
  return service;
}

/** A CSV of these users, each for trigger t. */
export const csvOf = (ids: string[]) => `triggerId,userId\n${ids.map((u) => `t,${u}`).join('\n')}\n`;

/**
 * A .csv.gz of 500 long rows (t,u0-xxx…: a request each, and enough bytes that half the file is some 250 rows), written to `file`
 * cut short at half its bytes, as a copy that died midway leaves it; returns the whole file's bytes, to copy it whole again.
 */
export function halfGzip(file: string): Buffer {
  const rows = Array.from({ length: 500 }, (_, i) => `t,u${i}-${'x'.repeat(72)}`).join('\n');
  const whole = zlib.gzipSync(`triggerId,userId\n${rows}\n`);
  fs.writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2)));
  return whole;
}

/** The check a printed rest command holds its file to (`--after-line <n>:<check>`: input.ts rowsSum). */
export const checkOf = (output: string) => /--after-line \d+:([0-9a-f]{8})/.exec(output)?.[1] ?? 'none';

/**
 * The environment for a spawned batch whose wall clock (Date.now, which input.ts's stop reads by) a preload sets from its first
 * SIGTERM on. After the first signal a file's rows are kept for 100,000 rows or 250 ms of reading, whichever comes first, so on
 * the real clock a rest command is printed only for a file of over 100,000 rows, and how many are kept depends on the machine.
 * 'over': each call is an hour on, so the 250 ms are over by the next chunk (1,024 rows) read: a file a few chunks long is cut,
 * on any machine. 'held': the clock stands still, so the 100,000 rows are what end the read.
 */
export function signalClock(box: Sandbox, mode: 'over' | 'held'): NodeJS.ProcessEnv {
  const preload = path.join(box.home, `clock-${mode}.cjs`);
  fs.writeFileSync(
    preload,
    `const now = Date.now;
let at;
process.on('SIGTERM', () => (at ??= now()));
Date.now = () => (at === undefined ? now() : ${mode === 'over' ? '(at += 3_600_000)' : 'at'});`,
  );
  return { ...box.env, NODE_OPTIONS: `--require ${preload}` };
}

/**
 * What a batch left in the sandbox: every entry of its home but folders (hidden ones too: a .tmp, a lock; a FIFO or a link a test
 * made), and the folder of the locks by inode. The batch-journal-*-signal and -not-regular tests' "nothing left behind".
 */
export function leftIn(box: Sandbox): string[] {
  const locks = path.join(box.home, '.cache/trigger/locks');
  const home = fs.readdirSync(box.home, { withFileTypes: true }).filter((e) => !e.isDirectory());
  return [...home.map((e) => e.name), ...(fs.existsSync(locks) ? fs.readdirSync(locks) : [])].sort();
}

/**
 * An onSpawn for run() that sends `signal` once the child has read `bytes` (/proc/<pid>/io: rchar), checked every 2 ms: well into a
 * long read, not as it begins (under a load of 15 a signal sent as a run's .tmp appeared met no listener yet).
 */
export function signalOnceRead(signal: NodeJS.Signals, bytes = 2 ** 26) {
  const read = (pid: number) => Number(/^rchar: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
  return (child: { pid?: number; kill(signal: NodeJS.Signals): boolean }) => {
    const poll = setInterval(() => {
      try {
        if (read(child.pid!) < bytes) return;
        clearInterval(poll);
        child.kill(signal);
      } catch {
        clearInterval(poll); // it has ended
      }
    }, 2);
  };
}

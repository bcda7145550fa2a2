/**
 * `kill -USR1` must not open Node's inspector while trigger holds the API key: the inspector listens
 * on 127.0.0.1, where any local user could connect and read process.env. Real signals on real
 * processes; CI runs this file on Node 20, 22 and 24.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, run, type Sandbox } from '../helpers/cli.js';
import { startEmulatorProcess } from '../helpers/emulator.js';
import { freePort, listening, usr1WhileHeld, useServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => {
  server = s;
  box = b;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A fire held by a slow server: once the request (and so the key) is in flight, SIGUSR1 is sent with
 * kill(2), then the inspector's port is tried while the process still runs. The inspector port is
 * set with NODE_OPTIONS=--inspect-port (a free port, so parallel runs cannot collide) or left at
 * Node's default, 9229.
 */
async function fireSignalled(inspectPort?: number, preload?: string) {
  const options = [...(inspectPort ? [`--inspect-port=${inspectPort}`] : []), ...(preload ? [`--require ${preload}`] : [])];
  const env = { ...box.env, ...(options.length ? { NODE_OPTIONS: options.join(' ') } : {}) };
  const port = inspectPort ?? 9229;
  const held = usr1WhileHeld(server, port);
  const result = run(['fire', 'deploy', 'alice', '--value', '2'], { env, onSpawn: held.onSpawn });
  const done = await result;
  return { ...done, inspectorOpen: await held.inspectorOpen() };
}

describe('SIGUSR1 does not open the inspector', () => {
  it('during a fire: nothing listens after the signal, and the fire ends as usual', async () => {
    const port = await freePort();
    const result = await fireSignalled(port);
    expect(result.inspectorOpen).toBe(false);
    expect(result.stderr).not.toMatch(/Debugger listening/);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.signal).toBe(null);
    expect(result.stdout).toMatch(/^✔ deploy · alice · value 2 · 200 OK/);
    expect(server.requests).toHaveLength(1);
    expectNoKey(result);
  });

  it("on Node's default port, 9229", async () => {
    expect(await listening(9229), 'something else already listens on 127.0.0.1:9229').toBe(false);
    const result = await fireSignalled();
    expect(result.inspectorOpen).toBe(false);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it("closes an inspector a SIGUSR1 opened during Node's own start-up, before trigger's first line", async () => {
    // The signal comes from a preload, which runs before bin/trigger.cjs, and waits until Node has
    // opened the inspector: what a signal sent in the first milliseconds of a run does.
    const port = await freePort();
    const preload = path.join(box.home, 'early-signal.cjs');
    fs.writeFileSync(
      preload,
      `process.kill(process.pid, 'SIGUSR1');
const inspector = require('node:inspector');
const until = Date.now() + 5000;
while (inspector.url() === undefined && Date.now() < until);
if (inspector.url() === undefined) throw new Error('the inspector did not open');
`,
    );
    const result = await fireSignalled(port, preload);
    expect(result.stderr).toMatch(/Debugger listening/); // Node's own message: it did open
    expect(result.inspectorOpen).toBe(false);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^✔ deploy · alice · value 2 · 200 OK/);
  });

  it('during `trigger emulator`, which holds a key too, and it still stops on Ctrl-C as usual', async () => {
    const port = await freePort();
    const emu = await startEmulatorProcess([], { ...box.env, NODE_OPTIONS: `--inspect-port=${port}` });
    try {
      process.kill(emu.child.pid!, 'SIGUSR1');
      await sleep(700);
      expect(await listening(port)).toBe(false);
      // still serving
      const fired = await run(['fire', 'deploy', 'alice'], { env: { ...box.env, TRIGGER_BASE_URL: emu.url, TRIGGER_API_KEY: TEST_KEY } });
      expect(fired.code).toBe(0);
      expect(emu.stderr()).not.toMatch(/Debugger listening/);
    } finally {
      const end = await emu.stop('SIGINT');
      expect(end).toEqual({ code: 0, signal: null });
    }
  });
});

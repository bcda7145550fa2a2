/**
 * A real node:http server on 127.0.0.1, port 0, that records every request exactly as it arrived.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';
import { TEST_KEY, sandbox, type Sandbox } from './cli.js';

export interface Received {
  method: string;
  /** The request target as sent, never normalised. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The client's port: the same for requests over one kept-alive connection. */
  remotePort: number | undefined;
  /** performance.now() when the whole request had arrived. */
  at: number;
}

export type Handler = (req: Received, res: http.ServerResponse, index: number) => void | Promise<void>;

export interface TestServer {
  url: string;
  port: number;
  requests: Received[];
  /** Requests whose handler is running now, and the most seen at once. */
  inFlight: { now: number; max: number };
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export function json(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** `host` is a loopback address: 127.0.0.1, or ::1 for IPv6. */
export async function startServer(
  handler: Handler = (_req, res) => json(res, 200, { success: true }),
  host = '127.0.0.1',
): Promise<TestServer> {
  let current = handler;
  const requests: Received[] = [];
  const inFlight = { now: 0, max: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort,
        at: performance.now(),
      };
      const index = requests.push(received) - 1;
      inFlight.now++;
      inFlight.max = Math.max(inFlight.max, inFlight.now);
      res.on('close', () => inFlight.now--);
      Promise.resolve(current(received, res, index)).catch((error: unknown) => {
        res.destroy(error as Error);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    inFlight,
    handle(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port that nothing listens on: bound, then released. */
export async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * For a test file whose tests all fire at a fresh server: before each test a server and a sandbox
 * with TRIGGER_API_KEY and TRIGGER_BASE_URL pointing at it, closed after it. `set` receives them.
 */
export function useServer(set: (server: TestServer, box: Sandbox) => void, key: string = TEST_KEY): void {
  let current: { server: TestServer; box: Sandbox } | undefined;
  beforeEach(async () => {
    const server = await startServer();
    const box = sandbox({ TRIGGER_API_KEY: key });
    box.env.TRIGGER_BASE_URL = server.url;
    current = { server, box };
    set(server, box);
  });
  afterEach(async () => {
    await current?.server.close();
    current?.box.cleanup();
  });
}

/** For run()'s onSpawn: sends the signals, 300 ms apart, once the server has received `count` requests. */
export function killAfter(server: TestServer, count: number, ...signals: NodeJS.Signals[]) {
  return (child: { kill(signal: NodeJS.Signals): boolean }) => {
    const poll = setInterval(() => {
      if (server.requests.length < count) return;
      clearInterval(poll);
      signals.forEach((signal, i) => setTimeout(() => child.kill(signal), i * 300));
    }, 5);
  };
}

/** Whether something accepts a TCP connection on 127.0.0.1:port (a SYN taken without a word counts too). */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(2_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Holds every answer until a SIGUSR1 has been sent to the process that asked (once the server has its
 * first request, so the key is in flight) and the inspector's port on 127.0.0.1 has been tried. Pass
 * `onSpawn` to the run; `inspectorOpen` then says whether anything accepted a connection on `port`.
 */
export function usr1WhileHeld(server: TestServer, port: number) {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  server.handle(async (_req, res) => {
    await answered;
    json(res, 200, { success: true });
  });
  let probe: Promise<boolean> | undefined;
  return {
    onSpawn(child: { pid?: number | undefined }) {
      const poll = setInterval(() => {
        if (server.requests.length === 0) return;
        clearInterval(poll);
        probe = (async () => {
          process.kill(child.pid!, 'SIGUSR1');
          await new Promise((r) => setTimeout(r, 700)); // Node opens the inspector within a few ms of the signal
          const open = await listening(port);
          answer();
          return open;
        })();
      }, 5);
    },
    inspectorOpen: () => probe,
  };
}

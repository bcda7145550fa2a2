/**
 * A small forward proxy on 127.0.0.1 (port 0): it tunnels CONNECT (for an https service) and forwards
 * absolute-form requests (for an http one), or asks for credentials (407) when given a user and
 * password it does not see, or refuses CONNECT with a status. It records what it was asked.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TestProxy {
  /** `127.0.0.1:port`, without a scheme (as curl users write it). */
  hostPort: string;
  port: number;
  /** What came: `CONNECT host:port` or `POST http://...`. */
  asked: string[];
  /** Proxy-Authorization headers seen. */
  auth: Array<string | undefined>;
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** Credentials required (else 407 with Proxy-Authenticate). */
  credentials?: { user: string; password: string };
  /** Answer CONNECT with this status instead of tunnelling. */
  refuseConnect?: number;
}

export async function startProxy(options: ProxyOptions = {}): Promise<TestProxy> {
  const asked: string[] = [];
  const auth: Array<string | undefined> = [];
  const sockets = new Set<net.Socket>();
  const expected = options.credentials
    ? `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}`
    : undefined;
  const allowed = (header: string | undefined) => expected === undefined || header === expected;

  const server = http.createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    auth.push(req.headers['proxy-authorization']);
    if (!allowed(req.headers['proxy-authorization'])) {
      req.resume();
      res.writeHead(407, { 'Proxy-Authenticate': 'Basic realm="test"', 'Content-Type': 'text/html' });
      res.end('<html><head><title>407 Proxy Authentication Required</title></head><body>credentials, please</body></html>');
      return;
    }
    const target = new URL(req.url ?? '/');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    asked.push(`CONNECT ${req.url}`);
    auth.push(req.headers['proxy-authorization']);
    client.on('error', () => {});
    if (!allowed(req.headers['proxy-authorization'])) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (options.refuseConnect) {
      client.end(`HTTP/1.1 ${options.refuseConnect} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = (req.url ?? '').split(/:(?=\d+$)/);
    const upstream = net.connect(Number(port), host === 'localhost' ? '127.0.0.1' : host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    hostPort: `127.0.0.1:${port}`,
    port,
    asked,
    auth,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

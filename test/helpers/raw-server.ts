/**
 * A raw TCP server on 127.0.0.1 (port 0) that answers each HTTP request with the bytes a test gives:
 * for answers node:http will not write (an unasked-for 100 Continue, a compressed body, a bomb).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface RawRequest {
  head: string;
  body: string;
}

export type RawResponder = (socket: net.Socket, request: RawRequest, index: number) => void;

export interface RawServer {
  url: string;
  port: number;
  requests: RawRequest[];
  close(): Promise<void>;
}

/** Reads requests (headers and a Content-Length body) and hands each to `respond`. */
export async function startRawServer(respond: RawResponder): Promise<RawServer> {
  const requests: RawRequest[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
        buffered = buffered.subarray(end + 4 + length);
        const request = { head, body };
        requests.push(request);
        respond(socket, request, requests.length - 1);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP/1.1 answer as bytes: status line, headers (Content-Length added), body. */
export function rawAnswer(status: string, headers: Record<string, string>, body: Buffer | string = ''): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const lines = [`HTTP/1.1 ${status}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `Content-Length: ${bytes.length}`];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]);
}

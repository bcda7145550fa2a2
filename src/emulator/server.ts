/**
 * A local stand-in for the service's one operation, on node's own http server:
 *
 *   POST /v1/triggers/{triggerId}/users/{userId}/events   Bearer key, JSON object, optional numeric value
 *
 * It records what a real service would record and answers the way the contract describes, so that
 * scripts and pipelines can be tried and tested offline, including how they cope with failure.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { valueTextIn } from '../client/request.js';
import { errnoWords } from '../errno.js';
import { UsageError } from '../errors.js';
import { monotonicMs } from '../clock.js';
import { tryOr } from '../try-or.js';

export interface EmulatorOptions {
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The bearer key clients must send; generated when not given. */
  key?: string;
  /** When given, any other trigger id answers 404. */
  triggers?: readonly string[];
  /** Appends each recorded event to this file as one NDJSON line. */
  log?: string;
  /** Share of requests (0..1) answered with failStatus instead of being recorded. */
  failRate?: number;
  /** Status for injected failures; default 503. 429 and 503 carry Retry-After: 1. */
  failStatus?: number;
  /** Delay before every answer, ms. */
  latencyMs?: number;
  /** Requests a second it takes (a token bucket of a tenth of a second's worth); beyond, 429 with Retry-After, as a rate limit does. */
  capacity?: number;
  /** Requests it works on at once; beyond that it answers 503 with Retry-After, as an overloaded one does. */
  maxInFlight?: number;
  /** For tests of --capacity: the clock of the token bucket, ms (default: a monotonic clock). */
  now?: () => number;
  /** Keep recorded events in `events` (default true; the CLI only counts them). */
  keepEvents?: boolean;
  /** Called for every request once it is answered. */
  onRequest?: (entry: RequestEntry) => void;
  /** Told when --log cannot be written (the request is answered 500). */
  onLogError?: (message: string) => void;
  /** For tests of fault injection: a source of numbers in [0, 1). */
  random?: () => number;
}

export interface RecordedEvent {
  /** ISO time the event was recorded. */
  time: string;
  triggerId: string;
  userId: string;
  /** The value as a number (precision of a double), when one was sent. */
  value?: number;
  /** The value's JSON text exactly as sent, e.g. "12345678901234567890". */
  valueText?: string;
  requestId: string;
}

export interface RequestEntry {
  method: string;
  /** The raw request target, as sent. */
  url: string;
  status: number;
  /** Why the request was not recorded, when it was not. */
  error?: string;
  /** Set when the request was recorded. */
  event?: RecordedEvent;
  injected: boolean;
  /** Answered 429 or 503 because of --capacity or --max-in-flight. */
  pushedBack?: boolean;
}

export interface Emulator {
  /** e.g. http://127.0.0.1:8787 */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly key: string;
  /** Whether the key was generated (and so may be shown). */
  readonly keyGenerated: boolean;
  /** Recorded events, oldest first (empty when keepEvents is false). */
  readonly events: RecordedEvent[];
  /** Requests answered so far, and how many were recorded. */
  readonly stats: { requests: number; recorded: number; rejected: number; injected: number; pushedBack: number };
  /** Stops accepting, lets requests in flight finish, then resolves. */
  close(options?: { force?: boolean }): Promise<void>;
}

export const DEFAULT_PORT = 8787;
export const DEFAULT_FAIL_STATUS = 503;
const MAX_BODY = 1024 * 1024;
const EVENT_PATH = /^\/v1\/triggers\/([^/]+)\/users\/([^/]+)\/events$/;

/** Whether `token` is the key, in a time that does not tell where they differ (as `!==` would): equal-length digests, timingSafeEqual. */
export const sameKey = (token: string, digest: Buffer): boolean => timingSafeEqual(createHash('sha256').update(token).digest(), digest);

/** Checks a request body; returns the value (if any) or the 400 message. */
export function checkBody(body: string): { value?: number; valueText?: string } | { error: string } {
  const parsed = tryOr(() => JSON.parse(body) as unknown); // undefined only when it is not JSON
  if (parsed === undefined) return { error: 'the body is not valid JSON' };
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { error: 'the body must be a JSON object, {} or {"value": <number>}' };
  if (!('value' in parsed)) return {};
  const value = (parsed as { value: unknown }).value;
  if (typeof value !== 'number') return { error: `"value" must be a number, not ${value === null ? 'null' : typeof value}` };
  if (!Number.isFinite(value)) return { error: '"value" is beyond the range of a double-precision number' };
  const valueText = valueTextIn(body, value);
  if (value === 0 && /[1-9]/.test(valueText.split(/e/i)[0]!))
    return { error: '"value" is too small to be told from 0 (it underflows a double)' };
  return { value, valueText };
}

/**
 * A token bucket: `perSecond` tokens a second, holding at most a tenth of a second's worth (at least one), so that a client cannot bank a
 * second's worth and spend it in one burst. `take` answers 0 when there was a token, else the milliseconds until there is.
 */
export function tokenBucket(perSecond: number, now: () => number): { take(): number } {
  const perMs = perSecond / 1000;
  const size = Math.max(1, perSecond / 10);
  let tokens = size;
  let at = now();
  return {
    take() {
      const time = now();
      tokens = Math.min(size, tokens + (time - at) * perMs);
      at = time;
      if (tokens < 1) return (1 - tokens) / perMs;
      tokens -= 1;
      return 0;
    },
  };
}

/** What one request is answered (the body is `{ success, error }`), before any --latency. */
type Answer = Omit<RequestEntry, 'method' | 'url'> & { headers?: http.OutgoingHttpHeaders };

const refused = (status: number, error: string, headers?: Answer['headers']): Answer => ({ status, error, injected: false, headers });

/** The checks before the event is taken, in the order a service makes them. */
function screen(req: http.IncomingMessage, rules: Rules): Answer | { triggerId: string; userId: string } {
  const ids = EVENT_PATH.exec((req.url ?? '').split('?', 1)[0]!);
  if (!ids?.[1] || !ids[2])
    return refused(404, `no such route: ${req.method} ${req.url}; the service has POST /v1/triggers/{triggerId}/users/{userId}/events`);
  const route = tryOr(() => ({ triggerId: decodeURIComponent(ids[1]!), userId: decodeURIComponent(ids[2]!) }));
  if (!route) return refused(400, 'the path is not valid percent-encoding');
  if (req.method !== 'POST') return refused(405, `method ${req.method} is not allowed; use POST`, { allow: 'POST' });
  if (rules.failRate > 0 && rules.random() < rules.failRate) {
    const headers = rules.failStatus === 429 || rules.failStatus === 503 ? { 'retry-after': '1' } : {};
    return { ...refused(rules.failStatus, `injected failure (--fail-rate ${rules.failRate})`, headers), injected: true };
  }
  const auth = req.headers.authorization;
  if (!auth) return refused(401, 'missing Authorization header; send "Authorization: Bearer <API key>"');
  // The scheme is case-insensitive (RFC 9110): "bearer" and "BEARER" are Bearer.
  const [scheme, token] = [auth.slice(0, auth.indexOf(' ')), auth.slice(auth.indexOf(' ') + 1).trim()];
  if (scheme.toLowerCase() !== 'bearer' || !sameKey(token, rules.keyDigest)) return refused(401, 'invalid API key');
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
  if (type !== 'application/json') return refused(415, `Content-Type must be application/json, not ${type || 'missing'}`);
  const waitMs = rules.bucket?.take() ?? 0; // The limits come after the key, as a service's limits are per account.
  if (waitMs > 0) {
    const error = `rate limit: more than ${rules.capacity} requests per second (--capacity)`;
    return { ...refused(429, error, { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) }), pushedBack: true };
  }
  if (rules.working >= rules.maxInFlight) {
    const error = `overloaded: ${rules.maxInFlight} requests already in progress (--max-in-flight)`;
    return { ...refused(503, error, { 'retry-after': '1' }), pushedBack: true };
  }
  return route;
}

/** Takes the event once it is admitted: its body checked, its trigger known, and logged. */
function take(route: { triggerId: string; userId: string }, body: string, tooBig: boolean, requestId: string, rules: Rules): Answer {
  if (tooBig) return refused(413, 'the body is larger than 1 MiB');
  const checked = checkBody(body);
  if ('error' in checked) return refused(400, checked.error);
  if (rules.triggers && !rules.triggers.has(route.triggerId)) {
    const known = rules.triggers.size === 0 ? 'no triggers' : [...rules.triggers].map((t) => `"${t}"`).join(', ');
    return refused(404, `trigger "${route.triggerId}" not found; this emulator knows ${known}`);
  }
  const event: RecordedEvent = { time: new Date().toISOString(), ...route, ...checked, requestId };
  if (rules.log) {
    try {
      fs.writeSync(rules.log.fd, `${eventJson(event)}\n`);
    } catch (error) {
      // Not recorded if it cannot be logged: the client gets a 500, the emulator keeps running.
      const reason = errnoWords(error, 'writing');
      rules.log.onError?.(`cannot write the log ${rules.log.file}: ${reason}; the event was answered 500 and not recorded`);
      return refused(500, `the emulator could not write its log (${reason})`);
    }
  }
  return { status: 200, event, injected: false };
}

/** The emulator's rules and the state they keep between requests. */
function rulesFor(options: EmulatorOptions, key: string, logFd: number | undefined) {
  return {
    keyDigest: createHash('sha256').update(key).digest(),
    // A list, even an empty one (a catalog with no triggers), is all it knows; no list, any trigger.
    triggers: options.triggers ? new Set(options.triggers) : undefined,
    failRate: options.failRate ?? 0,
    failStatus: options.failStatus ?? DEFAULT_FAIL_STATUS,
    random: options.random ?? Math.random,
    capacity: options.capacity,
    bucket: options.capacity === undefined ? undefined : tokenBucket(options.capacity, options.now ?? monotonicMs),
    maxInFlight: options.maxInFlight ?? Infinity,
    working: 0,
    log: logFd === undefined ? undefined : { fd: logFd, file: options.log!, onError: options.onLogError },
  };
}

type Rules = ReturnType<typeof rulesFor>;
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string, tooBig: boolean) => void;

/** A server that reads each body (up to MAX_BODY, the rest counted) before handing the request on. */
function bodyReadingServer(handle: Handler): http.Server {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk); // past the limit the rest is counted, not kept
    });
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8'), size > MAX_BODY));
    req.on('error', () => res.destroy());
  });
  server.keepAliveTimeout = 5_000;
  return server;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEFAULT_PORT;
  const keyGenerated = !options.key;
  const key = options.key || `emu_${randomBytes(18).toString('base64url')}`;
  const latencyMs = options.latencyMs ?? 0;
  const keepEvents = options.keepEvents ?? true;
  const logFd = options.log === undefined ? undefined : openLog(options.log);
  const rules = rulesFor(options, key, logFd);
  const events: RecordedEvent[] = [];
  const stats = { requests: 0, recorded: 0, rejected: 0, injected: 0, pushedBack: 0 };
  let closing = false;
  let sequence = 0;

  const handle: Handler = (req, res, body, tooBig) => {
    const requestId = `emu-${(++sequence).toString(36)}-${randomBytes(4).toString('hex')}`;
    res.setHeader('x-request-id', requestId);
    const screened = screen(req, rules);
    const admitted = !('status' in screened); // Past the screen it counts in --max-in-flight until it is answered.
    if (admitted) rules.working++;
    const answer = admitted ? take(screened, body, tooBig, requestId, rules) : screened;
    if (answer.event && keepEvents) events.push(answer.event);
    const send = () => {
      const { headers, ...entry } = answer;
      if (admitted) rules.working--;
      // A client that gave up had its event recorded (and logged) all the same: report it, so the console and --log always agree.
      if (!res.destroyed) {
        if (closing) res.setHeader('connection', 'close');
        const text = JSON.stringify(entry.event ? { success: true } : { success: false, error: entry.error });
        res.writeHead(entry.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
        res.end(text);
      }
      stats.requests++;
      stats[entry.event ? 'recorded' : entry.injected ? 'injected' : entry.pushedBack ? 'pushedBack' : 'rejected']++;
      options.onRequest?.({ method: req.method ?? '', url: req.url ?? '', ...entry });
    };
    if (latencyMs > 0) setTimeout(send, latencyMs);
    else send();
  };

  const server = bodyReadingServer(handle);
  try {
    await listen(server, host, port);
  } catch (error) {
    if (logFd !== undefined) fs.closeSync(logFd);
    throw error;
  }
  if (logFd !== undefined) server.once('close', () => fs.closeSync(logFd));

  let closed: Promise<void> | undefined;
  const close: Emulator['close'] = ({ force = false } = {}) => {
    closing = true;
    if (force) server.closeAllConnections();
    return (closed ??= new Promise<void>((resolve) => server.close(() => resolve())));
  };
  const bound = (server.address() as AddressInfo).port;
  return { url: reachableUrl(host, bound), host, port: bound, key, keyGenerated, events, stats, close };
}

/** Listening on every address: clients on this machine reach it on loopback (which needs no --allow-http). */
function reachableUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

async function listen(server: http.Server, host: string, port: number): Promise<void> {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const noAddress = [`cannot listen on ${host}: no such local address`, 'use 127.0.0.1, ::1, or an address of this machine'];
    const another = 'pick another with --port (0 takes any free port)';
    const [problem, hint] = {
      EADDRINUSE: [`port ${port} on ${host} is already in use`, `stop what is using it, or ${another}`],
      EACCES: [`not allowed to listen on ${host}:${port}`, 'ports below 1024 need privileges; pick another with --port'],
      EADDRNOTAVAIL: noAddress,
      ENOTFOUND: noAddress,
    }[code ?? ''] ?? [`cannot listen on ${host}:${port}: ${message}`];
    throw new UsageError(problem!, { hint });
  }
}

/**
 * Opens the log for appending, once; each event is written synchronously, so its line is on disk before the 200 goes out. Opening a FIFO no
 * one reads blocks until someone does, before the emulator listens, with nothing said: a FIFO is first opened without blocking, which fails
 * at once (ENXIO) without a reader; with one, it is opened again as usual, so that writes wait for a slow reader rather than fail.
 */
function openLog(file: string): number {
  try {
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isFIFO()) return fs.openSync(file, 'a');
    const probe = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    try {
      return fs.openSync(file, 'a');
    } finally {
      fs.closeSync(probe);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') {
      const message = `the log ${file} is a FIFO with no reader: the emulator would wait for one before it listens`;
      throw new UsageError(message, { hint: `start its reader first (e.g. cat ${file} in another terminal), then the emulator` });
    }
    const message = `cannot open the log file ${file}: ${errnoWords(error, 'writing')}`;
    const inFolder = `name a file in it (e.g. --log ${file.replace(/\/+$/, '')}/events.ndjson)`;
    const hint = (error as NodeJS.ErrnoException).code === 'EISDIR' ? inFolder : 'check that its folder exists and is writable';
    throw new UsageError(message, { hint });
  }
}

/** One NDJSON line for the log: the value keeps the digits that were sent. */
export function eventJson(event: RecordedEvent): string {
  const value = event.valueText === undefined ? '' : `,"value":${event.valueText}`;
  return `{"time":${JSON.stringify(event.time)},"triggerId":${JSON.stringify(event.triggerId)},"userId":${JSON.stringify(event.userId)}${value},"requestId":${JSON.stringify(event.requestId)}}`;
}

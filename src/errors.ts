/**
 * Typed errors. Library code throws these; only cli.ts turns one into a message and an exit code. Every error about an exchange with the
 * service also says whether the event was recorded: "no" (safe to send again) or "unknown" (the request went out and no definitive answer
 * came back). That one classification, made in client.ts, drives retries, exit codes, the failed file and replays.
 */
export type ErrorKind = 'usage' | 'config' | 'refused' | 'unavailable' | 'network' | 'timeout' | 'interrupted' | 'bug';

const EXIT_CODES: Record<ErrorKind, number> = {
  usage: 2, // bad arguments or input; nothing was sent
  config: 2, // missing or unreadable settings; nothing was sent
  refused: 1, // the service refused the event: 4xx (but 408 and 429), 3xx, or "success": false
  unavailable: 3, // no definitive answer: 408, 429, or 5xx after the allowed retries
  network: 3, // no answer: connection, DNS, TLS or proxy failure after the allowed retries
  timeout: 3, // no answer within the time limit
  interrupted: 130, // stopped by SIGINT (STOP_SIGNALS has the others)
  bug: 70, // an error trigger did not expect
};

export const exitCodeFor = (kind: ErrorKind): number => EXIT_CODES[kind];

/** The signals that stop a command the way Ctrl-C does, with the exit codes shells report for them. */
export const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
export type StopSignal = keyof typeof STOP_SIGNALS;

export interface TriggerErrorOptions {
  hint?: string;
  /** For kind "interrupted": the signal that stopped the command (default SIGINT). */
  signal?: StopSignal | undefined;
  cause?: unknown;
  /** The command already told the user; cli.ts only sets the exit code. */
  reported?: boolean;
}

export class TriggerError extends Error {
  readonly kind: ErrorKind;
  readonly hint: string | undefined;
  readonly reported: boolean;
  /** For kind "interrupted": the signal that stopped the command. */
  signal: StopSignal | undefined;
  /** The event this error is about, when there is one (for --json output). */
  event: { triggerId?: string; userId?: string; value?: string } | undefined;

  constructor(kind: ErrorKind, message: string, options: TriggerErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name; // UsageError, ServiceError, ... as the class is named
    this.kind = kind;
    this.hint = options.hint;
    this.reported = options.reported === true;
    this.signal = options.signal;
  }

  get exitCode(): number {
    return this.kind === 'interrupted' && this.signal ? STOP_SIGNALS[this.signal] : exitCodeFor(this.kind);
  }
}

/** Bad arguments or input (exit 2). Nothing was sent. */
export class UsageError extends TriggerError {
  constructor(message: string, options: TriggerErrorOptions = {}) {
    super('usage', message, options);
  }
}

/** Missing or unreadable settings (exit 2). Nothing was sent and nothing stored was changed. */
export class ConfigError extends TriggerError {
  constructor(message: string, options: TriggerErrorOptions = {}) {
    super('config', message, options);
  }
}

/**
 * Whether a failed exchange recorded the event: "no" (nothing reached the service, or it answered that
 * it did not record it: safe to send again) or "unknown" (the request went out and no definitive answer
 * came back: a time-out or a closed connection after sending, a malformed answer, a 5xx but 503).
 */
export type Recorded = 'no' | 'unknown';

/** What is known about the exchange when a request fails. */
export type AttemptInfo = { attempts: number; durationMs: number; requestId?: string | undefined };

/** An error about one exchange with the service: how many attempts it took, how long, its request id. */
export abstract class AttemptError extends TriggerError implements AttemptInfo {
  readonly attempts: number;
  readonly durationMs: number;
  readonly requestId: string | undefined;
  readonly recorded: Recorded;

  constructor(kind: ErrorKind, message: string, info: AttemptInfo & { recorded: Recorded }, options: TriggerErrorOptions = {}) {
    super(kind, message, options);
    this.attempts = info.attempts;
    this.durationMs = info.durationMs;
    this.requestId = info.requestId;
    this.recorded = info.recorded;
  }
}

type Answer = Pick<ServiceError, 'status' | 'statusText'> & Partial<Pick<ServiceError, 'serverMessage' | 'body' | 'location' | 'hint'>>;

/**
 * The service (or a gateway before it) answered, but not with success: refused (exit 1), or with no
 * definitive answer (408, 429, 5xx: exit 3). `recorded` is "unknown" for a 5xx other than 503.
 */
export class ServiceError extends AttemptError {
  readonly status: number;
  readonly statusText: string;
  /** The server's own message, when it gave one. */
  readonly serverMessage: string | undefined;
  /** Parsed JSON body, or the (truncated) text body. */
  readonly body: unknown;
  readonly location: string | undefined;

  constructor(message: string, details: Answer & AttemptInfo) {
    const { status } = details;
    const definitive = status < 500 && status !== 408 && status !== 429;
    const recorded: Recorded = status >= 500 && status !== 503 ? 'unknown' : 'no';
    super(definitive ? 'refused' : 'unavailable', message, { ...details, recorded }, { hint: details.hint });
    this.status = details.status;
    this.statusText = details.statusText;
    this.serverMessage = details.serverMessage;
    this.body = details.body;
    this.location = details.location;
  }
}

type NoAnswer = { code?: string | undefined; hint?: string | undefined; cause?: unknown; recorded: Recorded; status?: number };

/** No answer: the connection failed or the time limit passed (exit 3). */
export class NetworkError extends AttemptError {
  /** The system or undici error code (ECONNREFUSED, UND_ERR_CONNECT_TIMEOUT, ...). */
  readonly code: string | undefined;
  readonly status: number | undefined; // A 2xx whose body could not be read (fix26e noticed: --json said status null).

  constructor(kind: 'network' | 'timeout', message: string, details: NoAnswer & AttemptInfo) {
    super(kind, message, details, { hint: details.hint, cause: details.cause }); // a malformed 2xx has its request id: it is checked by it
    this.code = details.code;
    this.status = details.status;
  }
}

/**
 * Stopped by a signal (exit 130, 143 or 129). Whether the service recorded an event in flight is unknown, unless `notSent`: the stop came
 * before the request went out, or while waiting to retry after an answer that recorded nothing.
 */
export class InterruptedError extends AttemptError {
  readonly notSent: boolean;

  constructor(message: string, details: AttemptInfo & { notSent?: boolean; cause?: unknown }) {
    const recorded = details.notSent === true ? 'no' : 'unknown'; // the cause: the signal's reason (an AbortSignal.timeout's TimeoutError)
    super('interrupted', message, { ...details, requestId: undefined, recorded }, { cause: details.cause });
    this.notSent = details.notSent === true;
  }
}

/** An error about an exchange with the service (it says whether the event was recorded). */
export const isAttemptError = (error: unknown): error is AttemptError => error instanceof AttemptError;

export const isTriggerError = (error: unknown): error is TriggerError => error instanceof TriggerError;

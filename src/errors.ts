/**
 * Typed errors. Library code throws these; only cli.ts turns one into a message and an exit code.
 *
 * kind      exit  meaning
 * usage     2     bad arguments or input; nothing was sent
 * config    2     missing or unreadable settings; nothing was sent
 * refused   1     the service answered, and not with success (non-2xx, 3xx, "success": false)
 * network   3     no answer: connection, DNS, TLS failure after the allowed retries
 * timeout   3     no answer within the time limit
 * interrupted 130 stopped by SIGINT (143 by SIGTERM, 129 by SIGHUP: 128 + the signal's number)
 */
export type ErrorKind = 'usage' | 'config' | 'refused' | 'network' | 'timeout' | 'interrupted';

const EXIT_CODES: Record<ErrorKind, number> = {
  usage: 2,
  config: 2,
  refused: 1,
  network: 3,
  timeout: 3,
  interrupted: 130,
};

export function exitCodeFor(kind: ErrorKind): number {
  return EXIT_CODES[kind];
}

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
    this.name = 'TriggerError';
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
    this.name = 'UsageError';
  }
}

/** Missing or unreadable settings (exit 2). Nothing was sent and nothing stored was changed. */
export class ConfigError extends TriggerError {
  constructor(message: string, options: TriggerErrorOptions = {}) {
    super('config', message, options);
    this.name = 'ConfigError';
  }
}

/** What is known about the exchange when a request fails. */
export interface AttemptInfo {
  attempts: number;
  durationMs: number;
  requestId?: string | undefined;
}

/** An error about one exchange with the service: how many attempts it took, how long, its request id. */
export abstract class AttemptError extends TriggerError implements AttemptInfo {
  readonly attempts: number;
  readonly durationMs: number;
  readonly requestId: string | undefined;

  constructor(kind: ErrorKind, message: string, info: AttemptInfo, options: TriggerErrorOptions = {}) {
    super(kind, message, options);
    this.attempts = info.attempts;
    this.durationMs = info.durationMs;
    this.requestId = info.requestId;
  }
}

/** The service answered, but not with success (exit 1). */
export class ServiceError extends AttemptError {
  readonly status: number;
  readonly statusText: string;
  /** The server's own message, when it gave one. */
  readonly serverMessage: string | undefined;
  /** Parsed JSON body, or the (truncated) text body. */
  readonly body: unknown;
  readonly location: string | undefined;

  constructor(
    message: string,
    details: {
      status: number;
      statusText: string;
      serverMessage?: string | undefined;
      body?: unknown;
      location?: string | undefined;
      hint?: string | undefined;
    } & AttemptInfo,
  ) {
    super('refused', message, details, { hint: details.hint });
    this.name = 'ServiceError';
    this.status = details.status;
    this.statusText = details.statusText;
    this.serverMessage = details.serverMessage;
    this.body = details.body;
    this.location = details.location;
  }
}

/** No answer: the connection failed or the time limit passed (exit 3). */
export class NetworkError extends AttemptError {
  /** The system or undici error code (ECONNREFUSED, UND_ERR_CONNECT_TIMEOUT, ...). */
  readonly code: string | undefined;

  constructor(
    kind: 'network' | 'timeout',
    message: string,
    details: { code?: string | undefined; hint?: string | undefined; cause?: unknown } & AttemptInfo,
  ) {
    super(kind, message, { ...details, requestId: undefined }, { hint: details.hint, cause: details.cause });
    this.name = 'NetworkError';
    this.code = details.code;
  }
}

/**
 * Stopped by a signal (exit 130, 143 or 129). Whether the service recorded an event in flight is
 * unknown, unless `notSent`: the stop came while waiting to retry, after an answer that recorded nothing.
 */
export class InterruptedError extends AttemptError {
  readonly notSent: boolean;

  constructor(message: string, details: AttemptInfo & { notSent?: boolean }) {
    super('interrupted', message, { ...details, requestId: undefined });
    this.name = 'InterruptedError';
    this.notSent = details.notSent === true;
  }
}

export function isTriggerError(error: unknown): error is TriggerError {
  return error instanceof TriggerError;
}

/**
 * Turning results and errors into text: human lines, the --json object, verbose traces, GitHub
 * annotations and the --dry-run curl command. Pure functions; io.ts does the writing.
 */
import type { ClientEvent, FireResult } from '../client/client.js';
import { AttemptError, NetworkError, ServiceError, type AttemptInfo, type TriggerError } from '../errors.js';
import type { Palette } from './colors.js';

export interface EventSummary {
  triggerId?: string | undefined;
  userId?: string | undefined;
  /** JSON number text as sent */
  value?: string | undefined;
}

// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text from data (ids, values, messages) made safe for a terminal and a CI log: control characters
 * (C0 and C1) are shown escaped, so a newline in a user id does not start a new line (or a workflow
 * command) and an escape sequence never reaches the terminal.
 */
export function printable(text: string): string {
  return text.replace(CONTROLS, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** A duration as a person reads it: 84 ms, 2.35 s, 4m37s, 1h02m. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

/** One human line for an accepted event: trigger, user, value, status, time. */
export function successLine(result: FireResult, c: Palette): string {
  const parts = [
    c.bold(printable(result.triggerId)),
    printable(result.userId),
    result.value === undefined ? 'no value' : `value ${result.value}`,
    c.success(`${result.status} ${result.statusText}`.trim()),
    formatMs(result.durationMs),
  ];
  if (result.attempts > 1) parts.push(`${result.attempts} attempts`);
  if (result.requestId) parts.push(`request id ${printable(result.requestId)}`);
  return `${c.success('✔')} ${parts.join(c.dim(' · '))}`;
}

/** One line on stderr: what went wrong and how to fix it. */
export function errorLine(error: TriggerError, c: Palette): string {
  let text = printable(error.message);
  const requestId = (error as Partial<AttemptInfo>).requestId;
  if (requestId) text += ` (request id ${printable(requestId)})`;
  const hint = error.hint ? c.dim(' — ') + c.hint(printable(error.hint)) : '';
  return `${c.error('error:')} ${text}${hint}`;
}

const RAW = Symbol('raw JSON');
interface Raw {
  [RAW]: string;
}

/** Marks JSON text to be placed as it is: the value's digits, never round-tripped through a double. */
export function rawJson(text: string | undefined): Raw | null {
  return text === undefined ? null : { [RAW]: text };
}

/** One-level JSON object whose members may be raw JSON text; undefined members become null. */
export function toJson(fields: Record<string, unknown>): string {
  const members = Object.entries(fields).map(([key, value]) => {
    const text = typeof value === 'object' && value !== null && RAW in value ? (value as Raw)[RAW] : JSON.stringify(value ?? null);
    return `${JSON.stringify(key)}:${text}`;
  });
  return `{${members.join(',')}}`;
}

/** The --json object for a result, with the keys the contract names, in that order. */
export function resultJson(result: FireResult, lead: Record<string, unknown> = {}): string {
  return toJson({
    ...lead,
    ok: true,
    status: result.status,
    triggerId: result.triggerId,
    userId: result.userId,
    value: rawJson(result.value),
    attempts: result.attempts,
    durationMs: result.durationMs,
    requestId: result.requestId,
    response: result.response,
  });
}

export function errorJsonFields(error: TriggerError, options: { body?: boolean } = {}): Record<string, unknown> {
  const fields: Record<string, unknown> = { kind: error.kind, exitCode: error.exitCode, message: error.message };
  if (error.hint) fields.hint = error.hint;
  if (error instanceof ServiceError) {
    fields.serverMessage = error.serverMessage ?? null;
    if (error.location) fields.location = error.location;
    if (options.body !== false) fields.body = error.body;
  }
  if (error instanceof NetworkError && error.code) fields.code = error.code;
  if (error instanceof AttemptError) fields.recorded = error.recorded;
  return fields;
}

/** The --json object for a failure: same keys as success, "error" in place of "response". */
export function failureJson(
  error: TriggerError,
  event: EventSummary = error.event ?? {},
  lead: Record<string, unknown> = {},
  options: { body?: boolean } = {},
): string {
  const info = error as Partial<AttemptInfo>;
  return toJson({
    ...lead,
    ok: false,
    status: error instanceof ServiceError ? error.status : null,
    triggerId: event.triggerId,
    userId: event.userId,
    value: rawJson(event.value),
    attempts: info.attempts ?? 0,
    durationMs: info.durationMs ?? 0,
    requestId: info.requestId,
    error: errorJsonFields(error, options),
  });
}

function headerLines(prefix: string, headers: Record<string, string | string[] | undefined>): string[] {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value])
      if (v !== undefined) lines.push(`${prefix} ${printable(name)}: ${printable(v)}`);
  }
  return lines;
}

/** curl -v style lines for --verbose. Headers arrive with the key already masked. */
export function verboseLines(event: ClientEvent, c: Palette): string[] {
  switch (event.type) {
    case 'request':
      return [c.dim(`* attempt ${event.attempt}`), `> ${event.method} ${event.url}`, ...headerLines('>', event.headers), `> ${event.body}`];
    case 'response': {
      const body = event.body.length > 2000 ? `${event.body.slice(0, 2000)}…` : event.body;
      return [
        `< ${event.status} (${formatMs(event.ms)})`,
        ...headerLines('<', event.headers),
        ...(body ? [`< ${body.split(/\r?\n/).map(printable).join('\n< ')}${event.truncated ? ' [truncated at 1 MiB]' : ''}`] : []),
      ];
    }
    case 'error':
      return [
        c.error(
          `* attempt ${event.attempt} failed after ${formatMs(event.ms)}: ${printable(event.message)}${event.code ? ` (${event.code})` : ''}`,
        ),
      ];
    case 'retry':
      return [c.warn(`* ${printable(event.reason)}: retrying in ${formatMs(event.delayMs)}`)];
  }
}

/**
 * A workflow command that GitHub Actions shows as an error annotation. Its message is escaped as the
 * workflow-command syntax requires (%, CR, LF), so one failure is one annotation line whatever the
 * data says; other control characters are shown escaped, as on a terminal.
 */
export function githubAnnotation(message: string, title = 'trigger'): string {
  const escapeData = (s: string) =>
    s
      .replace(/%/g, '%25')
      .replace(/\r/g, '%0D')
      .replace(/\n/g, '%0A')
      .replace(CONTROLS, (c) => printable(c));
  const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  return `::error title=${escapeProperty(title)}::${escapeData(message)}`;
}

/** A word for a POSIX shell: as it is when that is safe, else single-quoted. */
export function shellQuote(text: string, { always = false } = {}): string {
  if (!always && /^[\w@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The request as a curl command; the key stays in $TRIGGER_API_KEY. */
export function curlCommand(url: string, body: string, userAgent: string): string {
  return [
    `curl --fail-with-body --silent --show-error --path-as-is -X POST ${shellQuote(url, { always: true })}`,
    `  -H "Authorization: Bearer $TRIGGER_API_KEY"`,
    `  -H 'Content-Type: application/json'`,
    `  -H 'Accept: application/json'`,
    `  -H ${shellQuote(`User-Agent: ${userAgent}`, { always: true })}`,
    `  --data-raw ${shellQuote(body, { always: true })}`,
  ].join(' \\\n');
}

/** Results and errors as text (pure; io.ts writes): human lines, --json, --verbose traces, GitHub annotations, --dry-run's curl. */
import type { ClientEvent, FireResult } from '../client/client.js';
import type { AnswerHeaders } from '../client/response.js';
import { AttemptError, NetworkError, ServiceError, type AttemptInfo, type TriggerError } from '../errors.js';
import type { Palette } from './colors.js';
import type { ServerMask } from './redact.js';

/**
 * What is escaped in text shown to a person: C0 and C1 controls; Unicode format characters (Cf: U+202E and the other direction overrides
 * and isolates, U+200B and the other zero-width ones, U+FEFF, U+00AD, tags) and the other default-ignorable ones, which show nothing
 * (U+034F, the U+3164 fillers, variation selectors); U+2028, U+2029; lone surrogates. Each moves, hides or reorders what a terminal shows.
 */
// eslint-disable-next-line no-control-regex
const UNSEEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}]/gu;
const HAS_UNSEEN = new RegExp(UNSEEN.source, 'u'); // no `g`: a test that keeps no lastIndex

const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One character as an escape a person can read and type back: \n, \x1b, \u202e, \u{e0041}. */
function escaped(c: string): string {
  if (SHORT_ESCAPES[c]) return SHORT_ESCAPES[c];
  const code = c.codePointAt(0)!;
  if (code < 0x80) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text from data (ids, values, messages, catalog text) made safe for a terminal and a CI log, so that what a person reads is what is sent:
 * control characters are shown escaped, so a newline in a user id does not start a new line (or a workflow command) and an escape sequence
 * never reaches the terminal; invisible and direction-changing characters are shown escaped too (`\u202e`), so that `evil\u202egnp.exe` is
 * not read as `evilexe.png`. Only what is shown: the wire gets the real text. Most text is plain ASCII: one test, no allocation.
 */
export const printable = (text: string): string => (HAS_UNSEEN.test(text) ? text.replace(UNSEEN, escaped) : text);

/** An id as a human line shows it: as it is, or JSON-quoted when it holds an escape, a backslash or a quote ("a\nb" and "a\\nb" apart). */
export const shownId = (id: string): string => (/[\\"]/.test(id) || HAS_UNSEEN.test(id) ? printable(JSON.stringify(id)) : id);

/** A duration as a person reads it: 84 ms, 2.35 s, 4m37s, 1h02m. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

/** One human line for an accepted event: trigger, user, value, status, time. */
export function successLine(result: FireResult, c: Palette, mask: ServerMask): string {
  const parts = [
    c.bold(shownId(result.triggerId)),
    shownId(result.userId),
    result.value === undefined ? 'no value' : `value ${result.value}`,
    c.success(`${result.status} ${result.statusText}`.trim()),
    formatMs(result.durationMs),
  ];
  if (result.attempts > 1) parts.push(`${result.attempts} attempts`);
  if (result.requestId) parts.push(`request id ${printable(mask.server(result.requestId))}`);
  return `${c.success('✔')} ${parts.join(c.dim(' · '))}`;
}

/**
 * An error's message as shown. A refusal's message quotes the server (its message, a Location), so pieces of the key are masked in it;
 * other messages hold the user's own ids and values, shown as given (the whole key is still masked wherever it is, by the output).
 */
export const shownMessage = (error: TriggerError, mask: ServerMask): string =>
  error instanceof ServiceError ? mask.server(error.message) : error.message;

/** One line on stderr: what went wrong and how to fix it. */
export function errorLine(error: TriggerError, c: Palette, mask: ServerMask): string {
  let text = printable(shownMessage(error, mask));
  const requestId = (error as Partial<AttemptInfo>).requestId;
  if (requestId) text += ` (request id ${printable(mask.server(requestId))})`;
  const hint = error.hint ? c.dim(' — ') + c.hint(printable(error.hint)) : '';
  return `${c.error('error:')} ${text}${hint}`;
}

const RAW = Symbol('raw JSON');
type Raw = { [RAW]: string };

/** Marks JSON text to be placed as it is: the value's digits, never round-tripped through a double. */
export const rawJson = (text: string | undefined): Raw | null => (text === undefined ? null : { [RAW]: text });

/** One-level JSON object whose members may be raw JSON text; undefined members become null. */
export function toJson(fields: Record<string, unknown>): string {
  let json = ''; // concatenated, not mapped and joined: a stop writes 100,000 lines at once
  for (const key in fields) {
    const value = fields[key];
    const text = typeof value === 'object' && value !== null && RAW in value ? (value as Raw)[RAW] : JSON.stringify(value ?? null);
    json += `${json ? ',' : '{'}${JSON.stringify(key)}:${text}`;
  }
  return json ? `${json}}` : '{}';
}

/** A value from the server (a parsed body or its text) as JSON text, pieces of the key masked. */
const serverJson = (value: unknown, mask: ServerMask): Raw => ({ [RAW]: mask.serverJson(JSON.stringify(value ?? null)) });

/** A string from the server (a header, a message), pieces of the key masked. */
const serverText = (text: string | undefined, mask: ServerMask) => (text === undefined ? undefined : mask.server(text));

/** The --json object for a result, with the keys the contract names, in that order. */
export function resultJson(result: FireResult, mask: ServerMask, lead: Record<string, unknown> = {}): string {
  return toJson({
    ...lead,
    ok: true,
    status: result.status,
    triggerId: result.triggerId,
    userId: result.userId,
    value: rawJson(result.value),
    attempts: result.attempts,
    durationMs: result.durationMs,
    requestId: serverText(result.requestId, mask),
    response: serverJson(result.response, mask),
  });
}

export function errorJsonFields(error: TriggerError, mask: ServerMask, options: { body?: boolean } = {}): Record<string, unknown> {
  const fields: Record<string, unknown> = { kind: error.kind, exitCode: error.exitCode, message: shownMessage(error, mask) };
  if (error.hint) fields.hint = error.hint;
  if (error instanceof ServiceError) {
    fields.serverMessage = serverText(error.serverMessage, mask) ?? null;
    if (error.location) fields.location = mask.server(error.location);
    if (options.body !== false && error.body !== undefined) fields.body = serverJson(error.body, mask);
  }
  if (error instanceof NetworkError && error.code) fields.code = error.code;
  if (error instanceof AttemptError) fields.recorded = error.recorded;
  return fields;
}

/** The --json object for a failure: same keys as success, "error" in place of "response". */
export function failureJson(
  error: TriggerError,
  mask: ServerMask,
  event: NonNullable<TriggerError['event']> = error.event ?? {},
  lead: Record<string, unknown> = {},
  options: { body?: boolean } = {},
): string {
  const info = error as Partial<AttemptInfo>;
  return toJson({
    ...lead,
    ok: false,
    status: error instanceof ServiceError || error instanceof NetworkError ? (error.status ?? null) : null,
    triggerId: event.triggerId,
    userId: event.userId,
    value: rawJson(event.value),
    attempts: info.attempts ?? 0,
    durationMs: info.durationMs ?? 0,
    requestId: serverText(info.requestId, mask),
    error: rawJson(toJson(errorJsonFields(error, mask, options))),
  });
}

/** A line per header value (a repeated header's each on its own), as curl -v shows them. */
function headerLines(prefix: string, headers: AnswerHeaders, shown: (text: string) => string = (text) => text): string[] {
  return Object.entries(headers).flatMap(([name, value]) =>
    [value ?? []].flat().map((v) => `${prefix} ${printable(shown(name))}: ${printable(shown(v))}`),
  );
}

/** --verbose's curl -v style lines: request headers come key-masked, the user's data as given, the answer masked as server text. */
export function verboseLines(event: ClientEvent, c: Palette, mask: ServerMask): string[] {
  switch (event.type) {
    case 'request':
      return [c.dim(`* attempt ${event.attempt}`), `> ${event.method} ${event.url}`, ...headerLines('>', event.headers), `> ${event.body}`];
    case 'response': {
      // Masked before it is cut, so that the cut never leaves the start of a key unmasked.
      const whole = mask.server(event.body.length > 4000 ? event.body.slice(0, 4000) : event.body);
      const body = whole.length > 2000 || event.body.length > 4000 ? `${whole.slice(0, 2000)}…` : whole;
      const cut = event.closed ? ' (cut short)' : ''; // after the words that came, as the error says it
      return [
        `< ${event.status} (${formatMs(event.ms)})${body ? '' : cut}`,
        ...headerLines('<', event.headers, (text) => mask.server(text)),
        ...(body ? [`< ${body.split(/\r?\n/).map(printable).join('\n< ')}${event.truncated ? ' [truncated at 1 MiB]' : ''}${cut}`] : []),
      ];
    }
    case 'error': {
      const code = event.code ? ` (${event.code})` : '';
      return [c.error(`* attempt ${event.attempt} failed after ${formatMs(event.ms)}: ${printable(event.message)}${code}`)];
    }
    case 'retry':
      return [c.warn(`* ${printable(event.reason)}: retrying in ${formatMs(event.delayMs)}`)];
  }
}

type AnnotationOptions = { level?: 'error' | 'warning' | 'notice'; file?: string; line?: number | null };

/**
 * A workflow command that GitHub Actions shows as an annotation (`::error title=…::message`). Its message is escaped as the
 * workflow-command syntax requires (`%`, CR, LF), and its properties (`title=`, `file=`) also for `:` and `,`, which end a property; so one
 * failure is one annotation line whatever the data says. Other control and invisible characters are shown escaped, as on a terminal. The
 * one escaper: every annotation the tool prints is made here.
 */
export function githubAnnotation(message: string, title = 'trigger', { level = 'error', file, line }: AnnotationOptions = {}): string {
  const data = (text: string) => printable(text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
  const property = (text: string) => data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const properties = [file === undefined ? '' : `file=${property(file)}`, line == null ? '' : `line=${line}`, `title=${property(title)}`];
  return `::${level} ${properties.filter(Boolean).join(',')}::${data(message)}`;
}

/** bash's $'...' of text holding what printable() escapes: such characters, `\`, `'` and `!` as their UTF-8 bytes (\x1b), the rest as is. */
export const ansiQuote = (text: string): string =>
  `$'${[...text].map((c) => (/[\\'!]/.test(c) || printable(c) !== c ? Buffer.from(c).toString('hex').replace(/../g, '\\x$&') : c)).join('')}'`;

/** A word for a shell: as it is when that is safe, else single-quoted; as $'...' when it holds a control or an invisible character. */
export function shellQuote(text: string, { always = false } = {}): string {
  if (!always && /^[\w@%+=:,./-]+$/.test(text)) return text;
  return HAS_UNSEEN.test(text) ? ansiQuote(text) : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The request as a curl command; the key stays in $TRIGGER_API_KEY. */
export function curlCommand(url: string, body: string, headers: Record<string, string>): string {
  // Each header as the client sends it (client/request.ts), the key read from the environment.
  const lines = Object.entries(headers).map(([name, value]) => {
    const title = name.replace(/(^|-)[a-z]/g, (c) => c.toUpperCase());
    return name === 'authorization'
      ? `  -H "${title}: Bearer $TRIGGER_API_KEY"`
      : `  -H ${shellQuote(`${title}: ${value}`, { always: true })}`;
  });
  return [
    `curl --fail-with-body --silent --show-error --path-as-is -X POST ${shellQuote(url, { always: true })}`,
    ...lines,
    `  --data-raw ${shellQuote(body, { always: true })}`,
  ].join(' \\\n');
}

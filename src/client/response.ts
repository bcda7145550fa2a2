/**
 * Reading what the service answered: a bounded body, its message, a request id.
 */

export const MAX_BODY_BYTES = 1024 * 1024;

/** The body as JSON when it parses as JSON, else undefined. */
export function parseJsonBody(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

// Escape sequences and control characters from a server must not reach the user's terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /\u001b\[[0-9;?]*[ -/]*[@-~]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function cleanText(text: string): string {
  return text.replace(CONTROL, '').replace(/\s+/g, ' ').trim();
}

export function excerpt(text: string, max = 200): string {
  const clean = cleanText(text);
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

function field(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'object' && value !== null) {
    const nested = (value as Record<string, unknown>).message;
    if (typeof nested === 'string' && nested.trim() !== '') return nested;
  }
  return undefined;
}

/**
 * The server's own explanation: the JSON body's message, error, title or detail (title and detail
 * together for application/problem+json), else an excerpt of the text.
 */
export function serverMessage(json: unknown, text: string): string | undefined {
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const body = json as Record<string, unknown>;
    const title = field(body, 'title');
    const detail = field(body, 'detail');
    const message =
      field(body, 'message') ?? field(body, 'error') ?? (title && detail && title !== detail ? `${title}: ${detail}` : (title ?? detail));
    if (message) return excerpt(message, 300);
    if (Object.keys(body).length === 0) return undefined; // {} says nothing
  }
  const plain = excerpt(text);
  return plain === '' ? undefined : plain;
}

export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function requestIdOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const id = headerValue(headers, 'x-request-id') ?? headerValue(headers, 'request-id');
  return id === undefined ? undefined : excerpt(id, 200);
}

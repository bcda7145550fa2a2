/** Reading what the service answered: a bounded body, its message, a request id. */
import { decodeReferences } from '../output/redact.js';
import { tryOr } from '../try-or.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** The body as JSON when it parses as JSON, else undefined. */
export function parseJsonBody(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  return tryOr(() => JSON.parse(trimmed) as unknown);
}

// Escape sequences and control characters from a server must not reach the user's terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /\u001b\[[0-9;?]*[ -/]*[@-~]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export const cleanText = (text: string): string => text.replace(CONTROL, '').replace(/\s+/g, ' ').trim();

export function excerpt(text: string, max = 200): string {
  const clean = cleanText(text);
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

const said = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** A member that says something: a string, or an object's message (`"error": {"message": …}`). */
function field(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return said(value) ?? (typeof value === 'object' && value !== null ? said((value as { message?: unknown }).message) : undefined);
}

/** The server's own words: the JSON's message, error, title or detail (problem+json: title and detail), else an excerpt of the text. */
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
  const plain = excerpt(looksLikeHtml(text) ? htmlWords(text) : text);
  return plain === '' ? undefined : plain;
}

/** Whether a body is an HTML page (a proxy's, a CDN's or a web server's error page) rather than text. */
export const looksLikeHtml = (text: string): boolean =>
  /^\s*\ufeff?(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<title[\s>]|<!--)|<\/(?:html|body|head|title)>/i.test(text);

/** Markup as text: tags gone, entities decoded (a `<` from an entity stays a `<`, as the page shows it). */
function markupText(html: string): string {
  return decodeReferences(html.replace(/<[^<>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

const HTML_READ = 64 * 1024; // How much of a page is looked at: its words come early, and the time spent stays small.

/**
 * An HTML page's words: its title, then the text of its body (scripts, styles and comments left out,
 * and the title not said twice when the body starts with it): "502 Bad Gateway: nginx/1.25.3".
 */
export function htmlWords(page: string): string {
  const html = page.length > HTML_READ ? page.slice(0, HTML_READ) : page;
  const withoutCode = html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ')
    .replace(/<(script|style|template|noscript)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, ' ');
  // Tag patterns stop at the next `<`: linear on any page. A title holds text, not tags.
  const titleElement = /<title\b[^<>]*>([^<]*)/i.exec(withoutCode);
  const title = markupText(titleElement?.[1] ?? '');
  const rest = titleElement ? withoutCode.replace(titleElement[0], ' ') : withoutCode;
  const bodyTag = /<body\b[^<>]*>/i.exec(rest);
  let body = markupText(bodyTag ? rest.slice(bodyTag.index + bodyTag[0].length) : rest);
  if (title !== '' && body.startsWith(title)) body = body.slice(title.length).trim();
  return title === '' ? body : body === '' ? title : `${title}: ${body}`;
}

/** An answer's headers as an object: lower-case names, a repeated header's values in an array. */
export type AnswerHeaders = Record<string, string | string[] | undefined>;

export function headerValue(headers: AnswerHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function requestIdOf(headers: AnswerHeaders): string | undefined {
  const id = headerValue(headers, 'x-request-id') ?? headerValue(headers, 'request-id');
  return id === undefined ? undefined : excerpt(id, 200);
}

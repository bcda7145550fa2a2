/**
 * An answer's headers as undici hands them to the client's handler: an object made by undici's
 * parseHeaders from the names and values it read; the client reads one header from it.
 */
import { describe, expect, it } from 'vitest';
import { parseHeaders as headersOf } from 'undici/lib/core/util.js';
import { headerValue, htmlWords, looksLikeHtml, requestIdOf, serverMessage } from '../../src/client/response.js';
import { contentCoding } from '../../src/client/decode.js';

const raw = (...pairs: string[]) => pairs.map((text) => Buffer.from(text, 'latin1'));

describe("undici's headers object", () => {
  it('makes the object undici would: lower-case names, repeated headers as arrays', () => {
    const headers = headersOf(raw('Content-Type', 'application/json', 'Set-Cookie', 'a=1', 'set-cookie', 'b=2', 'SET-COOKIE', 'c=3'));
    expect(headers).toEqual({ 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2', 'c=3'] });
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
  });

  it('keeps a header named __proto__ as a header, not as the prototype', () => {
    const headers = headersOf(raw('__proto__', 'x', 'ok', '1'));
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
    expect(Object.keys(headers)).toEqual(['__proto__', 'ok']);
    expect(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value).toBe('x');
  });

  it('reads values as latin1, as undici does', () => {
    expect(headersOf(raw('x-name', 'caf\u00e9'))['x-name']).toBe('caf\u00e9');
  });
});

describe('headerValue and requestIdOf', () => {
  it('finds a header whatever its case, the first of repeated ones', () => {
    const headers = raw('Content-Type', 'text/plain', 'X-Request-ID', 'req_1', 'x-request-id', 'req_2');
    expect(headerValue(headersOf(headers), 'x-request-id')).toBe('req_1');
    expect(headerValue(headersOf(headers), 'retry-after')).toBeUndefined();
  });

  it('does not take a header of the same length for another (content-type is as long as x-request-id)', () => {
    expect(headerValue(headersOf(raw('content-type', 'a', 'connection', 'b')), 'x-request-id')).toBeUndefined();
    expect(headerValue(headersOf(raw('content-type', 'a', 'connection', 'b')), 'request-id')).toBeUndefined();
  });

  it('prefers x-request-id to request-id, and falls back to it', () => {
    expect(requestIdOf(headersOf(raw('Request-Id', 'plain', 'X-Request-Id', 'x')))).toBe('x');
    expect(requestIdOf(headersOf(raw('Request-Id', 'plain')))).toBe('plain');
    expect(requestIdOf(headersOf(raw('Date', 'now')))).toBeUndefined();
  });

  it('cleans a request id of control characters before it is shown', () => {
    expect(requestIdOf(headersOf(raw('x-request-id', 'req\u001b[31m_9')))).toBe('req_9');
  });

  it('works on string names and values too', () => {
    expect(headerValue(headersOf(['X-Request-Id', 'req_s']), 'x-request-id')).toBe('req_s');
  });
});

describe('an HTML error page, as its words', () => {
  const nginx =
    '<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n<body>\r\n<center><h1>429 Too Many Requests</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

  it.each([
    [nginx, '429 Too Many Requests: nginx'],
    ['<!DOCTYPE html><html><head><title>Oops</title></head><body><p>Try again.</p></body></html>', 'Oops: Try again.'],
    [
      '<html><body><h1>Forbidden</h1><p>You don&#39;t have permission &amp; that&#x27;s final &lt;sorry&gt;</p></body></html>',
      "Forbidden You don't have permission & that's final <sorry>",
    ],
    [
      '<html><head><title>T</title><script>document.write("<p>no</p>")</script><style>p{}</style></head><body><!-- a <b>comment</b> -->words</body></html>',
      'T: words',
    ],
    ['<title>Only a title</title>', 'Only a title'],
    ['<html><body>\u001b[31mred\u0007</body></html>', 'red'],
  ])('%j says %j', (page, words) => {
    expect(serverMessage(undefined, page)).toBe(words);
  });

  it('plain text and JSON are not taken for HTML', () => {
    expect(looksLikeHtml('a < b and c > d')).toBe(false);
    expect(serverMessage({ message: '<b>bold</b> claims' }, '')).toBe('<b>bold</b> claims');
    expect(serverMessage(undefined, 'upstream error: x < y')).toBe('upstream error: x < y');
  });

  it('stays linear on a hostile page (unclosed tags repeated over 1 MiB)', () => {
    for (const unit of ['<title', '<title>', '<body', '<script', '<!--', '<']) {
      const page = `<html>${unit.repeat(Math.floor((1024 * 1024) / unit.length))}`;
      expect(typeof htmlWords(page)).toBe('string');
    }
  });
});

describe('Content-Encoding', () => {
  it.each([
    ['gzip', 'gzip'],
    [' GZIP ', 'gzip'],
    ['x-gzip', 'gzip'],
    ['deflate', 'deflate'],
    ['br', 'br'],
    ['identity', undefined],
    ['', undefined],
    ['compress', { unsupported: 'compress' }],
    ['gzip, br', { unsupported: 'gzip, br' }],
  ])('%j is %j', (header, coding) => {
    expect(contentCoding(header)).toEqual(coding);
  });
});

/**
 * What a status or a failed connection means to a person: message and hint, as a table. No server.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { describeNetworkError, networkError, serviceError, statusHint } from '../../src/client/messages.js';
import { DecodeError } from '../../src/client/decode.js';
import { asProxyError, ProxyError } from '../../src/client/proxy.js';

const context = { triggerId: 'purchase', maskedKey: '••••WXYZ', keySource: 'TRIGGER_API_KEY', retries: 2 };
const info = { attempts: 1, durationMs: 5, requestId: 'r1' };

// The hints for a refused certificate read NODE_EXTRA_CA_CERTS (which this machine may set): here, as if unset.
beforeEach(() => vi.stubEnv('NODE_EXTRA_CA_CERTS', ''));

describe('an answer that is not a success', () => {
  it.each([
    [
      401,
      { error: 'bad key' },
      'the service refused the event: 401 Unauthorized: bad key',
      'check the API key (••••WXYZ from TRIGGER_API_KEY); set a new one with: trigger config set-key',
      1,
    ],
    [
      404,
      { message: 'no such trigger' },
      'the service refused the event: 404 Not Found: no such trigger',
      'check the trigger id "purchase": it must exist in the dashboard with type Custom, and the base URL must point at the service',
      1,
    ],
    [429, {}, 'not recorded: the service answered 429 Too Many Requests', 'the service is busy; try again later', 3],
    [
      500,
      { title: 'Oops', detail: 'db down' },
      'no definitive answer: 500 Internal Server Error: Oops: db down',
      'the event may or may not have been recorded (the service or a gateway failed after the request reached it), so it was not retried; check before sending it again',
      3,
    ],
    [
      504,
      '',
      'no definitive answer: 504 Gateway Timeout',
      'the event may or may not have been recorded (the service or a gateway failed after the request reached it), so it was not retried; check before sending it again',
      3,
    ],
    [
      408,
      '',
      'not recorded: the service answered 408 Request Timeout',
      'the service gave up waiting for the request; it did not record the event, so it is safe to send again',
      3,
    ],
    [
      431,
      '',
      'the service refused the event: 431 Request Header Fields Too Large',
      'the service found the request too large (its headers or URL); a very long user id can do this',
      1,
    ],
    [410, '', 'the service refused the event: 410 Gone', 'the service did not accept the request as sent; it was not retried', 1],
    [499, '', 'the service refused the event: HTTP 499', 'the service did not accept the request as sent; it was not retried', 1],
    [200, { success: false, error: 'quota' }, 'the service answered 200 OK but said "success": false: quota', undefined, 1],
  ])('%i', (status, body, message, hint, exitCode) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const error = serviceError({ status, headers: {}, json: typeof body === 'string' ? undefined : body, text }, context, info);
    expect([error.message, error.hint, error.exitCode, error.requestId]).toEqual([message, hint, exitCode, 'r1']);
  });

  it('a 404 names the path asked for, and a doubled /v1 blames the base URL, not the trigger', () => {
    expect(statusHint(404, {}, { ...context, path: '/api/v1/triggers/purchase/users/u/events' })).toMatch(
      /base URL must point at the service \(asked for \/api\/v1\/triggers\/purchase\/users\/u\/events\)$/,
    );
    expect(statusHint(404, {}, { ...context, path: '/v1/v1/triggers/purchase/users/u/events' })).toBe(
      'the path has /v1 twice (asked for /v1/v1/triggers/purchase/users/u/events): the tool adds /v1 itself, so set the base URL without it (trigger config set-base-url)',
    );
  });

  it('a 404 for a long trigger id or user id echoes each cut, as other input is (audit26 #6)', () => {
    const [trigger, user] = ['p'.repeat(5000), 'u'.repeat(5000)];
    const hint = statusHint(404, {}, { ...context, triggerId: trigger, path: `/v1/triggers/${trigger}/users/${user}/events` })!;
    expect(hint).toBe(
      `check the trigger id "${'p'.repeat(40)}…${'p'.repeat(12)}" (5,000 characters): it must exist in the dashboard with type Custom, ` +
        `and the base URL must point at the service (asked for /v1/triggers/${'p'.repeat(27)}…${'u'.repeat(5)}/events (10,027 characters))`,
    );
  });

  it('a redirect names the Location, stripped of control characters', () => {
    const error = serviceError(
      { status: 302, headers: { location: 'https://x.example/\u009b31m' }, json: undefined, text: '' },
      context,
      info,
    );
    expect(error.message).toBe('the service redirected (302 Found) to https://x.example/31m');
    expect(error.hint).toContain('redirects are not followed');
  });

  it('a 304 says what it is (not modified, no redirect) and that the row was not recorded, not "redirected (304) to no Location"', () => {
    const error = serviceError({ status: 304, headers: {}, json: undefined, text: '' }, context, info);
    expect(error.message).toBe(
      'the service answered 304 Not Modified, which is no redirect and no answer to an event: it was not recorded',
    );
    expect(error.hint).toMatch(/^a 304 answers only a request asking whether a copy changed, which this is not: .*can be sent again/);
    expect([error.exitCode, error.recorded]).toEqual([1, 'no']); // as every 3xx: refused, not recorded, kept for a replay
  });

  it('a Retry-After of a day or more is said so, not as 99999999999999980000 s (audit26 #12)', () => {
    expect(statusHint(429, { 'retry-after': '99999999999999999999' }, context)).toBe(
      'the service asked to wait a day or more before retrying, longer than the 60 s the tool waits; try again later',
    );
    expect(statusHint(429, { 'retry-after': ['1', '100'] }, context)).toMatch(/^the service asked to wait 100 s before retrying/);
  });

  it('a Retry-After longer than 60 s is named; a 429 after retries counts its attempts', () => {
    expect(statusHint(503, { 'retry-after': '120' }, context)).toBe(
      'the service asked to wait 120 s before retrying, longer than the 60 s the tool waits; try again later',
    );
    expect(statusHint(429, {}, { ...context, retries: 0 })).toBe('the service is busy; try again later or allow retries with --retries');
    expect(serviceError({ status: 429, headers: {}, json: undefined, text: '' }, context, { ...info, attempts: 3 }).message).toBe(
      'not recorded: the service answered 429 Too Many Requests (after 3 attempts)',
    );
  });
});

describe('no usable answer', () => {
  const where = { where: 'https://api.example.com', timeoutMs: 30_000, baseUrlSource: '--base-url' };
  const failure = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  it.each([
    [
      'ECONNREFUSED',
      'cannot reach https://api.example.com: connection refused',
      'nothing was sent; check the base URL (from --base-url) and that the service is up',
    ],
    [
      'ENOTFOUND',
      'cannot reach https://api.example.com: host not found (DNS)',
      'nothing was sent; check the base URL (from --base-url) and that the service is up',
    ],
    [
      'ECONNRESET',
      'no whole answer came from https://api.example.com: connection closed by the other side before it answered',
      'the outcome is unknown: the connection failed after the request was sent, so the event may or may not have been recorded; it was not retried',
    ],
    [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'cannot reach https://api.example.com: TLS handshake failed (DEPTH_ZERO_SELF_SIGNED_CERT)',
      'nothing was sent: the TLS handshake failed before the request; for a private certificate authority set NODE_EXTRA_CA_CERTS',
    ],
    [
      'ERR_SSL_WRONG_VERSION_NUMBER',
      'cannot reach https://api.example.com: TLS handshake failed (ERR_SSL_WRONG_VERSION_NUMBER)',
      'nothing was sent: the server there does not speak TLS; is this port plain http? (a local port usually is: use http://api.example.com)',
    ],
    [
      'EMFILE',
      'cannot reach https://api.example.com: too many open files (EMFILE, the limit ulimit -n sets): lower --concurrency, or raise the limit',
      'nothing was sent: the limit on open files was reached; lower --concurrency (trigger batch), or raise the limit (ulimit -n 4096) before running trigger',
    ],
  ])('%s', (code, message, hint) => {
    // What client.ts decides: only a reset after the request went out leaves the outcome unknown.
    const recorded = code === 'ECONNRESET' ? 'unknown' : 'no';
    const error = networkError(failure(code), false, where, { attempts: 1, durationMs: 3, recorded });
    expect([error.message, error.hint, error.kind, error.exitCode, error.recorded]).toEqual([message, hint, 'network', 3, recorded]);
  });

  it('a trusted certificate for another host says so, with its names, not to trust it (review23)', () => {
    const reason = "Host: api.example.com. is not in the cert's altnames: DNS:other.example";
    const cause = Object.assign(new Error(`Hostname/IP does not match certificate's altnames: ${reason}`), {
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      reason,
    });
    const hint = `the certificate is trusted but not for this host (Host: api.example.com. is not in the cert's altnames: DNS:other.example)`;
    const direct = networkError(Object.assign(new Error('fetch failed'), { cause }), false, where, {
      attempts: 1,
      durationMs: 3,
      recorded: 'no',
    });
    expect(direct.hint).toBe(
      `nothing was sent: the TLS handshake failed before the request; ${hint}: use a name it is for, or give it one for this host`,
    );
    const choice = { url: 'https://proxy.corp:3128', variable: 'HTTPS_PROXY' };
    const proxied = networkError(new ProxyError('ERR_PROXY_TLS', choice, { cause }), false, where, {
      attempts: 1,
      durationMs: 3,
      recorded: 'no',
    });
    expect(proxied.hint).toContain(`with the proxy or, through it, with the service; ${hint}`);
    expect(proxied.hint).not.toContain('NODE_EXTRA_CA_CERTS');
  });

  // audit26 #9: each refused handshake its own true hint, not the private-CA one (test/e2e/audit26-tls-expired.test.ts: a real one).
  it.each([
    ['CERT_HAS_EXPIRED', 'certificate has expired', "the server's certificate has expired: it needs a new one, or this machine's clock"],
    ['CERT_NOT_YET_VALID', 'certificate is not yet valid', "the server's certificate is not valid yet"],
    ['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'tlsv1 alert protocol version', 'the server speaks only an old TLS (1.0 or 1.1)'],
    [
      'EPROTO',
      'write EPROTO 801C:error:0A00042E:SSL routines:ssl3_read_bytes:tlsv1 alert protocol version',
      'the server speaks only an old TLS (1.0 or 1.1)',
    ],
    [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'unable to verify the first certificate',
      'for a private certificate authority set NODE_EXTRA_CA_CERTS; or the server does not send its intermediate certificate',
    ],
  ])('a handshake refused with %s says why', (code, text, hint) => {
    const cause = Object.assign(new Error(text), { code });
    const direct = networkError(cause, false, where, { attempts: 1, durationMs: 3, recorded: 'no' });
    expect(direct.hint).toContain(`nothing was sent: the TLS handshake failed before the request; ${hint}`);
    if (code !== 'UNABLE_TO_VERIFY_LEAF_SIGNATURE') expect(direct.hint).not.toContain('NODE_EXTRA_CA_CERTS');
    const choice = { url: 'https://proxy.corp:3128', variable: 'HTTPS_PROXY' };
    const proxied = networkError(new ProxyError('ERR_PROXY_TLS', choice, { cause }), false, where, {
      attempts: 1,
      durationMs: 3,
      recorded: 'no',
    });
    expect(proxied.hint).toContain(hint);
  });

  it('a time-out names the limit; after sending it leaves the outcome unknown, before sending it says nothing was sent', () => {
    const sent = networkError(failure('UND_ERR_HEADERS_TIMEOUT'), false, where, { attempts: 2, durationMs: 60_000, recorded: 'unknown' });
    expect([sent.kind, sent.message, sent.recorded]).toEqual([
      'timeout',
      'no response from https://api.example.com within 30 s (2 attempts)',
      'unknown',
    ]);
    expect(sent.hint).toMatch(/may or may not have been recorded/);
    const unsent = networkError(failure('x'), true, where, { attempts: 1, durationMs: 30_000, recorded: 'no' });
    expect([unsent.kind, unsent.exitCode, unsent.recorded]).toEqual(['timeout', 3, 'no']);
    expect(unsent.hint).toMatch(/^nothing was sent/);
  });

  it('undici\'s "bad response" (an unsolicited 1xx) is an answer that could not be read', () => {
    expect(describeNetworkError('UND_ERR_SOCKET', 'bad response')).toBe(
      'its answer could not be read (an unexpected 1xx or a malformed response)',
    );
    expect(describeNetworkError(undefined, 'first line\nsecond')).toBe('first line\nsecond');
  });
});

describe('a failure at the proxy, named as the proxy’s', () => {
  const where = { where: 'https://api.example.com', timeoutMs: 30_000, baseUrlSource: '--base-url' };
  const choice = { url: 'http://me:pa55word@proxy.corp:3128', variable: 'HTTPS_PROXY' };
  const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:3128'), { code: 'ECONNREFUSED' });

  it.each([
    [
      new ProxyError('ERR_PROXY_AUTH_REQUIRED', choice, { status: 407 }),
      'the proxy http://me:••••@proxy.corp:3128 (from HTTPS_PROXY) asked for credentials: 407 Proxy Authentication Required',
      "nothing was sent to the service; check the proxy's user name and password (set them in HTTPS_PROXY as http://user:password@host:port)",
    ],
    [
      new ProxyError('ERR_PROXY_REFUSED', choice, { status: 403 }),
      'the proxy http://me:••••@proxy.corp:3128 (from HTTPS_PROXY) would not open the way to https://api.example.com: 403 Forbidden',
      'nothing was sent to the service; check that the proxy may reach api.example.com, or add api.example.com to NO_PROXY if it can be reached directly',
    ],
    [
      new ProxyError('ERR_PROXY_UNREACHABLE', choice, { cause: refused }),
      'cannot reach the proxy http://me:••••@proxy.corp:3128 (from HTTPS_PROXY): connection refused',
      'nothing was sent; check HTTPS_PROXY and that the proxy is running (or add api.example.com to NO_PROXY to go direct)',
    ],
  ])('%s', (error, message, hint) => {
    const made = networkError(error, false, where, { attempts: 1, durationMs: 3, recorded: 'no' });
    expect([made.message, made.hint, made.code, made.exitCode, made.recorded]).toEqual([message, hint, error.code, 3, 'no']);
    expect(`${made.message} ${made.hint}`).not.toContain('pa55word');
  });

  it("recognises undici's words for a proxy's answer, and a connection to it that failed before sending", () => {
    const tunnel = asProxyError(new Error('Proxy response (407) !== 200 when HTTP Tunneling'), choice, false);
    expect([tunnel?.code, tunnel?.status]).toEqual(['ERR_PROXY_AUTH_REQUIRED', 407]);
    const forward = asProxyError(new Error('Proxy Authentication Required (407)'), choice, true);
    expect(forward?.code).toBe('ERR_PROXY_AUTH_REQUIRED');
    expect(asProxyError(new Error('Proxy response (502) !== 200 when HTTP Tunneling'), choice, false)?.code).toBe('ERR_PROXY_REFUSED');
    expect(asProxyError(refused, choice, false)?.code).toBe('ERR_PROXY_UNREACHABLE');
    // After the request went out, a reset is the exchange's (outcome unknown), not the proxy's refusal.
    expect(asProxyError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }), choice, true)).toBeUndefined();
    // A TLS failure through the tunnel is the service's certificate.
    expect(asProxyError(Object.assign(new Error('self-signed'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), choice, false)).toBeUndefined();
  });
});

describe('an answer that could not be decoded', () => {
  it('is an answer that could not be read, with an unknown outcome', () => {
    const where = { where: 'https://api.example.com', timeoutMs: 30_000, baseUrlSource: undefined };
    const error = networkError(new DecodeError('gzip', new Error('incorrect header check')), false, where, {
      attempts: 1,
      durationMs: 3,
      recorded: 'unknown',
    });
    expect(error.message).toBe('the answer from https://api.example.com could not be read: its gzip-encoded body is corrupt');
    expect(error.hint).toMatch(/^the outcome is unknown: the service answered, but whether its body says "success": false cannot be read/);
    expect(error.exitCode).toBe(3);
  });
});

describe('an HTML page titled with the status', () => {
  it.each([
    [
      403,
      '<html><head><title>403 Forbidden</title></head><body><h1>403 Forbidden</h1><hr>nginx</body></html>',
      'the service refused the event: 403 Forbidden: nginx',
    ],
    [
      403,
      '<html><head><title>403 Forbidden</title></head><body><h1>403 Forbidden</h1></body></html>',
      'the service refused the event: 403 Forbidden',
    ],
    [499, '4990 clients', 'the service refused the event: HTTP 499: 4990 clients'],
    [404, '404 Not Found, no such trigger', 'the service refused the event: 404 Not Found: no such trigger'],
  ])('%i %j is said once: %j', (status, text, message) => {
    expect(serviceError({ status, headers: {}, json: undefined, text }, context, info).message).toBe(message);
  });
});

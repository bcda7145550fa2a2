import { describe, expect, it } from 'vitest';
import { serverMessage, cleanText } from '../../src/client/response.js';
import { ServiceError, UsageError } from '../../src/errors.js';
import { PLAIN } from '../../src/output/colors.js';
import { capturingOutput } from '../helpers/in-process.js';
import { Redactor } from '../../src/output/redact.js';
import { requestHeaders } from '../../src/client/request.js';
import { curlCommand, errorLine, failureJson, githubAnnotation, resultJson } from '../../src/output/render.js';

describe('serverMessage', () => {
  it.each([
    [{ message: 'Trigger not found' }, '', 'Trigger not found'],
    [{ error: 'invalid key' }, '', 'invalid key'],
    [{ error: { message: 'nested' } }, '', 'nested'],
    [{ title: 'Unprocessable', detail: 'value out of range' }, '', 'Unprocessable: value out of range'],
    [{ title: 'Only title' }, '', 'Only title'],
    [{ detail: 'Only detail' }, '', 'Only detail'],
    [{ success: false }, '{"success":false}', '{"success":false}'],
    [undefined, '<html><body>Bad   gateway</body></html>', 'Bad gateway'],
    [undefined, 'plain   text <not markup>', 'plain text <not markup>'],
    [undefined, '', undefined],
  ])('%j / %j → %j', (json, text, expected) => {
    expect(serverMessage(json, text)).toBe(expected);
  });

  it('cuts long text to an excerpt', () => {
    const message = serverMessage(undefined, 'x'.repeat(5000));
    expect(message?.length).toBe(200);
    expect(message?.endsWith('…')).toBe(true);
  });

  it('strips terminal escape sequences a server might send', () => {
    expect(cleanText('\u001b[31mred\u001b[0m\u0007 text')).toBe('red text');
  });
});

/** A redactor with no key: server text as it is. */
const NO_KEY = new Redactor();

describe('JSON output', () => {
  it('keeps the typed digits of the value and the contract keys in order', () => {
    const text = resultJson(
      {
        ok: true,
        status: 200,
        statusText: 'OK',
        triggerId: 'purchase',
        userId: 'a"b',
        value: '12345678901234567890',
        attempts: 1,
        durationMs: 12,
        requestId: 'req-1',
        response: { success: true },
      },
      NO_KEY,
    );
    expect(text).toContain('"value":12345678901234567890,');
    expect(Object.keys(JSON.parse(text))).toEqual([
      'ok',
      'status',
      'triggerId',
      'userId',
      'value',
      'attempts',
      'durationMs',
      'requestId',
      'response',
    ]);
    expect(JSON.parse(text).userId).toBe('a"b');
  });

  it('renders a failure with the same keys and an error in place of response', () => {
    const error = new ServiceError('the service refused the event: 404 Not Found', {
      status: 404,
      statusText: 'Not Found',
      attempts: 1,
      durationMs: 5,
      requestId: 'r1',
      hint: 'check the trigger id',
    });
    error.event = { triggerId: 't', userId: 'u' };
    const parsed = JSON.parse(failureJson(error, NO_KEY));
    expect(parsed).toMatchObject({ ok: false, status: 404, triggerId: 't', userId: 'u', value: null, requestId: 'r1' });
    expect(parsed.error).toMatchObject({ kind: 'refused', exitCode: 1, hint: 'check the trigger id' });
  });
});

describe('human lines', () => {
  it('puts message and hint on one line', () => {
    const line = errorLine(new UsageError('bad value', { hint: 'use a number' }), PLAIN, NO_KEY);
    expect(line).toBe('error: bad value — use a number');
    expect(line.includes('\n')).toBe(false);
  });
});

describe('githubAnnotation', () => {
  it('escapes what the workflow-command syntax needs', () => {
    expect(githubAnnotation('50% failed\nsee log', 'trigger: fire')).toBe('::error title=trigger%3A fire::50%25 failed%0Asee log');
  });
});

describe('curlCommand', () => {
  it('quotes for the shell, keeps the raw path and leaves the key in the environment', () => {
    const text = curlCommand("https://h/v1/triggers/t/users/it's%2E%2E/events", '{"value":1}', requestHeaders('$TRIGGER_API_KEY'));
    expect(text).toContain("'https://h/v1/triggers/t/users/it'\\''s%2E%2E/events'");
    expect(text).toContain('--path-as-is');
    expect(text).toContain('"Authorization: Bearer $TRIGGER_API_KEY"');
  });
});

describe('Output redaction', () => {
  it('masks a registered secret wherever it appears', () => {
    const { io, stderr } = capturingOutput();
    io.addSecret('sk_live_abcdef9876');
    io.stderr('server said: key sk_live_abcdef9876 is revoked');
    expect(stderr.text).toBe('server said: key ••••9876 is revoked\n');
  });
});

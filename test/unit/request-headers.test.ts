/**
 * The fixed headers of a request are one table (client/request.ts): what the client sends is what
 * the dry run's curl command and JSON show.
 */
import { describe, expect, it } from 'vitest';
import { requestHeaders, USER_AGENT } from '../../src/client/request.js';
import { curlCommand } from '../../src/output/render.js';

describe('requestHeaders', () => {
  it('shows every header the client sends, a traceparent too, and never the key it was given', () => {
    const headers = requestHeaders('tk_secret_1234567890', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    const text = curlCommand('https://h/v1/triggers/t/users/u/events', '{}', headers);
    expect(text.split(' \\\n').slice(1, -1)).toEqual([
      '  -H "Authorization: Bearer $TRIGGER_API_KEY"',
      "  -H 'Content-Type: application/json'",
      "  -H 'Accept: application/json'",
      `  -H 'User-Agent: ${USER_AGENT}'`,
      "  -H 'Traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'",
    ]);
    expect(text).not.toContain('tk_secret');
  });
});

/**
 * The library masks the key at the source: a Node program calling fireEvent gets errors and answers
 * with the server's echo of the key masked, as the CLI's output has it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent } from '../../src/client/client.js';
import { ServiceError } from '../../src/errors.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const KEY = 'tk_library_mask_0123456789abcdef';
let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

const holdsKey = (value: unknown) => JSON.stringify(value).toLowerCase().includes(KEY.slice(3, 20).toLowerCase());

describe('the key in what the server says, for library callers', () => {
  it('a refusal that echoes the key, its piece, and as a member name: message, body, serverMessage and Location masked', async () => {
    server.handle((_req, res) =>
      json(
        res,
        400,
        { error: `bad key ${KEY.slice(0, 20)}`, [KEY]: 1, echo: Buffer.from(KEY).toString('base64') },
        { location: `/x?k=${KEY}` },
      ),
    );
    const error = await fireEvent({ triggerId: 't', userId: 'u' }, { baseUrl: server.url, apiKey: KEY }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    const e = error as ServiceError;
    expect(holdsKey([e.message, e.body, e.serverMessage, e.hint, e.location])).toBe(false);
    expect(Buffer.from(JSON.stringify(e.body)).includes(Buffer.from(KEY).toString('base64'))).toBe(false);
    expect(e.serverMessage).toMatch(/^bad key ••••/);
  });

  it('an unusual success echoing the key comes back masked; the usual one as it is', async () => {
    server.handle((_req, res) => json(res, 200, { success: true, seen: KEY }));
    const result = await fireEvent({ triggerId: 't', userId: 'u' }, { baseUrl: server.url, apiKey: KEY });
    expect(holdsKey(result.response)).toBe(false);
    expect(result.response).toMatchObject({ success: true });
    server.handle((_req, res) => json(res, 200, { success: true }));
    expect((await fireEvent({ triggerId: 't', userId: 'u' }, { baseUrl: server.url, apiKey: KEY })).response).toEqual({ success: true });
  });
});

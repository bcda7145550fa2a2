/**
 * The package as a Node program sees it: the built dist/index.js and its type declarations.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TEST_KEY, sandbox } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import type * as Index from '../../src/index.js';

type Library = typeof Index;

let lib: Library;
let server: TestServer;

beforeAll(async () => {
  lib = (await import(path.join(ROOT, 'dist', 'index.js'))) as Library;
  server = await startServer();
});
afterAll(() => server.close());

describe('library', () => {
  it('ships type declarations for its entry point', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { types: string };
    const dts = fs.readFileSync(path.join(ROOT, pkg.types), 'utf8');
    expect(dts).toContain('fireEvent');
    expect(dts).toContain('resolveSettings');
  });

  it('fireEvent sends the same request as the CLI', async () => {
    const result = await lib.fireEvent(
      { triggerId: 'purchase', userId: '..', value: '12345678901234567890' },
      { baseUrl: server.url, apiKey: TEST_KEY },
    );
    expect(result).toMatchObject({ ok: true, status: 200, value: '12345678901234567890', attempts: 1 });
    const received = server.requests.at(-1);
    expect(received?.url).toBe('/v1/triggers/purchase/users/%2E%2E/events');
    expect(received?.body).toBe('{"value":12345678901234567890}');
    expect(received?.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
  });

  it('resolveSettings reads the environment the way the CLI does, and errors are typed', async () => {
    const box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
    try {
      const settings = lib.resolveSettings({ env: box.env });
      expect(settings.apiKeySource).toBe('env');
      expect(settings.baseUrl.origin).toBe(server.url);
      server.handle((_req, res) => json(res, 404, { error: 'no such trigger' }));
      const error = await lib
        .fireEvent({ triggerId: 'nope', userId: 'u' }, { baseUrl: settings.baseUrl, apiKey: settings.apiKey ?? '' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(lib.ServiceError);
      expect((error as InstanceType<Library['ServiceError']>).exitCode).toBe(1);
      expect(lib.isAttemptError(error) && error.recorded).toBe('no');
      expect(String((error as Error).message)).not.toContain(TEST_KEY);

      // A gateway's 504: the library says, as the CLI does, that the event may have been recorded.
      server.handle((_req, res) => json(res, 504, { error: 'upstream timed out' }));
      const unknown = await lib
        .fireEvent({ triggerId: 'purchase', userId: 'u' }, { baseUrl: settings.baseUrl, apiKey: settings.apiKey ?? '' })
        .catch((e: unknown) => e);
      expect(lib.isAttemptError(unknown) ? [unknown.recorded, unknown.exitCode] : unknown).toEqual(['unknown', 3]);
    } finally {
      box.cleanup();
      server.handle((_req, res) => json(res, 200, { success: true }));
    }
  });
});

/**
 * The catalog through the built binary and library: six processes adding to one catalog at once, and
 * the library's exports from dist/. Exit codes, what reaches the server, status, the emulator beside
 * a catalog and `triggers check` run in-process: test/in-process/catalog.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type * as Index from '../../src/index.js';
import { ROOT, TEST_KEY, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';

let box: Sandbox;
let server: TestServer;
let project: string;

beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
  project = path.join(box.home, 'project');
  fs.mkdirSync(path.join(project, 'jobs'), { recursive: true });
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const trigger = (args: string[], cwd = project, env = box.env) => run(args, { env, cwd });

describe('the catalog, end to end', () => {
  it('the library exports loading and resolution', async () => {
    const lib = (await import(path.join(ROOT, 'dist', 'index.js'))) as typeof Index;
    fs.writeFileSync(path.join(project, 'triggers.json'), JSON.stringify({ triggers: { signup: { ids: { staging: 'signup-test' } } } }));
    const found = lib.findCatalog({ cwd: path.join(project, 'jobs'), env: {} });
    expect(found).toEqual({ path: path.join(project, 'triggers.json'), source: 'found' });
    const catalog = lib.loadCatalog(found!.path);
    expect(lib.triggerIdsFor(catalog, 'staging')).toEqual(['signup-test']);
    const staging = new lib.TriggerResolver(catalog, 'staging');
    expect(staging.resolve('signup')).toMatchObject({ ok: true, trigger: { id: 'signup-test' } });
    expect(new lib.TriggerResolver(catalog, 'default').resolve('signup-test')).toMatchObject({ ok: false, suggestion: 'signup' });
  });

  it('six `triggers add` at once all land: each reads the catalog under its lock', async () => {
    fs.writeFileSync(path.join(project, 'triggers.json'), '{"triggers": {"first": {}}}\n');
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    const results = await Promise.all(ids.map((id) => trigger(['triggers', 'add', id, '--name', id.toUpperCase()])));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const data = JSON.parse(fs.readFileSync(path.join(project, 'triggers.json'), 'utf8')) as { triggers: object };
    expect(Object.keys(data.triggers).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'first']);
    expect(fs.readdirSync(project).sort()).toEqual(['jobs', 'triggers.json']); // no lock or temporary file left
  });
});

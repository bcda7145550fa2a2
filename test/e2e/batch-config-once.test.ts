/**
 * note26: a batch under the default profile read the config file twice, once to resolve its settings and once more for the printed
 * commands' `--profile default` (whether the file has that profile). Settings say so now: one read. The built binary, with a preload
 * that counts the opens of the config file and says the count on stderr as the process exits.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { TEST_KEY, run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';
import { csvOf, printedNext, users } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const COUNT = `
const fs = require('node:fs');
const open = fs.openSync;
let opens = 0;
fs.openSync = (file, ...rest) => (String(file).endsWith('config.json') && opens++, open(file, ...rest));
process.on('exit', () => process.stderr.write('config opens: ' + opens + '\\n'));`;

it('a batch under the default profile reads the config file once, and its replay still carries --profile default', async () => {
  const env = { ...box.env, TRIGGER_API_KEY: undefined, TRIGGER_BASE_URL: undefined };
  expect((await run(['config', 'set-key'], { env, input: TEST_KEY })).code).toBe(0);
  expect((await run(['config', 'set-base-url', server.url], { env })).code).toBe(0);
  server.handle((req, res) => (req.url?.includes('/users/u0/') ? json(res, 422, { error: 'no' }) : json(res, 200, { success: true })));
  fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(users(3)));
  fs.writeFileSync(path.join(box.home, 'count.cjs'), COUNT);
  const counted = { ...env, NODE_OPTIONS: `--require ${path.join(box.home, 'count.cjs')}` };
  const result = await run(['batch', 'in.csv', '--failed', 'f.csv'], { env: counted });
  expect(result.code).toBe(1);
  expect(printedNext(result).join(' ')).toContain('--profile default');
  expect(/^config opens: (\d+)$/m.exec(result.stderr)?.[1]).toBe('1'); // ae48731: 2
});

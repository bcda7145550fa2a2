/**
 * review26: a dry run needs no key, so an empty TRIGGER_API_KEY (a fork's pull request in GitHub Actions gets every secret as an
 * empty string: `env: TRIGGER_API_KEY: ${{ secrets.TRIGGER_API_KEY }}`) must not refuse it, where a run that sends is refused for
 * it (fix26c, audit26-empty-flags). Failed with fix26c's first version: exit 2, "TRIGGER_API_KEY is empty".
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { run, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox({ TRIGGER_API_KEY: '', TRIGGER_BASE_URL: 'http://127.0.0.1:9' });
  fs.writeFileSync(path.join(box.home, 'in.csv'), 'triggerId,userId\nt,a\n');
});
afterEach(() => box.cleanup());

it('batch --dry-run with TRIGGER_API_KEY= checks the file: exit 0', async () => {
  const result = await run(['batch', 'in.csv', '--dry-run'], { env: box.env });
  expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
  expect(result.stdout + result.stderr).toContain('1 of 1 row can be sent');
});

it('fire --dry-run with TRIGGER_API_KEY= prints the curl command: exit 0', async () => {
  const result = await run(['fire', 't', 'u', '--dry-run'], { env: box.env });
  expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
  expect(result.stdout).toContain('curl');
});

it('batch without --dry-run and TRIGGER_API_KEY= is refused, nothing sent: exit 2', async () => {
  const result = await run(['batch', 'in.csv'], { env: box.env });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('TRIGGER_API_KEY is empty');
});

/**
 * review27 repros (dd30504, fix27b "non-text apiKey refused"): a hand-edited `"apiKey": 12345` now stops fire and batch, with one
 * line naming the file. It also stops a dry run, which needs no key (an empty key is as unset there since 28a2dff) and went through
 * at ae48731 (exit 0); now exit 2. FAILS at 9acec57.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { homeFile, run, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
  fs.mkdirSync(box.configDir, { recursive: true, mode: 0o700 });
  const config = { profiles: { default: { apiKey: 12345, baseUrl: 'http://127.0.0.1:9' } } };
  fs.writeFileSync(path.join(box.configDir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
});
afterEach(() => box.cleanup());
const trigger = (args: string[]) => run(args, { env: box.env, timeoutMs: 30_000 });

describe('review27: a stored apiKey that is not text', () => {
  it('does not stop a dry run, which needs no key (fire and batch)', async () => {
    homeFile(box, 'in.csv', 'userId\nu1\n');
    for (const args of [
      ['fire', 't1', 'u1', '--dry-run'],
      ['batch', 'in.csv', '--trigger', 't1', '--dry-run'],
    ]) {
      const result = await trigger(args);
      expect([args.join(' '), result.code, result.stderr]).toEqual([args.join(' '), 0, expect.not.stringContaining('not text')]);
    }
  }, 60_000);
});

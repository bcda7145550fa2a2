/**
 * trigger config as a process: a key piped to standard input, and twenty processes writing one file
 * at once. The rest (get, list, profiles, precedence as the server sees it, status) runs in-process:
 * test/in-process/config-store.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY, expectNoKey, run, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let file: string;

beforeEach(() => {
  box = sandbox();
  file = path.join(box.configDir, 'config.json');
});
afterEach(() => box.cleanup());

const cli = (args: string[], input?: string, env: NodeJS.ProcessEnv = box.env) => run(args, { env, input });
const stored = () => JSON.parse(fs.readFileSync(file, 'utf8')) as { profiles: Record<string, Record<string, unknown>> };

describe('trigger config', () => {
  it('set-key from piped stdin: trimmed, file 0600 in a 0700 folder, key not printed', async () => {
    const result = await cli(['config', 'set-key'], `  ${TEST_KEY}\n`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('••••z789');
    expectNoKey(result);
    expect(stored().profiles.default?.apiKey === TEST_KEY).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(box.configDir).mode & 0o777).toBe(0o700);
  });

  it('refuses an empty key or one with inner white space, and keeps the stored one', async () => {
    await cli(['config', 'set-key'], TEST_KEY);
    const empty = await cli(['config', 'set-key'], '\n');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no key given');
    const spaced = await cli(['config', 'set-key'], 'two words');
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain('contains a space at position 4');
    expect(stored().profiles.default?.apiKey === TEST_KEY).toBe(true);
  });
});

describe('profiles: concurrent writes', () => {
  it('20 set-key commands run at once on 20 profiles keep all 20', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        run(['config', 'set-key', `${TEST_KEY}_${i}`, '--profile', `p${i}`], { env: box.env, timeoutMs: 80_000 }),
      ),
    );
    expect(results.map((r) => r.code)).toEqual(Array(20).fill(0));
    const profiles = stored().profiles;
    expect(Object.keys(profiles).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `p${i}`).sort());
    expect(Array.from({ length: 20 }, (_, i) => profiles[`p${i}`]?.apiKey === `${TEST_KEY}_${i}`).every(Boolean)).toBe(true);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    // Twenty Node start-ups at once: on a loaded 2-core machine they alone took over 20 s, and a
    // run's default 15 s before SIGKILL was not enough for each.
  }, 90_000);
});

/**
 * audit26 repro: a config.json that is a FIFO (or a link to /dev/zero) hangs every command, even `fire --dry-run` with --api-key
 * and --base-url given. Contract: a config file that cannot be used is "one line and exit 2, never a hang"; the catalog already
 * refuses "a file that is not a regular file". Fails on 6b80cdd at the assertion that names the bug.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, sandbox, TEST_KEY, type Sandbox } from '../helpers/cli.js';

let box: Sandbox | undefined;
afterEach(() => {
  box?.cleanup();
  box = undefined;
});

describe('a config file that is not a regular file', () => {
  it('a FIFO: fire --dry-run with every setting given as a flag ends (it does not wait on the FIFO)', async () => {
    box = sandbox();
    fs.mkdirSync(box.configDir, { mode: 0o700 });
    execFileSync('mkfifo', [path.join(box.configDir, 'config.json')]);
    const result = await run(['fire', 't', 'u', '--dry-run', '--api-key', TEST_KEY, '--base-url', 'http://127.0.0.1:9'], {
      env: box.env,
      timeoutMs: 8_000,
    });
    // On 6b80cdd the process blocks in reading the FIFO until the helper kills it (SIGKILL after 8 s).
    expect(result.signal).toBeNull();
    expect(result.stderr).toContain(`error: config file ${path.join(box.configDir, 'config.json')} is not a regular file; it was not read`);
    expect(result.code).toBe(2);
  });

  it('a link to /dev/zero, and a file over 1 MiB: refused in one line, not read', async () => {
    box = sandbox();
    fs.mkdirSync(box.configDir, { mode: 0o700 });
    const file = path.join(box.configDir, 'config.json');
    fs.symlinkSync('/dev/zero', file);
    const zero = await run(['status'], { env: box.env, timeoutMs: 8_000 });
    expect(zero.signal).toBeNull();
    expect(zero.stderr).toContain(`config file ${file} is not a regular file; it was not read`);
    expect(zero.code).toBe(2);
    fs.unlinkSync(file);
    fs.writeFileSync(file, `{"profiles":{}}${' '.repeat(1 << 20)}`);
    const big = await run(['config', 'get'], { env: box.env });
    expect(big.stderr).toContain(`config file ${file} is larger than 1 MiB; it was not read`);
    expect(big.code).toBe(2);
  });
});

/**
 * audit26 repros: a config file edited by hand (or restored from elsewhere). Each test fails on 6b80cdd at the assertion that names the
 * bug. (An empty HOME is test/unit/config-paths.test.ts: run here, the fixed binary writes to the account's real home folder.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox | undefined;
afterEach(() => {
  box?.cleanup();
  box = undefined;
});

/** Writes the config file as a person (or another program) would, bypassing `trigger config`. */
function handWritten(target: Sandbox, data: unknown): void {
  fs.mkdirSync(target.configDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(target.configDir, 'config.json'), JSON.stringify(data), { mode: 0o600 });
}

// ESC c resets a terminal (RIS); U+202E turns the rest of the line around. Neither may reach a terminal raw.
// eslint-disable-next-line no-control-regex -- the raw control characters are what must not reach a terminal
const RAW = /[\u001b\u202e]/;

describe('config get / config list show what the file holds escaped', () => {
  it('an active profile whose name holds an escape sequence is refused, shown escaped', async () => {
    box = sandbox();
    handWritten(box, { active: 'ev\u001bc\u202e', profiles: { default: { apiKey: 'tk_hand_edited_key_0001' } } });
    for (const args of [['config', 'get'], ['config', 'list'], ['status'], ['fire', 't', 'u', '--dry-run']]) {
      const result = await run(args, { env: box.env });
      expect(RAW.test(result.stdout + result.stderr)).toBe(false);
      expect(result.stderr).toContain('error: the active profile in the config file, "ev\\u001bc\\u202e", is not a valid name');
      expect(result.code).toBe(2);
    }
  });

  it('a base URL with an escape sequence and U+202E', async () => {
    box = sandbox();
    handWritten(box, { profiles: { default: { apiKey: 'tk_hand_edited_key_0001', baseUrl: 'http://127.0.0.1:5/\u001bc\u202e' } } });
    const get = await run(['config', 'get', 'base-url'], { env: box.env });
    const list = await run(['config', 'list'], { env: box.env });
    // On 6b80cdd both print `http://127.0.0.1:5/<ESC>c<U+202E>` raw (status escapes it: %1Bc%E2%80%AE).
    expect(RAW.test(get.stdout + get.stderr)).toBe(false);
    expect(RAW.test(list.stdout + list.stderr)).toBe(false);
  });

  it('a profile name with an escape sequence', async () => {
    box = sandbox();
    handWritten(box, {
      profiles: { default: { apiKey: 'tk_hand_edited_key_0001' }, 'ev\u001bcil\u202e': { apiKey: 'tk_hand_edited_key_0002' } },
    });
    const list = await run(['config', 'list'], { env: box.env });
    expect(RAW.test(list.stdout + list.stderr)).toBe(false);
  });

  it('the last four characters of a key that every command refuses', async () => {
    box = sandbox();
    handWritten(box, { profiles: { default: { apiKey: 'tk_hand_edited_key_00\u001bc', baseUrl: 'http://127.0.0.1:5' } } });
    const fire = await run(['fire', 't', 'u', '--dry-run'], { env: box.env });
    expect(fire.code).toBe(2); // the key is refused (a control character)...
    const get = await run(['config', 'get', 'api-key'], { env: box.env });
    // ...but on 6b80cdd `config get api-key` prints `••••00<ESC>c` raw, exit 0.
    expect(RAW.test(get.stdout + get.stderr)).toBe(false);
  });
});

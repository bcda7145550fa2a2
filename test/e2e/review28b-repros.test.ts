/**
 * review28b's repros, REPORT ONLY: each fails on the code reviewed (the lead's main with fix28c and fix28d merged, a71e5be), and says
 * what should happen instead. See /work/notes/review28b.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TriggerClient } from '../../src/client/client.js';
import { UsageError } from '../../src/errors.js';
import { resolveSettings } from '../../src/settings/resolve.js';
import { BIN, expectNoKey, run, sandbox, TEST_KEY, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(() => (box = sandbox()));
afterEach(() => box.cleanup());

describe('review28b: the first-line masking (fix28c)', () => {
  // R1. TRIGGER_API_KEY holding a short word (a key the settings refuse anyway: under 12 characters) is masked from the first line
  // now, where it stands alone: `completion bash` printed `2>/••••/null` and `•••• i c` for `local`, a script that no longer works.
  it('a short TRIGGER_API_KEY, which no command here uses, leaves the completion script and the help as they are', async () => {
    for (const word of ['dev', 'local', 'key']) {
      for (const args of [['completion', 'bash'], ['--help']]) {
        const plain = await run(args, { env: box.env });
        const withKey = await run(args, { env: { ...box.env, TRIGGER_API_KEY: word } });
        expect(plain.code).toBe(0);
        expect({ word, args, stdout: withKey.stdout }).toEqual({ word, args, stdout: plain.stdout });
      }
    }
  });

  // R4. The key typed after an em dash or en dash (a command copied from a chat or a document that turned `--` into `—`) is two extra
  // arguments, and "got 2 more" quotes the key raw: the word before it says plainly what it is.
  it('a key after —api-key (an em dash from a pasted command) or after an empty --api-key= is not printed', async () => {
    // `--api-key= "$KEY"` (a space after the '='): the value is empty, the key one argument too many, quoted as such.
    for (const flag of ['—api-key', '–-api-key', '--api-key=']) {
      const result = await run(['fire', 't', 'u', flag, TEST_KEY], { env: box.env });
      expect(result.code).toBe(2);
      expectNoKey(result);
    }
  });
});

describe('review28b: a current folder removed (a7c495b)', () => {
  // R2. `trigger --help`, `trigger help` and `trigger completion bash` need no folder: they were refused with exit 2 ("the current
  // folder was removed") where `--version` and `__complete` answer.
  it('--help and completion bash still answer in a removed current folder', async () => {
    for (const args of ['--help', 'completion bash']) {
      const gone = path.join(box.home, 'gone');
      fs.mkdirSync(gone);
      const script = `cd '${gone}' && rmdir '${gone}' && exec '${process.execPath}' '${BIN}' ${args}`;
      const result = await run(['-c', script], { env: box.env, command: 'sh' });
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(result.stdout.length).toBeGreaterThan(100);
    }
  });
});

describe('review28b: BaseUrl objects (fix28d d17757d)', () => {
  // R3. A BaseUrl from resolveSettings is taken as it is (CHECKED, a WeakSet of the object), but the object is not frozen: changed in
  // place to a plain-http LAN host after it was checked, the client sends the key there in clear text, no --allow-http asked.
  it('a BaseUrl from resolveSettings changed in place to a plain-http LAN host is refused as a hand-made one is', () => {
    const env = { TRIGGER_API_KEY: 'tk_review28b_key_000001', TRIGGER_BASE_URL: 'https://api.example.com' };
    const settings = resolveSettings({ env, config: { profiles: {} } });
    const make = (baseUrl: unknown) => () => new TriggerClient({ apiKey: settings.apiKey!, baseUrl } as never);
    const handMade = { origin: 'http://10.1.2.3:8080', prefix: '', href: 'http://10.1.2.3:8080', secure: false, loopback: false };
    expect(make(handMade)).toThrow(UsageError);
    try {
      Object.assign(settings.baseUrl, handMade);
    } catch {
      return; // frozen: nothing to change
    }
    expect(make(settings.baseUrl)).toThrow(UsageError);
  });
});

/**
 * The key against servers that echo it, and data that tries to write to the terminal or the CI log:
 * main() in-process against a real server on 127.0.0.1, with anything written past its Output kept
 * too. test/e2e/secrets.test.ts keeps the keys that cannot work, given on standard input as well.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox } from '../helpers/cli.js';
import { runInProcess as run } from '../helpers/in-process.js';
import { expectNoKeyForm, expectNoKeyPiece, keyForms } from '../helpers/key-forms.js';
import { json, startServer, type TestServer, useServer } from '../helpers/server.js';

const KEY = 'sk_live_SECRETKEY0123456789abcdefWXYZ';
let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]), KEY);

const at = (name: string) => path.join(box.home, name);
const trigger = (args: string[], env: NodeJS.ProcessEnv = box.env, input?: string) => run(args, { env, input, timeoutMs: 30_000 });

/** Fails, without printing the key, when any 10-character piece of it is in `text`. */
function expectNoPiece(where: string, text: string, key = KEY): void {
  for (let i = 0; i + 10 <= key.length; i++) {
    if (text.includes(key.slice(i, i + 10))) throw new Error(`a piece of the key (characters ${i + 1} to ${i + 10}) is in ${where}`);
  }
}

describe('a server that echoes the key', () => {
  beforeEach(() => {
    server.handle((req, res) => {
      const auth = String(req.headers.authorization);
      const padded = req.url.includes('/users/pad');
      // The padded echo is cut by the 300-character excerpt in the middle of the key.
      const message = padded
        ? `${'p'.repeat(300 - 'invalid API key Bearer sk_live_SECRET'.length)} invalid API key ${auth} for this account`
        : `invalid API key ${auth} for this account`;
      json(res, 401, { error: message, detail: JSON.stringify({ auth }) }, { 'x-echo': auth, 'x-request-id': `req ${auth}` });
    });
  });

  it.each([[[]], [['--json']], [['--verbose']], [['--json', '--verbose']]])(
    'fire %j keeps every piece of it out of stdout and stderr',
    async (flags) => {
      for (const user of ['alice', 'pad']) {
        const result = await trigger(['fire', 'deploy', user, ...flags], { ...box.env, GITHUB_ACTIONS: 'true' });
        expect(result.code).toBe(1);
        expectNoPiece('stdout', result.stdout);
        expectNoPiece('stderr', result.stderr);
        if (flags.includes('--json')) expect(() => JSON.parse(result.stdout) as unknown).not.toThrow();
      }
      expect(server.requests.length).toBe(2);
    },
  );

  it.each([
    ['csv', 'triggerId,userId\nt,alice\nt,pad\n'],
    ['ndjson', '{"triggerId":"t","userId":"alice"}\n{"triggerId":"t","userId":"pad"}\n'],
    ['lines', 'alice\npad\n'],
  ])('batch from %s: the failed file, --json, the journal and the step summary hold no piece of it', async (format, text) => {
    const input = at(`in.${format}`);
    fs.writeFileSync(input, text);
    const summary = at('summary.md');
    const failed = at(`failed.${format === 'ndjson' ? 'ndjson' : 'csv'}`);
    const args = ['batch', input, '--format', format, '--failed', failed, '--journal', at('journal'), '--json'];
    if (format === 'lines') args.push('--trigger', 't');
    const result = await trigger(args, { ...box.env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(2);
    expectNoPiece('stdout', result.stdout);
    expectNoPiece('stderr', result.stderr);
    for (const line of result.stdout.trim().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
    for (const file of [failed, at('journal'), summary]) expectNoPiece(path.basename(file), fs.readFileSync(file, 'utf8'));
    expect(fs.readFileSync(failed, 'utf8')).toContain('invalid API key Bearer ••••');
  });
});

describe('a server that echoes the key in every form, and as a member name', () => {
  const forms = keyForms(KEY);
  /** JSON source text holding every form (the \\u one as escapes), the key as a member name, nested too. */
  const echo = (success: boolean, message = `invalid key ${Object.values(forms).join(' ')}`) =>
    `{"success":${success},"message":"${message}",` +
    `"${KEY}":1,"nested":{"${forms.upper}":{"${forms.unicode}":[${Object.values(forms)
      .map((f) => `"${f}"`)
      .join(',')}]}}}`;

  beforeEach(() => {
    server.handle((req, res) => {
      const refused = req.url.includes('/users/refused');
      const broken = req.url.includes('/users/broken'); // a 500: the outcome is unknown
      const body = broken ? echo(false, `upstream failed for ${KEY.slice(0, 20)}`) : echo(!refused);
      res.writeHead(refused ? 400 : broken ? 500 : 200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'x-request-id': `req-${forms.base64}`,
        'x-echo': forms.percentLower,
        'www-authenticate': forms.basic,
      });
      res.end(body);
    });
  });

  const check = (where: string, text: string) => {
    expectNoKeyForm(where, text, KEY);
    expectNoKeyPiece(where, text, KEY);
  };

  it.each([[[]], [['--json']], [['--verbose']], [['--json', '--verbose']]])(
    'fire %j, accepted, refused and a 500: no form of it on stdout or stderr, and --json stays JSON',
    async (flags) => {
      for (const [user, code] of [
        ['accepted', 0],
        ['refused', 1],
        ['broken', 3],
      ] as const) {
        const result = await trigger(['fire', 'deploy', user, ...flags], { ...box.env, GITHUB_ACTIONS: 'true' });
        expect(result.code).toBe(code);
        check(`stdout of fire ${user}`, result.stdout);
        check(`stderr of fire ${user}`, result.stderr);
        if (flags.includes('--verbose')) expect(result.stderr).toContain('••••WXYZ');
        if (!flags.includes('--json')) continue;
        const object = JSON.parse(result.stdout) as { response?: Record<string, unknown>; error?: { body: Record<string, unknown> } };
        const body = user === 'accepted' ? object.response : object.error?.body;
        expect(body).toMatchObject({ success: user === 'accepted', '••••WXYZ': 1 });
        expect(Object.keys((body?.nested ?? {}) as object)).toEqual(['••••WXYZ']);
      }
    },
  );

  it('batch --json, the failed file and the journal hold no form of it', async () => {
    const input = at('in.csv');
    fs.writeFileSync(input, 'triggerId,userId\nt,accepted\nt,refused\nt,accepted2\nt,broken\n');
    const failed = at('failed.csv');
    const journal = at('journal');
    const result = await trigger(['batch', input, '--failed', failed, '--journal', journal, '--json']);
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(4);
    check('stdout', result.stdout);
    check('stderr', result.stderr);
    check('the failed file', fs.readFileSync(failed, 'utf8'));
    check('the journal', fs.readFileSync(journal, 'utf8'));
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { ok: boolean; response?: Record<string, unknown>; requestId: string | null });
    expect(rows.filter((r) => r.ok).map((r) => r.response?.['••••WXYZ'])).toEqual([1, 1]);
    for (const row of rows) if (row.requestId !== null) expect(row.requestId).toMatch(/^req-••••WXYZ=*$/);
    expect(fs.readFileSync(failed, 'utf8')).toContain('invalid key ••••WXYZ ••••WXYZ');
    expect(fs.readFileSync(failed, 'utf8')).toMatch(/outcome unknown: .*500 Internal Server Error: upstream failed for ••••/);

    // Without --json the failures are told on stderr, one line each.
    const human = await trigger(['batch', input, '--failed', at('failed2.csv')]);
    expect(human.stderr).toContain('line 3: the service refused the event: 400 Bad Request: invalid key ••••WXYZ');
    check('stderr', human.stderr);
    check('stdout', human.stdout);
  });
});

describe("the user's own data beside a key that shares a piece with it", () => {
  const SHARED = 'tk_live_1234567890_ABCDEFghijklmnop';
  const env = () => ({ ...box.env, TRIGGER_API_KEY: SHARED });

  it('batch --json shows ids and values as given, and masks the piece where the server said it', async () => {
    server.handle((req, res) =>
      req.url.includes('order-1234567890x')
        ? json(res, 404, { error: 'no user order-1234567890x' })
        : json(res, 200, { success: true, note: 'order-1234567890 accepted' }),
    );
    const input = at('in.ndjson');
    fs.writeFileSync(
      input,
      `${JSON.stringify({ triggerId: 't-1234567890', userId: 'order-1234567890', value: 1234567890.5 })}\n` +
        `${JSON.stringify({ triggerId: 't', userId: 'order-1234567890x' })}\n` +
        `${JSON.stringify({ triggerId: 't', userId: 'bad-1234567890', value: 'x1234567890' })}\n` +
        `${JSON.stringify({ triggerId: 't', userId: `x${SHARED}` })}\n`,
    );
    const failed = at('failed.ndjson');
    const result = await trigger(['batch', input, '--json', '--failed', failed], env());
    expect(result.code).toBe(1);
    expectNoKeyForm('stdout', result.stdout, SHARED);
    const byLine = new Map(
      result.stdout
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as Record<string, unknown> & { line: number; error?: { message: string }; response?: { note: string } },
        )
        .map((row) => [row.line, row]),
    );
    const [accepted, refused, invalid] = [byLine.get(1), byLine.get(2), byLine.get(3)];
    expect(accepted).toMatchObject({ ok: true, triggerId: 't-1234567890', userId: 'order-1234567890', value: 1234567890.5 });
    expect(accepted?.response?.note).toBe('order-•••• accepted'); // the server's text
    expect(refused).toMatchObject({ ok: false, userId: 'order-1234567890x' });
    expect(refused?.error?.message).toContain('no user order-••••x');
    // A value that is no number is null, as fire --json gives it (trust24); its text, unmasked, is in the message.
    expect(invalid).toMatchObject({ ok: false, userId: 'bad-1234567890', value: null });
    expect(invalid?.error?.message).toContain('x1234567890');
    expect(byLine.get(4)?.userId).toBe('x••••mnop'); // the whole key is masked even where the user gave it
    const kept = fs.readFileSync(failed, 'utf8');
    expect(kept).toContain('"userId":"order-1234567890x"');
    expect(kept).toContain('no user order-••••x');
    expect(kept).toContain('x1234567890');
  });

  it('--dry-run prints a working curl command and valid JSON with the value as typed', async () => {
    const human = await trigger(['fire', 'deploy', 'order-1234567890', '--value', '1234567890e-10', '--dry-run'], env());
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`--data-raw '{"value":1234567890e-10}'`);
    expect(human.stdout).toContain('/users/order-1234567890/events');
    const dry = await trigger(['fire', 'deploy', 'order-1234567890', '--value', '1234567890e-10', '--dry-run', '--json'], env());
    const object = JSON.parse(dry.stdout) as { url: string; body: string; curl: string; headers: { authorization: string } };
    expect(object.body).toBe('{"value":1234567890e-10}');
    expect(object.curl).toContain(`'{"value":1234567890e-10}'`);
    expect(object.url).toContain('/users/order-1234567890/events');
    expect(object.headers.authorization).toBe('Bearer ••••mnop');
    expect(server.requests).toHaveLength(0);
  });
});

describe('trigger status and a proxy with credentials', () => {
  it.each([
    ['HTTPS_PROXY', 'http://alice:S3cret@127.0.0.1:3128', 'http://alice:••••@127.0.0.1:3128'],
    ['https_proxy', 'alice:S3cret@127.0.0.1:3128', 'http://alice:••••@127.0.0.1:3128'], // a proxy without a scheme is http://,
  ])('%s=%s is shown as %s, in text and --json', async (name, proxy, shown) => {
    const env = { ...box.env, TRIGGER_BASE_URL: 'https://127.0.0.1:9', [name]: proxy };
    const human = await trigger(['status'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`proxy     ${shown}`);
    const object = JSON.parse((await trigger(['status', '--json'], env)).stdout) as { proxy: string };
    expect(object.proxy).toBe(shown);
    for (const text of [human.stdout, human.stderr]) expect(text).not.toContain('S3cret');
  });
});

describe('keys that are ordinary words', () => {
  // Refused since issue 28 (docs/choices.md): masking them would hide ordinary data. The Redactor's
  // handling of short secrets stays covered in test/unit/secrets.test.ts and redact-forms.test.ts.
  it.each(['true', 'null', 'user', 'purchase'])('the key %j is refused: exit 2, nothing sent', async (key) => {
    const result = await trigger(['fire', 'deploy', 'user42', '--json'], { ...box.env, TRIGGER_API_KEY: key });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { kind: 'usage' } });
    expect(result.stdout).toContain('too short to be an API key');
  });
});

describe('data that tries to be a command', () => {
  const HOSTILE = 'x\n::error title=pwned::owned \u001b]0;pwned\u0007\u001b[31mred\u009b31m';
  // eslint-disable-next-line no-control-regex
  const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
  const workflowLines = (text: string) => text.split('\n').filter((line) => line.startsWith('::')).length;

  it('a user id with a newline, a workflow command, a title and a colour: one line, nothing raw', async () => {
    const env = { ...box.env, GITHUB_ACTIONS: 'true' };
    const ok = await trigger(['fire', 'deploy', HOSTILE], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout.split('\n')).toHaveLength(2); // one line and its newline
    expect(ok.stdout).not.toMatch(RAW_CONTROL);
    expect(workflowLines(ok.stdout + ok.stderr)).toBe(0);
    expect(server.requests[0]?.url).toContain('x%0A%3A%3Aerror'); // the id itself is sent as it is

    server.handle((_req, res) => json(res, 404, { error: 'no such trigger \u001b[2J' }));
    const refused = await trigger(['fire', 'deploy', HOSTILE, '--verbose'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toMatch(RAW_CONTROL);
    expect(workflowLines(refused.stdout + refused.stderr)).toBe(1);
  });

  it('batch rows from an untrusted file take the same care', async () => {
    server.handle((_req, res) => json(res, 404, { error: 'unknown' }));
    const input = at('hostile.ndjson');
    fs.writeFileSync(
      input,
      `${JSON.stringify({ triggerId: 't', userId: HOSTILE })}\n${JSON.stringify({ triggerId: 't', userId: 'fine', value: `1${HOSTILE}` })}\n`,
    );
    const result = await trigger(['batch', input], { ...box.env, GITHUB_ACTIONS: 'true' });
    expect(result.code).toBe(1);
    expect(result.stderr + result.stdout).not.toMatch(RAW_CONTROL);
    expect(workflowLines(result.stdout + result.stderr)).toBe(1); // the batch's one annotation
  });

  it('a Location with a C1 byte reaches neither stderr nor --verbose raw', async () => {
    server.handle((_req, res) => {
      res.writeHead(302, { location: 'https://elsewhere.example/\u009b31mred\u0085' }); // C1 bytes (Node refuses C0 in headers)
      res.end();
    });
    const result = await trigger(['fire', 'deploy', 'alice', '--verbose'], box.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('redirected');
    expect(result.stderr).toContain('elsewhere.example');
    expect(result.stderr).not.toMatch(RAW_CONTROL);
  });
});

describe('where the key travels', () => {
  it('an http base URL through a proxy on loopback goes through it; the proxy records the request', async () => {
    const proxy = await startServer();
    try {
      const base = server.url.replace('127.0.0.1', 'localhost');
      const result = await trigger(['fire', 'deploy', 'alice'], { ...box.env, TRIGGER_BASE_URL: base, HTTP_PROXY: proxy.url });
      expect(result.code).toBe(0);
      expect(proxy.requests.map((r) => r.url)).toEqual([`${base}/v1/triggers/deploy/users/alice/events`]);
      expect(server.requests).toHaveLength(0);
    } finally {
      await proxy.close();
    }
  });
});

describe('a config file others can read', () => {
  it('names the file and the chmod that fixes it, each time the key is used from it', async () => {
    const env = { ...box.env, TRIGGER_API_KEY: undefined };
    expect((await trigger(['config', 'set-key', KEY], env)).code).toBe(0);
    const file = path.join(box.configDir, 'config.json');
    expect((await trigger(['fire', 'deploy', 'alice'], env)).stderr).toBe('');
    fs.chmodSync(file, 0o644);
    for (let i = 0; i < 2; i++) {
      const result = await trigger(['fire', 'deploy', 'alice'], env);
      expect(result.code).toBe(0);
      expect(result.stderr.trim().split('\n')).toEqual([
        `warning: ${file} holds the API key and others can read it (mode 0644); fix it with: chmod 600 ${file}`,
      ]);
    }
    // A key from the environment is not read from the file: no warning.
    expect((await trigger(['fire', 'deploy', 'alice'], box.env)).stderr).toBe('');
  });
});

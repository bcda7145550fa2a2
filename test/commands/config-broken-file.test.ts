/**
 * audit28, finding 17 and the note on V8's excerpt: a config.json that cannot be read back or written again says so without
 * any part of the key it holds, and is left untouched.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { expectNoKeyPiece } from '../helpers/key-forms.js';
import { commandEnv, runCommand } from '../helpers/in-process.js';

const KEY = 'tk_live_SECRETkey_0123456789abcdef';
let sandbox: ReturnType<typeof commandEnv>;
let file: string;
beforeEach(() => {
  sandbox = commandEnv();
  file = path.join(sandbox.env.TRIGGER_CONFIG_DIR!, 'config.json');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
});
afterEach(() => sandbox.cleanup());

it.each([
  ['an apiKey not quoted', `{"profiles":{"default":{"apiKey":${KEY},"baseUrl":"https://api.example.com"}}}`, 34],
  ['an apiKey not quoted, near the start', `{"apiKey":${KEY}}`, 11],
  ['the key cut by a stray character', `{"profiles":{"default":{"apiKey":"tk_live_SECRET"key_0123456789abcdef"}}}`, 49],
])('not valid JSON, %s: where, and not one character of the key (V8 showed ten either side)', async (_label, text, at) => {
  fs.writeFileSync(file, text, { mode: 0o600 });
  for (const args of [
    ['config', 'get', 'base-url'],
    ['fire', 'purchase', 'alice', '--dry-run'],
  ]) {
    const result = await runCommand(args, sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`config file ${file} is not valid JSON (`);
    expect(result.stderr).toMatch(new RegExp(`JSON at position ${at}\\b`));
    expectNoKeyPiece('the output', result.stdout + result.stderr, KEY, 4); // 3 would find "key" in set-key
  }
  expect(fs.readFileSync(file, 'utf8')).toBe(text);
});

it('nested too deeply to write back: said so, with the way out, and the file untouched', async () => {
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
  const text = `{"x":${deep},"profiles":{"default":{"apiKey":"${KEY}","baseUrl":"https://api.example.com"}}}`;
  fs.writeFileSync(file, text, { mode: 0o600 });
  const result = await runCommand(['config', 'set-base-url', 'https://other.example.com'], sandbox.env);
  expect(result.code).toBe(2);
  expect(result.stderr).toBe(
    `error: config file ${file} is nested too deeply to write back; it was left untouched — fix it by hand (it holds every profile's settings), or move it aside and start again: mv ${file} ${file}.broken && trigger config set-key\n`,
  );
  expect(fs.readFileSync(file, 'utf8')).toBe(text);
});

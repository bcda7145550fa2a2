/**
 * What a person reads is what is sent (contract: invisible characters): a user id holding a newline was shown as `a\nb`,
 * and so was one holding a backslash and an n (cli20). An id that holds an escape, a backslash or a quote is now shown
 * JSON-quoted, so the two read apart; a plain id is shown as it is.
 */
import { expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

it.each([
  ['a\nb', '"a\\nb"'],
  ['a\\nb', '"a\\\\nb"'],
  ['say "hi"', '"say \\"hi\\""'],
  ['evil\u202egnp.exe', '"evil\\u202egnp.exe"'],
  ['alice@example.com', 'alice@example.com'],
])('user id %j is shown as %s', async (userId, shown) => {
  const result = await runCommand(['fire', 'purchase', userId], sandbox.env);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(new RegExp(`^✔ purchase · ${shown.replace(/[\\^$.*+?()[\]{}|"]/g, '\\$&')} · no value · 200 OK`));
  expect(decodeURIComponent(server.requests[0]!.url.split('/')[5]!)).toBe(userId); // sent as it is
});

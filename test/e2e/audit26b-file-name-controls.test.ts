/**
 * audit26b #5: a file name holding control or invisible characters was printed raw, in the summary and inside the printed
 * command ('…' holds them as they are): an escape sequence reached the terminal and a newline split "send it with:" in two.
 * The summary now shows the name escaped, as ids are; the command quotes it as bash's $'…', so that pasted it names the same
 * file. Built binary; a node:http server on 127.0.0.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { TEST_KEY, paste, run, sandbox, type Sandbox } from '../helpers/cli.js';
import { countingService, csvOf, users, type CountingService } from '../helpers/batch.js';

let service: CountingService;
let box: Sandbox;
beforeEach(async () => {
  service = await countingService();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: service.server.url });
});
afterEach(async () => {
  await service.server.close();
  box.cleanup();
});

it('a failed file named with ESC, a newline, U+200B, ! and a quote: shown escaped, and the printed replay names that file', async () => {
  const name = "f\x1b[2J\nx\u200b!'";
  service.refused = new Set(['u1']);
  fs.writeFileSync(path.join(box.home, 'in.csv'), csvOf(users(5)));
  const first = await run(['batch', 'in.csv', '--failed', `${name}.csv`], { env: box.env, cwd: box.home, timeoutMs: 30_000 });
  expect(first.code).toBe(1);
  const out = first.stdout + first.stderr;
  expect([...out].filter((c) => c === '\x1b' || c === '\u200b')).toEqual([]); // each was printed raw
  const kept = /^ {2}1 row kept in (.*); once the cause is fixed, send it with: (trigger batch .*)$/m.exec(first.stdout);
  expect(kept?.[1]).toBe("f\\x1b[2J\\nx\\u200b!'.csv");
  // Before: `trigger batch 'f<ESC>[2J` ended the line, and the rest of the command was on the next one.
  const replay = await paste(`cd ${box.home} && ${kept?.[2] ?? 'false'}`, box.env);
  expect(replay.code).toBe(1); // u1 is still refused: read from the named failed file, sent, and kept again
  expect(service.received().get('u1')).toBe(2);
  expect(fs.readFileSync(path.join(box.home, `${name}-2.csv`), 'utf8')).toContain('t,u1,');
}, 60_000);

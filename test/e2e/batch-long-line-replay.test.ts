/**
 * A CSV record (or a --format lines line) over 1 MiB is one invalid row, kept in the failed file as "its
 * first 1024 bytes". Without a value column the kept prefix is a well-formed row, so the replay command
 * the summary printed sent an event for a user id that the input never held (the id's first 1022 bytes;
 * audit23). A row whose error says it is such a start is now invalid again on a replay, whatever it holds.
 * The contract: the failed file "can be fed back in as it is", an invalid row "keeps its raw text ...
 * so that it can be fixed by hand and sent again"; nothing that was not in the input is ever sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { useServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => {
  server = s;
  box = b;
});

describe('a record over 1 MiB, kept and replayed', () => {
  it.each([
    ['a CSV record', 'users.csv', (id: string) => `triggerId,userId\np,${id}\np,u2\n`, []],
    ['a line of --format lines', 'users.txt', (id: string) => `${id}\nu2\n`, ['--format', 'lines', '--trigger', 'p']],
  ])('%s: the printed replay command never sends a cut-down user id, run twice', async (_, name, text, options) => {
    const longId = 'b'.repeat(2_000_000);
    const input = path.join(box.home, name);
    fs.writeFileSync(input, text(longId));
    const first = await run(['batch', input, ...options, '--failed', path.join(box.home, 'kept.csv')], { env: box.env });
    expect(first.code).toBe(1);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/triggers/p/users/u2/events']);
    const replay = /send it with: trigger (batch .*)$/m.exec(first.stdout + first.stderr)?.[1];
    expect(replay).toBeDefined();
    const again = await run(replay!.split(' '), { env: box.env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('mend it in the file it came from');
    const next = /send it with: trigger (batch .*)$/m.exec(again.stdout + again.stderr)![1]!;
    expect((await run(next.split(' '), { env: box.env })).code).toBe(1);
    // Only ids the input held may reach the service: the long one whole, or nothing.
    expect(server.requests).toHaveLength(1);
  });
});

/**
 * A CSV row whose quote never closes is one invalid row, kept in the failed file "so that it can be fixed by hand and sent again".
 * It was kept as its raw line plus `,"line 2: ..."`: on a replay the open quote closed at the error's own quote, the row read as
 * other fields (`5,"line 2: invalid`), and each paste of the printed command quoted it again, the line growing every time and its
 * error no longer naming the open quote (audit23). It is now kept as its fields, the open quote's rest as one field, and a replay
 * reads it back as the same invalid row: the failed file is the same however often the command is pasted.
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

const replayOf = (output: string) => /send (?:it|them) with: trigger (batch .*)$/m.exec(output)?.[1];

describe('a row whose quote never closes, replayed', () => {
  it.each([
    ['one file', ['q.csv'], { 'q.csv': 'triggerId,userId,value\np,u2,3\np,u1,"5\n' }],
    [
      'a folder of two (the failed file normalized)',
      ['parts'],
      { 'parts/a.csv': 'triggerId,userId\np,u2\n', 'parts/b.csv': 'triggerId,userId\np,"u1\n' },
    ],
  ])('%s: the kept line stays the same, pasted three times, and nothing of it is sent', async (_, inputs, files) => {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(box.home, name)), { recursive: true });
      fs.writeFileSync(path.join(box.home, name), text);
    }
    const first = await run(['batch', ...inputs, '--failed', 'kept.csv'], { env: box.env });
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('a quoted field opens on this line and never closes');
    let failed = 'kept.csv';
    // The line the row is on is the file's it was read from: the failed file's own from the first paste on.
    const bad = () =>
      fs
        .readFileSync(path.join(box.home, failed), 'utf8')
        .split('\n')[1]!
        .replace(/"line \d+:/, '"line N:');
    const kept = bad();
    expect(kept).toMatch(/never closes/);
    let command = replayOf(first.stdout + first.stderr);
    for (let paste = 0; paste < 3; paste++) {
      expect(command).toBeDefined();
      const again = await run(command!.split(' '), { env: box.env });
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('invalid, not sent: a quoted field opens on this line and never closes');
      failed = /--failed (\S+)/.exec(command!)![1]!;
      expect(bad()).toBe(kept);
      command = replayOf(again.stdout + again.stderr);
    }
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/triggers/p/users/u2/events']);
  });

  it('mended by hand in the failed file (the quote taken out, the error left), the row is sent', async () => {
    fs.writeFileSync(path.join(box.home, 'q.csv'), 'triggerId,userId,value\np,u1,"5\n');
    expect((await run(['batch', 'q.csv', '--failed', 'kept.csv'], { env: box.env })).code).toBe(1);
    const kept = fs.readFileSync(path.join(box.home, 'kept.csv'), 'utf8');
    fs.writeFileSync(path.join(box.home, 'kept.csv'), kept.replace('"""5"', '5'));
    const mended = await run(['batch', 'kept.csv', '--failed', 'kept-2.csv'], { env: box.env });
    expect(mended.code).toBe(0);
    expect(server.requests.map((r) => [r.url, r.body])).toEqual([['/v1/triggers/p/users/u1/events', '{"value":5}']]);
  });
});

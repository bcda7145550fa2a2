/**
 * audit27 #6 (audit26 #7's cause): a --journal that is not a regular file was read as a journal. `--journal /dev/full` (or
 * /dev/zero) read the device into memory, 8.4 GB within 4 s, with SIGTERM unheard, and wrote its lock into /dev; a FIFO waited
 * for a writer that never came. Each is now refused at once: exit 2, one line, nothing sent, no lock made beside it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { csvRows, leftIn, printedNext } from '../helpers/batch.js';
import { json, type TestServer, useServer } from '../helpers/server.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const at = (name: string) => path.join(box.home, name);

it.each([
  ['a FIFO', (file: string) => expect(spawnSync('mkfifo', [file]).status).toBe(0)],
  ['a link to /dev/null', (file: string) => fs.symlinkSync('/dev/null', file)], // not /dev/zero: before, that took gigabytes
] as const)('--journal naming %s is refused at once: exit 2, one line, nothing sent, no lock left', async (_what, make) => {
  server.handle((_req, res) => json(res, 200, { success: true }));
  fs.writeFileSync(at('in.csv'), csvRows(3));
  const journal = at('j');
  make(journal);
  for (const resume of [[], ['--resume'], ['--resume', '--dry-run']]) {
    // Before (9acec57): the FIFO held the run until the test's hang timer killed it at 50 s; /dev/null "is not a trigger batch journal".
    const result = await run(['batch', at('in.csv'), '--journal', journal, '--failed', at('f.csv'), ...resume], { env: box.env });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      `error: --journal ${journal} is a device or a FIFO, not a regular file; nothing was sent — name a file, e.g. --journal b.journal\n`,
    );
  }
  expect(server.requests).toHaveLength(0);
  expect(leftIn(box)).toEqual(['in.csv', 'j']); // no .j.lock, no f.csv
});

it('a FIFO where the replay command would name its journal is passed over, not waited on (fix27d)', async () => {
  server.handle((_req, res) => json(res, 400, { error: 'no such user' }));
  fs.writeFileSync(at('in.csv'), csvRows(3));
  expect(spawnSync('mkfifo', [at('f-2.csv.journal')]).status).toBe(0);
  // Before: the replay's naming opened the FIFO to read its header and waited for a writer; the hang detector killed the run at 20 s.
  const result = await run(['batch', 'in.csv', '--failed', 'f.csv'], { env: box.env, timeoutMs: 20_000 });
  expect({ code: result.code, signal: result.signal, sent: server.requests.length }).toEqual({ code: 1, signal: null, sent: 3 });
  expect(printedNext(result).join(' ')).toBe('batch f.csv --failed f-3.csv --journal f-3.csv.journal --resume');
});

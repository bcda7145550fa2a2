/**
 * review27b repro: a file that "changed while it was read" but whose bytes are the same (only touched, or put back by a sync that
 * replaces files, or a part moved away and back) stops the batch as damage, and its journal is closed with the rest command. A `--resume`
 * of the same journal (the contract's way to carry a batch on, what a CI retry of the step runs) is not refused: the journal's hash still
 * matches, so it sends every row after the stop. The printed rest command sends them again through its own journal.
 * Fails on 701cc62: the rows after the stop are sent twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, type Sandbox } from '../helpers/cli.js';
import { json, type TestServer, useServer } from '../helpers/server.js';
import { printedNext, userOf } from '../helpers/batch.js';

let server: TestServer;
let box: Sandbox;
useServer((s, b) => ([server, box] = [s, b]));

const ids = Array.from({ length: 3000 }, (_, i) => `u${i}-${'x'.repeat(300)}`); // 0.9 MB: the reader is mid-file at the first request

describe('a file only touched while it is read, with --journal', () => {
  it('its --resume and the printed rest command do not both send the rows after the stop', async () => {
    const file = path.join(box.home, 'events.csv');
    fs.writeFileSync(file, `triggerId,userId\n${ids.map((u) => `t,${u}\n`).join('')}`);
    server.handle((_req, res, index) => {
      if (index === 0) fs.utimesSync(file, new Date(), new Date()); // touched: its rows the same
      json(res, 200, { success: true });
    });
    const args = ['batch', file, '--failed', path.join(box.home, 'failed.csv'), '--journal', 'b.journal'];
    const first = await run(args, { env: box.env });
    expect(first.stdout).toContain('changed while it was read');
    expect(first.code).toBe(2);
    const rest = printedNext(first);
    await run([...args, '--resume'], { env: box.env }); // a CI retry of the step, or the user carrying the batch on
    await run(rest, { env: box.env }); // the printed command for the rows after the stop
    const counts = new Map<string, number>();
    for (const r of server.requests) counts.set(userOf(r.url), (counts.get(userOf(r.url)) ?? 0) + 1);
    // On 701cc62: the --resume is not refused (same bytes, same hash) and sends the ~2,600 rows after the stop; the rest sends them again.
    expect([...counts].filter(([, n]) => n > 1)).toHaveLength(0);
  });
});

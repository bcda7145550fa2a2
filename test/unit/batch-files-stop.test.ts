/**
 * Files after the first signal (input.ts stopReading): `more` rows yet, then reading stops before a row and `cut` names
 * the file, the last line before the rest, and the later files; a Parquet file is read to its end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { restCommand } from '../../src/batch/files.js';
import { openInputs } from '../../src/batch/input.js';
import type { Row } from '../../src/batch/rows.js';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-stop-'));
const sum = expect.stringMatching(/^[0-9a-f]{8}$/) as unknown as string; // the check of the rows read (see the rest's tests)
const csv = (name: string, n: number) => {
  const rows = Array.from({ length: n }, (_, i) => `t,${name}-${i}`);
  fs.writeFileSync(path.join(folder, name), `triggerId,userId\n${rows.join('\n')}\n`);
  return name;
};

/** Reads the first chunk, stops with `more` (and `ms`), and reads on to the end. */
async function stopAfterFirstChunk(sources: string[], more: number, ms?: number) {
  const input = await openInputs(sources, { cwd: folder });
  const rows: Row[] = [];
  let stopped = false;
  for await (const chunk of input.read({}).rows) {
    rows.push(...chunk);
    if (!stopped) input.stopReading(more, ms);
    stopped = true;
  }
  return { input, rows };
}

describe('files after the first signal', () => {
  it('hand on `more` rows, then stop before a row: cut names the line before the rest, and the later files', async () => {
    const [a, b, c] = [csv('a.csv', 5_000), csv('b.csv', 10), csv('c.csv', 10)];
    const { input, rows } = await stopAfterFirstChunk([a, b, c], 1_000);
    const first = rows.length;
    expect(first).toBeGreaterThan(1_000);
    expect(first).toBeLessThan(2_000); // a chunk or two past `more`, not the file
    expect(input.cut).toEqual({ dropped: 0, file: a, line: first + 1, later: [b, c], check: sum }); // line 1 is the header
    expect(rows.at(-1)!.userId).toBe(`${a}-${first - 1}`);
  });

  it('a stop whose time is spent stops at the next chunk, however many rows `more` leaves (a --json stop took 0.97 s)', async () => {
    const a = csv('m.csv', 5_000);
    const { input, rows } = await stopAfterFirstChunk([a], 100_000, 0);
    expect(rows.length).toBeLessThan(2_000); // the chunk read at the signal (and one a reader had ready), not the file
    expect(input.cut).toEqual({ dropped: 0, file: a, line: rows.length + 1, later: [], check: sum });
  });

  it('a stop at a file boundary leaves the next file whole (line 1: its header) and the ones after', async () => {
    const [a, b, c] = [csv('d.csv', 3), csv('e.csv', 3), csv('f.csv', 3)];
    const { input, rows } = await stopAfterFirstChunk([a, b, c], 0);
    expect(rows.map((r) => r.userId)).toEqual([`${a}-0`, `${a}-1`, `${a}-2`]);
    expect(input.cut).toEqual({ dropped: 0, file: b, line: 1, later: [c], check: '811c9dc5' }); // no row of b read: FNV's start
  });

  it('a file read to its end before the stop counts is not cut', async () => {
    const { input, rows } = await stopAfterFirstChunk([csv('g.csv', 3)], 0);
    expect(rows).toHaveLength(3);
    expect(input.cut).toBeUndefined();
  });

  it("after damage, a signal leaves the later files to be kept whole: one rest command, the damaged file's", async () => {
    const whole = zlib.gzipSync(`triggerId,userId\n${Array.from({ length: 2_000 }, (_, i) => `t,x${i}-${'y'.repeat(60)}`).join('\n')}\n`);
    fs.writeFileSync(path.join(folder, 'h.csv.gz'), whole.subarray(0, whole.length >> 1));
    const later = csv('i.csv', 3_000);
    const input = await openInputs(['h.csv.gz', later], { cwd: folder });
    input.onDamage = () => input.stopReading(0); // the signal comes as the damage is found
    const rows: Row[] = [];
    for await (const chunk of input.read({}).rows) rows.push(...chunk);
    expect(input.damaged?.file).toBe('h.csv.gz');
    expect(rows.filter((r) => r.file === later)).toHaveLength(3_000);
    expect(input.cut).toBeUndefined();
  });
});

describe('the rest command of a cut (files.ts restCommand)', () => {
  const parts = (dir: string) => {
    fs.mkdirSync(path.join(folder, dir));
    for (const p of ['a', 'b', 'c']) fs.writeFileSync(path.join(folder, dir, `${p}.csv`), 'triggerId,userId\nt,u\n');
  };
  const rest = async (sources: string[], at: { file: string; line: number; later: string[] }, cwd = folder) =>
    restCommand(await openInputs(sources, { cwd }), {}, at, cwd);

  it("names a folder given from the cut on, --from the cut part (was: every later part by name); a file's, by name", async () => {
    parts('x');
    csv('z.csv', 1);
    const cut = { file: 'x/b.csv', line: 1, later: ['x/c.csv', 'z.csv'] };
    expect(await rest(['x', 'z.csv'], cut)).toBe(
      'trigger batch x z.csv --from x/b.csv --journal x-b-rest.journal --resume --failed x-b-rest-failed.csv',
    );
    csv('y.csv', 9);
    expect(await rest(['y.csv', 'x'], { file: 'y.csv', line: 5, later: ['x/a.csv'] })).toBe(
      'trigger batch y.csv x --after-line 5 --journal y-rest.journal --resume --failed y-rest-failed.csv',
    );
  });

  it('lists the later parts of a folder that is the current one: the rest is written there, and a folder given that holds it is refused', async () => {
    parts('w');
    const cwd = path.join(folder, 'w');
    expect(await rest(['.'], { file: 'b.csv', line: 1, later: ['c.csv'] }, cwd)).toBe(
      'trigger batch b.csv c.csv --journal b-rest.journal --resume --failed b-rest-failed.csv',
    );
  });
});

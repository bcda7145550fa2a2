/**
 * A batch's young generation (src/startup.ts, capYoungGeneration): V8 starts it at 1 MB and, left to itself, doubles it one step at a
 * time, scavenging every millisecond or two on the way; the cap takes it to its size in one step (after Node 20's first, to 2 MB). Run in
 * a Node process of its own (the flags it sets are the whole process's), on dist/startup.cjs, with data that lives a while as rows do.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, sandbox } from '../helpers/cli.js';

const box = sandbox();
afterAll(() => box.cleanup());

/** The sizes the young generation took, in MB, from before the cap was set until it stopped watching. */
function sizes(parquet: boolean): Promise<number[]> {
  const script = `
    const v8 = require('node:v8');
    const startup = require(${JSON.stringify(path.join(ROOT, 'dist', 'startup.cjs'))});
    const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20;
    const seen = [young()];
    if (${parquet}) startup.youngGenerationForParquet();
    const stop = startup.capYoungGeneration();
    (async () => {
      const kept = new Array(50000);
      for (let round = 0; round < 300; round++) {
        for (let i = 0; i < 20000; i++) kept[(round * 20000 + i) % kept.length] = { round, i, text: 'row ' + i };
        if (seen.at(-1) !== young()) seen.push(young());
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      stop();
      process.stdout.write(JSON.stringify(seen));
    })();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { env: box.env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

/**
 * The sizes it took on its way to the cap after V8's first growth (to 2 MB on Node 20, whatever the factor). What follows is V8's: under
 * load a shrink and a growth may both come before the 10 ms watch sees them, and Node 24 reports sizes between whole pages.
 */
const onTheWay = (seen: number[], cap: number) => seen.slice(0, seen.indexOf(cap)).filter((size) => size > 2);

describe('a batch’s young generation', () => {
  it('grows to the 32 MB cap in one step, not by doublings', async () => {
    const seen = await sizes(false);
    expect(seen).toContain(32);
    expect(onTheWay(seen, 32)).toEqual([]); // V8 by itself: 4, 8, 16
  });

  it('grows to the 8 MB cap of a Parquet read in one step', async () => {
    const seen = await sizes(true);
    expect(seen).toContain(8);
    expect(onTheWay(seen, 8)).toEqual([]); // V8 by itself: 4; a factor set for 1 MB and used at 2 MB: 16
  });
});

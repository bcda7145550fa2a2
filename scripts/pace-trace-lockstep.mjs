/**
 * Do two builds of the pace decide alike? (issue 31: a slowdown that real nginx showed between two builds,
 * 8-22% in 7 of 7 runs, was a question of which commit; this says first whether the code can differ there.)
 * The first revision's src/batch/pace.ts drives a simulated conn-0 (nginx's limit_conn 12 with an app that
 * answers at once, 25 ms each way and up to 3 ms more, arrivals clumped on 4 ms ticks as a proxy's timers
 * gather them, 0.2% refused at random, no Retry-After); the second revision's Pace is told exactly the same
 * calls (take, answered) on the same clock and the same random numbers. After every call it compares what
 * take() said, the limit, the gap, pausedFor() and the push-backs counted; the first difference is printed,
 * with whether a push-back had come at one at a time before it (where the strict rules act).
 *
 *   node scripts/pace-trace-lockstep.mjs <rev-a> <rev-b> [seeds (200)] [rows (18000)] [squeeze|strict]
 *   squeeze: one slot held 40 ms from 3 s to 8 s (every seed falls to one at a time); strict: a strict
 *   10/s from 3 s to 20 s (the strict regime: a check that a difference shows where there is one).
 * In-process, simulated clock: a few seconds for 200 seeds. Revisions are read with `git show`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [revA, revB, seedsArg, rowsArg, mode] = process.argv.slice(2);
if (!revA || !revB) throw new Error('usage: pace-trace-lockstep.mjs <rev-a> <rev-b> [seeds] [rows] [squeeze|strict]');
const seeds = Number(seedsArg ?? 200);
const rows = Number(rowsArg ?? 18000);

/** A revision's Pace, bundled from its pace.ts (which imports nothing). */
async function paceOf(rev, dir) {
  const source = path.join(dir, `pace-${rev.replace(/\W/g, '_')}.ts`);
  fs.writeFileSync(source, execFileSync('git', ['-C', root, 'show', `${rev}:src/batch/pace.ts`]));
  const out = source.replace(/\.ts$/, '.mjs');
  await build({ entryPoints: [source], outfile: out, format: 'esm', logLevel: 'warning' });
  return import(pathToFileURL(out).href);
}

const numbers = (seed) => {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
};

/** The service: what a request sent at t comes to, and when its answer is back. */
function conn0(Answer, seed) {
  const net = numbers(seed * 13 + 5);
  const ends = [];
  let lastLet = -Infinity;
  return (t) => {
    const arrival = t + 25 + (Math.floor(t / 4) * 4 + 4 - t) * net();
    const at = arrival + 1 + 25 + 3 * net();
    const hard = mode === 'squeeze' && arrival > 3000 && arrival < 8000;
    while (ends.length && ends[0] <= arrival) ends.shift();
    if (mode === 'strict' && arrival > 3000 && arrival < 20000) {
      if (arrival - lastLet < 100) return { at, answer: Answer.PushedBack };
      lastLet = arrival;
    } else if (ends.length >= (hard ? 1 : 12) || net() < 0.002) return { at, answer: Answer.PushedBack };
    ends.push(arrival + (hard ? 40 : 0.5 + net()));
    ends.sort((x, y) => x - y);
    return { at, answer: Answer.Accepted };
  };
}

/** One seed: the first difference between the two, or '' when none. */
function lockstep(A, B, Answer, seed) {
  let t = 0;
  const now = () => t;
  const a = new A.Pace({ max: 64, now, random: numbers(seed * 7 + 1) });
  const b = new B.Pace({ max: 64, now, random: numbers(seed * 7 + 1) });
  const service = conn0(Answer, seed);
  const pending = [];
  let inFlight = 0;
  let accepted = 0;
  let atOne = false;
  const differ = (where) => {
    const [pa, pb] = [a.pausedFor(), b.pausedFor()];
    if (a.limit === b.limit && a.gapMs === b.gapMs && Math.abs(pa - pb) < 1e-9 && a.pushedBack === b.pushedBack) return '';
    return `${where} at ${(t / 1000).toFixed(2)} s: limit ${a.limit}/${b.limit}, gap ${a.gapMs.toFixed(1)}/${b.gapMs.toFixed(1)} ms, pausedFor ${pa.toFixed(1)}/${pb.toFixed(1)} ms`;
  };
  while (accepted < rows && t < 600_000) {
    while (accepted + inFlight < rows) {
      const [ta, tb] = [a.take(inFlight), b.take(inFlight)];
      if (ta !== tb) return { diff: `take ${ta}/${tb} at ${(t / 1000).toFixed(2)} s`, atOne };
      if (!ta) break;
      inFlight++;
      const verdict = service(t);
      pending.push({ ...verdict, rtt: Math.round(verdict.at - t) });
      pending.sort((x, y) => x.at - y.at);
    }
    const diff = differ('after the starts');
    if (diff) return { diff, atOne };
    t = Math.min(pending[0]?.at ?? Infinity, t + 0.5);
    while (pending.length && pending[0].at <= t) {
      const { answer, rtt } = pending.shift();
      inFlight--;
      if (answer === Answer.Accepted) accepted++;
      else if (a.limit === 1) atOne = true;
      a.answered(answer, rtt);
      b.answered(answer, rtt);
      const diff = differ(answer === Answer.Accepted ? 'an accepted answer' : 'a push-back');
      if (diff) return { diff, atOne };
    }
  }
  return { diff: '', atOne, pushedBack: a.pushedBack, lowest: a.lowest, seconds: t / 1000 };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pace-lockstep-'));
try {
  const [A, B] = [await paceOf(revA, dir), await paceOf(revB, dir)];
  let diverged = 0;
  let atOne = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const r = lockstep(A, B, A.Answer, seed);
    if (r.atOne) atOne++;
    if (r.diff) {
      diverged++;
      console.log(`seed ${seed}: differ (${r.diff}); pushed back at one at a time before: ${r.atOne}`);
    } else if (seed <= 2) {
      console.log(`seed ${seed}: alike for ${rows} rows (${r.pushedBack} push-backs, lowest limit ${r.lowest}, ${r.seconds.toFixed(1)} s)`);
    }
  }
  console.log(
    `${revA} against ${revB}, ${seeds} seeds of conn-0${mode ? ` (${mode})` : ''}: ${diverged} differ; ` +
      `pushed back at one at a time in ${atOne}`,
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Progress without a terminal (a plain line every 10 s, for CI logs) and the progress line's
 * in-flight and push-back counts. Timers are vitest's fake ones: no wall clock.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { paceWords, progressLine, stepSummary } from '../../src/batch/report.js';
import { emptyCounts } from '../../src/batch/recorder.js';
import { PLAIN as plainPalette } from '../../src/output/colors.js';
import { fit, PLAIN_PROGRESS_MS, Progress, ROOM } from '../../src/output/progress.js';
import { capturingOutput } from '../helpers/in-process.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('Progress without a terminal', () => {
  it('writes a plain line (no carriage return, no escape) every 10 s, and nothing more once stopped', () => {
    vi.useFakeTimers();
    const { io, stderr } = capturingOutput();
    let n = 0;
    const progress = new Progress(io, () => `batch ${++n} rows`, { plain: true });
    progress.start();
    vi.advanceTimersByTime(PLAIN_PROGRESS_MS - 1);
    expect(stderr.text).toBe('');
    vi.advanceTimersByTime(1);
    expect(stderr.text).toBe('batch 1 rows\n');
    vi.advanceTimersByTime(2 * PLAIN_PROGRESS_MS);
    expect(stderr.text).toBe('batch 1 rows\nbatch 2 rows\nbatch 3 rows\n');
    progress.stop();
    vi.advanceTimersByTime(5 * PLAIN_PROGRESS_MS);
    expect(stderr.text).not.toContain('\r');
    expect(stderr.text).not.toContain('\u001b');
    expect(stderr.text.split('\n')).toHaveLength(4);
    expect(PLAIN_PROGRESS_MS).toBe(10_000);
  });
});

describe('Progress in a terminal', () => {
  // eslint-disable-next-line no-control-regex
  const shown = (text: string) => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace('\r', '');
  const STOPPING = 'batch 24/300 rows · 0 failed · 12/s · 4 in flight · stopping: nothing more is sent';

  it('draws the line cut to the width the terminal reports, less three columns, colour codes kept and closed', () => {
    const { io, stderr } = capturingOutput();
    const width = { columns: 24 };
    Object.defineProperties(stderr, { isTTY: { value: true }, columns: { get: () => width.columns } });
    const colored = `\x1b[32m✔ batch\x1b[39m 12/300 rows · 0 failed · 7/s · 4 in flight`;
    const progress = new Progress(io, () => colored);
    progress.draw();
    expect(shown(stderr.text)).toBe('✔ batch 12/300 rows…');
    expect(stderr.text.endsWith('\x1b[0m')).toBe(true);
    // Resized: read again at the next draw. Unknown (0): drawn whole, as before.
    width.columns = 0;
    progress.draw();
    expect(shown(stderr.text.slice(stderr.text.lastIndexOf('\r')))).toBe(shown(colored));
  });

  it("leaves room for the terminal's ^C echo, and keeps the stop whole: the parts before it go first, then it is cut at a word (audit25 #8)", () => {
    // At 80 columns the line was cut to 79: the echo of ^C wrapped, and the stop read `stopping: nothing more is s`.
    expect(fit(STOPPING, 80 - ROOM)).toBe('batch 24/300 rows · 0 failed · 12/s · stopping: nothing more is sent');
    const dim = (text: string) => `\x1b[2m${text}\x1b[22m`;
    const colored = STOPPING.split(' · ').join(dim(' · '));
    expect(fit(colored, 80 - ROOM)).toBe(['batch 24/300 rows', '0 failed', '12/s', 'stopping: nothing more is sent'].join(dim(' · ')));
    expect(fit(STOPPING, 40 - ROOM)).toBe('batch 24/300 rows · stopping:…');
    expect(fit('batch 24/300 rows · ETA 3 s', 10)).toBe('batch…');
    expect(fit('a-very-long-single-word', 10)).toBe('a-very-lo…');
    expect(fit(STOPPING, 200)).toBe(STOPPING);
  });

  it('counts terminal columns, not characters: a CJK character takes two, a combining mark none (review26 #5)', () => {
    // 18 characters, 22 columns: it was drawn whole in 20 and wrapped, leaving a row behind at each redraw.
    expect(fit('firing 購入完了 for u1', 20)).toBe('firing 購入完了 for…');
    expect(fit('購入完了購入完了購入完了', 10)).toBe('購入完了…'); // 9 columns; it was 9 characters, 19 columns
    expect(fit('cafe\u0301 cafe\u0301 cafe\u0301', 14)).toBe('cafe\u0301 cafe\u0301 cafe\u0301'); // 14 columns, 17 characters
    expect(fit('ｆｕｌｌｗｉｄｔｈ', 7)).toBe('ｆｕｌ…');
  });
});

describe('the progress line', () => {
  it('shows the requests in flight and the answers that pushed back', () => {
    const counts = { ...emptyCounts(), rows: 120, accepted: 120 };
    const line = progressLine(counts, 1000, 2000, plainPalette, { inFlight: 17, pushedBack: 9 });
    expect(line).toContain('17 in flight');
    expect(line).toContain('9 pushed back');
    expect(progressLine(counts, 1000, 2000, plainPalette, { inFlight: 3, pushedBack: 0 })).not.toContain('pushed back');
  });

  it('the summary says the range of concurrency used and the push-backs', () => {
    expect(paceWords({ lowest: 4, highest: 61, pushedBack: 12, widestGapMs: 0 })).toBe(
      'concurrency auto, 4 to 61 at once; 12 answers pushed back (429/503), those rows sent again',
    );
    expect(paceWords({ lowest: 3, highest: 3, pushedBack: 1, widestGapMs: 0 })).toBe(
      'concurrency auto, 3 at once; 1 answer pushed back (429/503), those rows sent again',
    );
    expect(paceWords({ lowest: 4, highest: 64, pushedBack: 0, widestGapMs: 0 })).toBe(
      'concurrency auto, 4 to 64 at once; 0 answers pushed back (429/503)',
    );
    // A service that took fewer than one a round trip: the starts were spaced out.
    expect(paceWords({ lowest: 1, highest: 4, pushedBack: 13, widestGapMs: 104.6 })).toBe(
      'concurrency auto, 1 to 4 at once, starts spaced up to 105 ms apart; 13 answers pushed back (429/503), those rows sent again',
    );
  });

  it("the GitHub step summary's table has the range, the push-backs and, when they were spaced out, how far apart the starts were", () => {
    const summary = (widestGapMs: number) =>
      stepSummary('rows.csv', {
        counts: { ...emptyCounts(), rows: 60, accepted: 60 },
        elapsedMs: 15_000,
        dryRun: false,
        signal: undefined,
        failedFile: undefined,
        notReadAfter: undefined,
        pace: { lowest: 1, highest: 4, pushedBack: 13, widestGapMs },
      });
    expect(summary(282.4)).toContain(
      '| concurrency (auto) | 1–4 |\n| starts spaced (auto) | up to 282 ms apart |\n| pushed back (429/503) | 13 |',
    );
    expect(summary(0)).toContain('| concurrency (auto) | 1–4 |\n| pushed back (429/503) | 13 |');
  });
});

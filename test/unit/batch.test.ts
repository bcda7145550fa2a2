/**
 * The batch's pure parts: reading rows (CSV, NDJSON, lines) with their line numbers, writing them back
 * to the failed file, and the runner's concurrency, pacing and stopping.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { FireResult } from '../../src/client/client.js';
import type { PreparedEvent } from '../../src/client/request.js';
import { readLines } from '../../src/batch/lines.js';
import { failedHeader, failedLine } from '../../src/batch/failed.js';
import { openInputs } from '../../src/batch/input.js';
import { readRows, type Row } from '../../src/batch/rows.js';
import { Runner, type OutcomeSink, type Outcome, type RunOptions } from '../../src/batch/runner.js';
import { InterruptedError, ServiceError, UsageError } from '../../src/errors.js';

async function rowsOf(text: string | string[], format: 'csv' | 'ndjson' | 'lines', trigger?: string): Promise<Row[]> {
  const source = readRows(Readable.from((Array.isArray(text) ? text : [text]).map((t) => Buffer.from(t))), format, { trigger });
  const rows: Row[] = [];
  for await (const chunk of source.rows) rows.push(...chunk);
  return rows;
}

const brief = (row: Row) => ({ line: row.line, triggerId: row.triggerId, userId: row.userId, value: row.value, invalid: row.invalid });

describe('reading CSV', () => {
  it('takes columns in any order, RFC 4180 quoting, an optional value, and counts lines', async () => {
    const rows = await rowsOf(
      '\uFEFFvalue,userId,triggerId\r\n9.99,"a,""b""\r\nc",purchase\r\n\r\n,bob,signup\r\n12345678901234567890,..,purchase\r\n-3,"  spaced  ",t',
      'csv',
    );
    expect(rows.map(brief)).toEqual([
      { line: 2, triggerId: 'purchase', userId: 'a,"b"\r\nc', value: '9.99', invalid: undefined },
      { line: 5, triggerId: 'signup', userId: 'bob', value: undefined, invalid: undefined },
      { line: 6, triggerId: 'purchase', userId: '..', value: '12345678901234567890', invalid: undefined },
      { line: 7, triggerId: 't', userId: '  spaced  ', value: '-3', invalid: undefined },
    ]);
    expect(rows[2]?.event?.path).toBe('/v1/triggers/purchase/users/%2E%2E/events');
    expect(rows[2]?.event?.body).toBe('{"value":12345678901234567890}');
  });

  it('marks bad rows invalid with their line, and keeps reading', async () => {
    const rows = await rowsOf('triggerId,userId,value\nt,a,abc\nt,,1\nt,b\nt,c,1,extra\nt,bad"quote,1\nt,d,1e999\nt,e,2\n', 'csv');
    expect(rows.map((r) => [r.line, r.invalid === undefined ? 'ok' : r.invalid])).toEqual([
      [2, 'value must be a decimal number such as 9.99, -3 or 1e3; got "abc"'],
      [3, 'empty userId'],
      [4, 'expected 3 fields as in the header, got 2'],
      [5, 'expected 3 fields as in the header, got 4'],
      [6, 'ok'], // a quote inside an unquoted field is text
      [7, 'value 1e999 is beyond the range of a double-precision number'],
      [8, 'ok'],
    ]);
  });

  it('splits lines without quotes at every comma, as split(",") would: empty fields, CRLF, a lone CR inside', async () => {
    const rows = await rowsOf('triggerId,userId,value,note\r\nt,a,1,\r\n,b,,x\r\nt,c\rd,2,y\nt,e,3,z,\r\nt,,,\r\n', 'csv', 'fallback');
    expect(
      rows.map((r) => [r.line, r.triggerId, r.userId, r.value, r.invalid ?? 'ok', (r.record as { fields?: string[] }).fields]),
    ).toEqual([
      [2, 't', 'a', '1', 'ok', ['t', 'a', '1', '']],
      [3, 'fallback', 'b', undefined, 'ok', ['', 'b', '', 'x']],
      [4, 't', 'c\rd', '2', 'ok', ['t', 'c\rd', '2', 'y']],
      [5, undefined, undefined, undefined, 'expected 4 fields as in the header, got 5', ['t', 'e', '3', 'z', '']],
      [6, 't', '', undefined, 'empty userId', ['t', '', '', '']],
    ]);
  });

  it('reads across chunk boundaries, even inside a quoted field', async () => {
    const rows = await rowsOf(['triggerId,user', 'Id\nt,"x\n', 'y"\nt,z\n'], 'csv');
    expect(rows.map(brief)).toMatchObject([
      { line: 2, userId: 'x\ny' },
      { line: 4, userId: 'z' },
    ]);
  });

  it('takes the trigger from --trigger when there is no triggerId column', async () => {
    const rows = await rowsOf('userId\nalice\n', 'csv', 'welcome');
    expect(rows[0]?.event?.path).toBe('/v1/triggers/welcome/users/alice/events');
  });

  it.each([
    ['no userId column', 'triggerId,user\nt,a\n', undefined, /no userId column/],
    ['no triggerId column and no --trigger', 'userId\na\n', undefined, /no triggerId column/],
    ['a column named twice', 'userId,UserId,triggerId\na,b,t\n', undefined, /names the column "UserId" twice/],
    ['an empty input', '', undefined, /empty: no header row/],
  ])('refuses %s (exit 2)', async (_name, text, trigger, message) => {
    const error = await rowsOf(text, 'csv', trigger).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('reading NDJSON', () => {
  it('reads objects, keeps big values exact, and marks bad lines invalid with their number', async () => {
    const rows = await rowsOf(
      [
        '{"triggerId":"t","userId":"a","value":12345678901234567890}',
        'not json',
        '[1]',
        '{"userId":"b"}',
        '',
        '{"triggerId":"t","userId":7,"value":"2.5"}',
        '{"triggerId":"t","userId":"c","value":true}',
        '{"triggerId":"t","userId":"d","value":null}',
      ].join('\n'),
      'ndjson',
    );
    expect(rows.map((r) => [r.line, r.value, r.invalid ?? 'ok'])).toEqual([
      [1, '12345678901234567890', 'ok'],
      [2, undefined, expect.stringContaining('not valid JSON')],
      [3, undefined, 'expected a JSON object, got an array'],
      [4, undefined, 'no triggerId: add a triggerId column or field, or pass --trigger'],
      [6, '2.5', 'ok'],
      [7, undefined, '"value" must be a number, not boolean'],
      [8, undefined, 'ok'],
    ]);
    expect(rows[0]?.event?.body).toBe('{"value":12345678901234567890}');
    expect(rows[4]?.userId).toBe('7');
  });

  it('a member it reads that is in the object twice is an invalid row (JSON.parse kept the last, silently: audit23)', async () => {
    const rows = await rowsOf(
      [
        '{"triggerId":"t","userId":"u","userId":"v"}',
        '{"triggerId":"t","value":1,"userId":"w","value" :2}',
        '{"triggerId":"t","userId":"x","meta":{"userId":"y"},"list":[{"userId":"z"}]}',
        '{"triggerId":"t","note":"\\"userId\\":","userId":"q"}',
        '{"triggerId":"t","userId":"u7","user\\u0049d":"evil"}', // a name written with escapes is the same name (review23)
      ].join('\n'),
      'ndjson',
    );
    expect(rows.map((r) => [r.line, r.invalid ?? r.userId])).toEqual([
      [1, '"userId" is in the object twice: keep one (JSON readers differ on which counts)'],
      [2, '"value" is in the object twice: keep one (JSON readers differ on which counts)'],
      [3, 'x'], // a member of a member: not the row's
      [4, 'q'], // the name inside a string: no member
      [5, '"userId" is in the object twice: keep one (JSON readers differ on which counts)'],
    ]);
  });
});

describe('reading lines', () => {
  it('takes one userId per line, exactly, skipping blank lines', async () => {
    const rows = await rowsOf('alice\r\n  bob \n\nc/d\n😀', 'lines', 'welcome');
    expect(rows.map((r) => [r.line, r.userId, r.triggerId])).toEqual([
      [1, 'alice', 'welcome'],
      [2, '  bob ', 'welcome'],
      [4, 'c/d', 'welcome'],
      [5, '😀', 'welcome'],
    ]);
  });

  it('needs --trigger', async () => {
    await expect(rowsOf('a\n', 'lines')).rejects.toThrow(/--format lines needs --trigger/);
  });

  it('splits lines across chunks and multi-byte characters across chunk edges', async () => {
    const bytes = Buffer.from('ab\nc😀\nd');
    const chunks = [bytes.subarray(0, 4), bytes.subarray(4, 6), bytes.subarray(6)];
    const lines: unknown[] = [];
    for await (const chunk of readLines(Readable.from(chunks))) lines.push(...chunk.items);
    expect(lines).toEqual(['ab', 'c😀', 'd']);
  });
});

describe('choosing the format', () => {
  it.each([
    ['{"userId":"a"}\n', 'ndjson'],
    ['  \n{"userId":"a"}\n', 'ndjson'],
    ['userId,triggerId\n', 'csv'],
  ])('detects %j from stdin as %s', async (text, format) => {
    const input = await openInputs(['-'], { stdin: Readable.from([Buffer.from(text)]) });
    expect(input.format).toBe(format);
    const rows: Row[] = [];
    for await (const chunk of input.read({ trigger: 't' }).rows) rows.push(...chunk);
    expect(rows.map((r) => r.userId)).toEqual(format === 'ndjson' ? ['a'] : []); // nothing lost by looking
  });

  it('says clearly when the file cannot be read', async () => {
    await expect(openInputs(['/no/such/file.csv'])).rejects.toThrow('cannot read /no/such/file.csv: no such file');
  });
});

describe('the failed file', () => {
  it('writes CSV rows with the header plus error, replacing an error column that is there', async () => {
    const [row] = await rowsOf('value,userId,triggerId,note\n1,"a,b",t,x\n', 'csv');
    expect(failedHeader(['value', 'userId', 'triggerId', 'note'])).toBe('value,userId,triggerId,note,error\n');
    expect(failedLine(row!, '404 Not Found: "nope"', ['value', 'userId', 'triggerId', 'note'])).toBe(
      '1,"a,b",t,x,"line 2: 404 Not Found: ""nope"""\n',
    );
    const [again] = await rowsOf('value,userId,triggerId,note,error\n1,a,t,x,line 2: old\n', 'csv');
    expect(failedHeader(['value', 'userId', 'triggerId', 'note', 'error'])).toBe('value,userId,triggerId,note,error\n');
    expect(failedLine(again!, 'new', ['value', 'userId', 'triggerId', 'note', 'error'])).toBe('1,a,t,x,line 2: new\n');
  });

  it('writes NDJSON rows as they were, plus an error field, keeping the value digits', async () => {
    const rows = await rowsOf(
      '{"triggerId":"t","userId":"a","value":12345678901234567890,"extra":[1],"error":"old"}\nnot json\n',
      'ndjson',
    );
    expect(failedLine(rows[0]!, 'refused', undefined)).toBe(
      '{"triggerId":"t","userId":"a","value":12345678901234567890,"extra":[1],"error":"line 1: refused"}\n',
    );
    expect(JSON.parse(failedLine(rows[1]!, 'bad', undefined))).toEqual({ error: 'line 2: bad', input: 'not json' });
  });

  it('writes --format lines rows as CSV that reads back without options', async () => {
    const source = readRows(Readable.from([Buffer.from('a,b\n')]), 'lines', { trigger: 'welcome' });
    const [row] = (await source.rows[Symbol.asyncIterator]().next()).value as Row[];
    const text = failedHeader(source.header())! + failedLine(row!, 'no answer', source.header());
    expect(text).toBe('triggerId,userId,error\nwelcome,"a,b",line 1: no answer\n');
    const [back] = await rowsOf(text, 'csv');
    expect(back?.event?.path).toBe('/v1/triggers/welcome/users/a%2Cb/events');
  });
});

function rowsFrom(n: number): AsyncIterable<Row[]> {
  return (async function* () {
    for (let i = 0; i < n; i += 10) {
      const chunk: Row[] = [];
      for (let j = i; j < Math.min(n, i + 10); j++) {
        const event: PreparedEvent = { triggerId: 't', userId: `u${j}`, value: undefined, path: `/p/${j}`, body: '{}' };
        chunk.push({
          line: j + 1,
          record: { format: 'csv', fields: ['t', `u${j}`] },
          triggerId: 't',
          userId: `u${j}`,
          value: undefined,
          event,
        });
      }
      yield chunk;
    }
  })();
}

const ok = (event: PreparedEvent): FireResult => ({
  ok: true,
  status: 200,
  statusText: 'OK',
  triggerId: event.triggerId,
  userId: event.userId,
  value: undefined,
  attempts: 1,
  durationMs: 1,
  requestId: undefined,
  response: { success: true },
});

/** Runs rows through a Runner with a sink that keeps every outcome, by line. */
async function runRows(options: Omit<RunOptions, 'sink'> & { sink?: Partial<OutcomeSink> }) {
  const outcomes = new Map<number, Outcome>();
  const counts: Partial<Record<Outcome['kind'], number>> = {};
  const runner = new Runner({
    ...options,
    sink: {
      starting: () => true,
      ...options.sink,
      outcome: (row, outcome) => {
        expect(outcomes.has(row.line)).toBe(false);
        outcomes.set(row.line, outcome);
        counts[outcome.kind] = (counts[outcome.kind] ?? 0) + 1;
        return options.sink?.outcome?.(row, outcome);
      },
    },
  });
  const result = await runner.run();
  return { result, outcomes, counts, runner };
}

describe('the runner', () => {
  it('keeps at most `concurrency` sends in flight and gives every row one outcome', async () => {
    let now = 0;
    let max = 0;
    const { outcomes, counts, runner } = await runRows({
      rows: rowsFrom(100),
      concurrency: 3,
      stop: new AbortController().signal,
      send: async (event) => {
        now++;
        max = Math.max(max, now);
        await new Promise((r) => setTimeout(r, 2));
        now--;
        if (event.userId === 'u7') throw new ServiceError('refused', { status: 404, statusText: 'Not Found', attempts: 1, durationMs: 1 });
        return ok(event);
      },
    });
    expect(max).toBe(3);
    expect(outcomes.size).toBe(100);
    expect(counts).toEqual({ accepted: 99, failed: 1 });
    expect(runner.inFlight).toBe(0);
    expect(outcomes.get(8)?.kind).toBe('failed');
  });

  // The --rate schedule (from the first start, late timers made up) is asserted on a virtual clock
  // in test/unit/batch-time.test.ts: here it was timed with performance.now(), which load moves.

  it('on stop, lets sends in flight finish and reports every other row unsent with the reason, read or not', async () => {
    const stop = new AbortController();
    let sent = 0;
    const { outcomes, counts } = await runRows({
      rows: rowsFrom(50),
      concurrency: 4,
      stop: stop.signal,
      send: async (event) => {
        sent++;
        if (sent === 6) stop.abort({ kind: 'signal', signal: 'SIGTERM' });
        await new Promise((r) => setTimeout(r, 5));
        return ok(event);
      },
    });
    expect(outcomes.size).toBe(50);
    expect(counts.accepted).toBe(sent);
    expect(counts.unsent).toBe(50 - sent);
    expect([...outcomes.values()].find((o) => o.kind === 'unsent')).toEqual({
      kind: 'unsent',
      stop: { kind: 'signal', signal: 'SIGTERM' },
    });
  });

  it('counts a send interrupted in flight as outcome unknown, and one stopped while waiting to retry as unsent', async () => {
    const { counts } = await runRows({
      rows: rowsFrom(4),
      concurrency: 4,
      stop: new AbortController().signal,
      send: async (event) => {
        throw new InterruptedError('interrupted', { attempts: 1, durationMs: 1, notSent: event.userId === 'u0' || event.userId === 'u1' });
      },
    });
    expect(counts).toEqual({ unknown: 2, unsent: 2 });
  });

  it('settles a row the sink already knows without sending it, and does not send a row the sink refuses', async () => {
    const sentIds: string[] = [];
    const { outcomes } = await runRows({
      rows: rowsFrom(4),
      concurrency: 2,
      stop: new AbortController().signal,
      send: async (event) => {
        sentIds.push(event.userId);
        return ok(event);
      },
      sink: {
        before: (row) => (row.line === 2 ? { kind: 'earlier' } : undefined),
        starting: (row) => row.line !== 3,
      },
    });
    expect(sentIds).toEqual(['u0', 'u3']);
    expect([...outcomes.entries()].sort(([a], [b]) => a - b).map(([line, o]) => [line, o.kind])).toEqual([
      [1, 'accepted'],
      [2, 'earlier'],
      [3, 'unsent'],
      [4, 'accepted'],
    ]);
  });

  it('takes rows in input order, holds only the lane whose outcome is still being written, and reads on', async () => {
    const started: number[] = [];
    let release: (() => void) | undefined;
    const { outcomes, result } = await runRows({
      rows: rowsFrom(40),
      concurrency: 4,
      stop: new AbortController().signal,
      send: async (event) => {
        started.push(Number(event.userId.slice(1)));
        await new Promise((r) => setTimeout(r, 1));
        return ok(event);
      },
      sink: {
        // Line 3's outcome waits to be written (a full stdout) until 20 more rows have started.
        outcome: (row) => {
          if (row.line !== 3) {
            if (started.length >= 23) release?.();
            return undefined;
          }
          return new Promise<void>((resolve) => (release = resolve));
        },
      },
    });
    expect(started).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(outcomes.size).toBe(40);
    expect(result).toMatchObject({ lastLine: 40 });
  });

  it('ends the run with the error when the sink fails, sending nothing more and letting sends in flight settle', async () => {
    let inFlight = 0;
    let sent = 0;
    const failure = new Error('disk on fire');
    const run = runRows({
      rows: rowsFrom(100),
      concurrency: 4,
      stop: new AbortController().signal,
      send: async (event) => {
        sent++;
        inFlight++;
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        return ok(event);
      },
      sink: {
        outcome: (row) => {
          if (row.line === 5) throw failure;
        },
      },
    });
    await expect(run).rejects.toBe(failure);
    expect(inFlight).toBe(0);
    expect(sent).toBeLessThanOrEqual(5 + 4);
  });
});

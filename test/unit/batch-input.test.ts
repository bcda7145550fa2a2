/**
 * Input that is not what it should be: a malformed row takes no other row with it, long lines and
 * bad bytes are invalid rows, and reading stays linear.
 */
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLines, type BadLine } from '../../src/batch/lines.js';
import { readRows, type Row } from '../../src/batch/rows.js';
import { failedLine } from '../../src/batch/failed.js';
import { openInputs } from '../../src/batch/input.js';
import { valueTextIn } from '../../src/client/request.js';

async function rowsOf(
  input: string | Buffer | Array<string | Buffer>,
  format: 'csv' | 'ndjson' | 'lines',
  trigger?: string,
): Promise<Row[]> {
  const parts = (Array.isArray(input) ? input : [input]).map((t) => (typeof t === 'string' ? Buffer.from(t) : t));
  const source = readRows(Readable.from(parts), format, { trigger });
  const rows: Row[] = [];
  for await (const chunk of source.rows) rows.push(...chunk);
  return rows;
}

const verdicts = (rows: Row[]) => rows.map((r) => [r.line, r.invalid === undefined ? r.userId : `invalid: ${r.invalid}`]);

describe('reading lines', () => {
  it('finds lines across chunk edges, keeps CR for the reader, and numbers them', async () => {
    const items: Array<[number, string | BadLine]> = [];
    for await (const chunk of readLines(Readable.from([Buffer.from('ab\r\nc'), Buffer.from('d\n\ne'), Buffer.from('\u00e9'.repeat(3))]))) {
      chunk.items.forEach((item, i) => items.push([chunk.first + i, item]));
    }
    expect(items).toEqual([
      [1, 'ab\r'],
      [2, 'cd'],
      [3, ''],
      [4, 'eéé\u00e9'],
    ]);
  });

  it("reads lines ended by CR alone (an old Mac's CSV) as lines; a CRLF a pipe split after its CR stays CRLF", async () => {
    // Was: one line, so a header of every row's fields and no rows.
    expect(verdicts(await rowsOf('triggerId,userId,value\rt,a,1\rt,"b\rc",2\r\rt,d,3', 'csv'))).toEqual([
      [2, 'a'],
      [3, 'b\nc'],
      [6, 'd'],
    ]);
    expect(verdicts(await rowsOf(['triggerId,userId\r', '\nt,a\r\nt,b\r\n'], 'csv'))).toEqual([
      [2, 'a'],
      [3, 'b'],
    ]);
  });

  it('reads CR-only, CRLF and LF lines the same however a pipe splits them, a header piece that ends in its CR too', async () => {
    // Was: a first piece `triggerId,userId\r` (the header, its CR last) left the input undecided; the next piece told CR-only,
    // but line 1 kept its CR and ran on into row 2 (a header "userId\rt" and no userId column).
    const rows = async (pieces: string[]) => verdicts(await rowsOf(pieces, 'csv'));
    expect(await rows(['triggerId,userId\r', 't,a\rt,b\r'])).toEqual([
      [2, 'a'],
      [3, 'b'],
    ]);
    for (const end of ['\r', '\r\n', '\n']) {
      const text = ['triggerId,userId,value', 't,a,1', 't,"b', 'c",2', '', 't,d,3', ''].join(end);
      const whole = await rows([text]);
      expect(whole.map(([, user]) => user)).toEqual(['a', `b${end === '\r\n' ? '\r\n' : '\n'}c`, 'd']);
      for (let cut = 1; cut < text.length; cut++)
        expect({ end, cut, rows: await rows([text.slice(0, cut), text.slice(cut)]) }).toEqual({ end, cut, rows: whole });
      expect(await rows([...text])).toEqual(whole); // a byte at a time
    }
    // The header alone, its CR last, and nothing after it: a header with no rows, not an empty input.
    expect(await rows(['triggerId,userId\r'])).toEqual([]);
  });

  it('reports a line over 1 MiB as one bad line, keeping its start, and goes on with the next', async () => {
    const long = Buffer.alloc(3 * 1024 * 1024, 'x');
    const items: Array<string | BadLine> = [];
    for await (const chunk of readLines(Readable.from([Buffer.from('a\n'), long, Buffer.from('\nb\n')]))) items.push(...chunk.items);
    expect(items).toHaveLength(3);
    expect(items[0]).toBe('a');
    expect(items[1]).toMatchObject({ line: 2, reason: expect.stringContaining('3,145,728 bytes, over the 1 MiB limit') });
    expect((items[1] as BadLine).raw).toBe('x'.repeat(1024));
    expect(items[2]).toBe('b');
  });

  it('makes a line of invalid UTF-8 a bad line naming the byte, and decodes its neighbours', async () => {
    const items: Array<string | BadLine> = [];
    const bytes = Buffer.concat([Buffer.from('ok\nJos'), Buffer.from([0xe9]), Buffer.from('\nMüller\n')]);
    for await (const chunk of readLines(Readable.from([bytes]))) items.push(...chunk.items);
    expect(items[0]).toBe('ok');
    expect(items[1]).toMatchObject({ line: 2, reason: 'not valid UTF-8 text at byte 4 (0xE9); save the file as UTF-8', raw: 'Jos\uFFFD' });
    expect(items[2]).toBe('Müller');
  });
});

describe('malformed CSV', () => {
  it('an unterminated quote is one invalid row at its line; reading resumes at the next line', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `t,u${i}`);
    rows.splice(10, 0, 't,"never closed');
    const result = await rowsOf(`triggerId,userId\n${rows.join('\n')}\n`, 'csv');
    expect(result).toHaveLength(201);
    expect(result.filter((r) => r.invalid)).toEqual([
      expect.objectContaining({
        line: 12,
        invalid: 'a quoted field opens on this line and never closes',
        record: { format: 'csv', raw: 't,"never closed' },
      }),
    ]);
    expect(result.filter((r) => !r.invalid).map((r) => r.userId)).toEqual(Array.from({ length: 200 }, (_, i) => `u${i}`));
  });

  it('a quoted record over 1 MiB is one invalid row, and the rows inside it are read again', async () => {
    // 1.06 MB inside a quote that never closes, in lines of 1 KiB: size is the point, not the count of
    // lines (530 Ki lines of "y" made as many rows to read again, 3 s of this file).
    const big = `t,"${`${'y'.repeat(1023)}\n`.repeat(1060)}`;
    const result = await rowsOf(['triggerId,userId\nt,a\n', big, '\nt,z\n'], 'csv');
    expect(result[0]?.userId).toBe('a');
    expect(result[1]).toMatchObject({ line: 3, invalid: 'a quoted field opens on this line and does not close within 1 MiB' });
    // Each "y" line is read again as a row of its own (one field: wrong count), then "t,z" is valid.
    expect(result.slice(2, -1).map((r) => [r.line, r.invalid !== undefined])).toEqual(
      Array.from({ length: 1059 }, (_, i) => [4 + i, true]),
    );
    expect([result.at(-1)?.userId, result.at(-1)?.invalid]).toEqual(['z', undefined]);
    expect(result.filter((r) => r.invalid === undefined).map((r) => r.userId)).toEqual(['a', 'z']);
  });

  it('a 2 MB line is one invalid row and does not swallow the valid row after it', async () => {
    const result = await rowsOf(`triggerId,userId,value\nt,${'x'.repeat(2 * 1024 * 1024)},1\nt,after,2\n`, 'csv');
    expect(verdicts(result)).toEqual([
      [2, expect.stringMatching(/^invalid: the line is 2,097,15\d bytes, over the 1 MiB limit/)],
      [3, 'after'],
    ]);
  });

  it('keeps quotes inside an unquoted field as text, and a malformed row keeps its raw text in the failed file', async () => {
    const result = await rowsOf('triggerId,userId,value\nt,5" screen,10\nt,"a""b",1\nt,"x"y,2\nt,"open,3\n', 'csv');
    expect(result.slice(0, 3).map((r) => r.userId)).toEqual(['5" screen', 'a"b', 'x"y']);
    const bad = result[3]!;
    expect(bad.invalid).toBe('a quoted field opens on this line and never closes');
    expect(failedLine(bad, `invalid, not sent: ${bad.invalid}`, ['triggerId', 'userId', 'value'])).toBe(
      // As its fields, the open quote's rest one of them: written as read, the quote swallowed the error column (audit23).
      't,"""open,3",,"line 5: invalid, not sent: a quoted field opens on this line and never closes"\n',
    );
  });

  it('a row of invalid UTF-8 is invalid, never sent with replacement characters', async () => {
    const result = await rowsOf(
      Buffer.concat([Buffer.from('triggerId,userId\nt,Jos'), Buffer.from([0xe9]), Buffer.from('\nt,Jos\u00e9\n')]),
      'csv',
    );
    expect(verdicts(result)).toEqual([
      [2, 'invalid: not valid UTF-8 text at byte 6 (0xE9); save the file as UTF-8'],
      [3, 'José'],
    ]);
    expect(result[0]?.event).toBeUndefined();
  });
});

describe('NDJSON and lines', () => {
  it('takes the digits of the top-level value only, never a nested "value"', async () => {
    const [row] = await rowsOf(
      '{"meta":{"value":12345678901234567891},"triggerId":"t","userId":"u","value":12345678901234567890}\n',
      'ndjson',
    );
    expect(row?.event?.body).toBe('{"value":12345678901234567890}');
    const [nestedOnly] = await rowsOf('{"triggerId":"t","userId":"u","value":1.5,"x":[{"value":1.50}]}\n', 'ndjson');
    expect(nestedOnly?.event?.body).toBe('{"value":1.5}');
  });

  it.each([
    ['{"value":1,"x":{"value":2}}', 1, '1'],
    ['{"x":{"value":2},"value":1e0}', 1, '1e0'],
    ['{"x":"\\"value\\":3","value":3.0}', 3, '3.0'],
    ['{"val\\u0075e":7}', 7, '7'],
    ['{"value":1,"value":2}', 2, '2'],
  ])('valueTextIn(%s) finds the top-level digits', (text, value, digits) => {
    expect(valueTextIn(text, value)).toBe(digits);
  });

  it('a 2 MB NDJSON line is one invalid row; the next line is read', async () => {
    const result = await rowsOf(`{"triggerId":"t","userId":"${'x'.repeat(2 * 1024 * 1024)}"}\n{"triggerId":"t","userId":"b"}\n`, 'ndjson');
    expect(verdicts(result)).toEqual([
      [1, expect.stringMatching(/over the 1 MiB limit/)],
      [2, 'b'],
    ]);
  });

  it('--format lines: every non-empty line is a user id as written, white space included', async () => {
    const result = await rowsOf('a\n   \n\n\tb \r\n', 'lines', 'welcome');
    expect(verdicts(result)).toEqual([
      [1, 'a'],
      [2, '   '],
      [4, '\tb '],
    ]);
  });

  it('marks a replayed row whose error says outcome unknown', async () => {
    const result = await rowsOf('triggerId,userId,error\nt,a,line 3: outcome unknown: cancelled in flight\nt,b,line 4: 500 boom\n', 'csv');
    expect(result.map((r) => r.unknownBefore ?? false)).toEqual([true, false]);
    const [nd] = await rowsOf('{"triggerId":"t","userId":"a","error":"line 9: outcome unknown: x"}\n', 'ndjson');
    expect(nd?.unknownBefore).toBe(true);
  });
});

describe('standard input stopped by a signal', () => {
  const readAll = async (input: Awaited<ReturnType<typeof openInputs>>) => {
    const rows: Row[] = [];
    for await (const chunk of input.read({}).rows) rows.push(...chunk);
    return rows;
  };

  it('hands on what was already read up to its last newline, drops and counts a partial line, and ends', async () => {
    const pipe = new PassThrough();
    const input = await openInputs(['-'], { format: 'csv', stdin: pipe });
    pipe.write('triggerId,userId\nt,a\nt,b\nt,c-cut-sh'); // the producer is still writing: no end
    input.stopReading(0);
    const rows = await readAll(input);
    expect(rows.map((r) => r.userId)).toEqual(['a', 'b']);
    expect(input.cut).toEqual({ dropped: 't,c-cut-sh'.length });
    expect(pipe.destroyed).toBe(true);
  });

  it('ends at once when the signal comes while it waits for the producer', async () => {
    const pipe = new PassThrough();
    const input = await openInputs(['-'], { format: 'lines', stdin: pipe });
    pipe.write('a\n');
    const rows = input.read({ trigger: 't' }).rows[Symbol.asyncIterator]();
    expect((await rows.next()).value?.map((r: Row) => r.userId)).toEqual(['a']);
    const next = rows.next(); // waits: nothing more has come
    input.stopReading(0);
    expect((await next).done).toBe(true);
    expect(input.cut).toEqual({ dropped: 0 });
  });

  it('reads to the end when the producer ends first: nothing is cut', async () => {
    const input = await openInputs(['-'], { format: 'csv', stdin: Readable.from([Buffer.from('triggerId,userId\nt,a\nt,b')]) });
    const rows = await readAll(input);
    input.stopReading(0); // after the end: changes nothing
    expect(rows.map((r) => r.userId)).toEqual(['a', 'b']); // a last line without a newline is whole at the end
    expect(input.cut).toBeUndefined();
  });
});

describe('a value out of range in a row', () => {
  it("is named as the row's value in CSV and NDJSON alike, not as the --value flag", async () => {
    const csv = await rowsOf('triggerId,userId,value\nt,a,1e400\n', 'csv');
    const ndjson = await rowsOf('{"triggerId":"t","userId":"a","value":1e400}\n', 'ndjson');
    for (const rows of [csv, ndjson]) {
      expect(rows[0]!.invalid).toMatch(/^value 1e400 /);
    }
  });
});

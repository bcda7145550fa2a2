/**
 * One column rule for the CSV header and the Parquet columns (findColumns): the name as given, else in
 * any case with white space around it ignored, and the same refusals for both readers.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { columnAt, findColumns, parseColumns, readRows } from '../../src/batch/rows.js';

describe('findColumns', () => {
  it('finds the exact name first, else the name in any case with white space around it', () => {
    expect(columnAt(['userid', 'userId'], 'userId')).toBe(1);
    expect(columnAt([' UserID ', 'x'], 'userId')).toBe(0);
    expect(columnAt(['a'], 'error')).toBe(-1);
    expect(findColumns(['value', ' USERID', 'triggerid', 'Error'], {}, 'f')).toEqual({ trigger: 2, user: 1, value: 0, error: 3 });
    expect(findColumns(['user_id', 'amount'], { columns: parseColumns('userId=user_id,value=amount'), trigger: 't' }, 'f')).toEqual({
      trigger: -1,
      user: 0,
      value: 1,
      error: -1,
    });
  });

  it.each([
    ['a column named twice, in any case', ['userId', 'USERID '], {}, /^f names the column "USERID " twice$/],
    ['no userId column', ['triggerId', 'user'], {}, /^f has no userId column \(its columns: triggerId, user\)$/],
    ['no triggerId column and no --trigger', ['userId'], {}, /^f has no triggerId column/],
    [
      'a --columns name the file lacks, even with --trigger',
      ['userId'],
      { columns: parseColumns('triggerId=event'), trigger: 't' },
      /^f has no event column/,
    ],
    ['a --columns value the file lacks', ['userId', 'triggerId'], { columns: parseColumns('value=amount') }, /^f has no amount column/],
  ])('refuses %s, listing the columns', (_name, names, options, message) => {
    let error: unknown;
    try {
      findColumns(names, options, 'f');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it('shortens a long list of columns in the message', () => {
    const names = Array.from({ length: 60 }, (_, i) => `column${i}`);
    const message = (() => {
      try {
        findColumns(names, {}, 'f');
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(message).toMatch(/^f has no userId column \(its columns: column0, column1, .*….*column59 \([\d,]+ characters\)\)$/);
    expect(message.length).toBeLessThan(180);
  });

  it('a CSV without a header row is told the first row must name the columns; other files are not', async () => {
    const csv = readRows(Readable.from(['purchase,alice,9.99\n']), 'csv', {});
    const error = await (async () => {
      for await (const _ of csv.rows);
    })().catch((caught: unknown) => caught as UsageError);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).hint).toMatch(/^the first row must name the columns, e\.g\. triggerId,userId,value/);
    try {
      findColumns(['user_id'], {}, 'f.parquet');
    } catch (caught) {
      expect((caught as UsageError).hint).toBe('name it with --columns userId=<name>');
    }
    expect.assertions(3);
  });
});

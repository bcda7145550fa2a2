/**
 * Standard input stopped by a signal before its CSV header came: nothing was read, so it is no
 * error (an input that ends without a header is one); the partial header is dropped and counted.
 */
import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { openInputs } from '../../src/batch/input.js';

it('a CSV pipe stopped before its header ends with no rows and no error, its partial line counted', async () => {
  const pipe = new PassThrough();
  const input = await openInputs(['-'], { format: 'csv', stdin: pipe });
  pipe.write('triggerId,use');
  const rows = input.read({}).rows[Symbol.asyncIterator]();
  const next = rows.next(); // waits: no whole line yet
  input.stopReading(0);
  expect(await next).toMatchObject({ done: true }); // no rows (the reader's own return value is its last line read)
  expect(input.cut).toEqual({ dropped: 'triggerId,use'.length });
});

it('a CSV pipe that ends without a header is an error, as before', async () => {
  const pipe = new PassThrough();
  const input = await openInputs(['-'], { format: 'csv', stdin: pipe });
  pipe.end('');
  await expect(input.read({}).rows[Symbol.asyncIterator]().next()).rejects.toThrow('the CSV input is empty: no header row');
});

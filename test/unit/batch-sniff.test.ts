/** Line 1 of any input: without --format or a telling name, "{" (after white space or a byte-order mark) is NDJSON; its BOM is no part of a row. */
import { Readable } from 'node:stream';
import { expect, it } from 'vitest';
import { openInputs } from '../../src/batch/input.js';

it.each([
  ['\uFEFF{"userId":"a"}\n', 'ndjson'],
  ['\uFEFF \n{"userId":"a"}\n', 'ndjson'],
  ['\uFEFFuserId,triggerId\n', 'csv'],
])('detects %j from stdin as %s', async (text, format) => {
  const input = await openInputs(['-'], { stdin: Readable.from([Buffer.from(text)]) });
  expect(input.format).toBe(format);
});

it.each([
  ['ndjson', '\uFEFF{"triggerId":"t","userId":"a"}\n'],
  ['lines', '\uFEFFa\n'],
  ['csv', '\uFEFFtriggerId,userId\nt,a\n'],
] as const)('a byte-order mark before line 1 is no part of a %s row', async (format, text) => {
  const input = await openInputs(['-'], { format, stdin: Readable.from([Buffer.from(text)]) });
  const rows = [];
  for await (const chunk of input.read({ trigger: 't' }).rows) rows.push(...chunk);
  expect(rows.map((r) => [r.userId, r.invalid])).toEqual([['a', undefined]]);
});

/** Without --format or a telling name, the first bytes decide: "{" (after white space or a byte-order mark) is NDJSON. */
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

/**
 * A bound too small for a double (1e-400, 0. and 400 zeros and a 1) is read by JSON.parse as 0; it
 * is a catalog problem with its line, in the lean path (parseCatalog) and the full one.
 */
import { describe, expect, it } from 'vitest';
import { catalogProblems, parseCatalog } from '../../src/catalog/load.js';

const catalog = (bound: string, field = 'min') => `{\n  "triggers": {\n    "refund": {\n      "${field}": ${bound}\n    }\n  }\n}\n`;

describe('bounds that underflow', () => {
  it.each(['1e-400', '-1e-400', '2.5E-999', `0.${'0'.repeat(400)}1`, '1000e-330'])('%s is a problem on its line', (bound) => {
    for (const field of ['min', 'max']) {
      const text = catalog(bound, field);
      const parsed = parseCatalog(text);
      expect(parsed.data).toBeUndefined();
      expect(parsed.problems).toEqual([
        { message: `${bound} is too small for a number: a double reads it as 0 (write 0 if that is meant)`, line: 4 },
      ]);
      expect(catalogProblems(JSON.parse(text), text)).toEqual(parsed.problems);
    }
  });

  it.each(['0', '0.0', '-0', '0e-400', '1e-300', '0.5'])('%s is a bound as written', (bound) => {
    expect(parseCatalog(catalog(bound)).problems).toEqual([]);
  });

  it('a string that looks like one is not a number', () => {
    const text = `{"triggers":{"refund":{"min":0,"description":"1e-400"}}}`;
    expect(parseCatalog(text).problems).toEqual([]);
  });
});

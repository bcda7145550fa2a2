/**
 * The catalog's rules, as tables: exact comparison of decimals, loading (problems named with their
 * line), resolution for a profile, "did you mean", value rules and the row check.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareDecimal } from '../../src/catalog/decimal.js';
import { editDistance } from '../../src/catalog/distance.js';
import { findCatalog } from '../../src/catalog/find.js';
import { loadCatalog, parseCatalog, triggerIdsFor, type Catalog, type CatalogData } from '../../src/catalog/load.js';
import { rowChecker, TriggerResolver } from '../../src/catalog/resolve.js';
import { wholeTable } from '../helpers/distance.js';

describe('compareDecimal', () => {
  it.each([
    ['100.0000000000000001', '100', 1],
    ['100', '100.0000000000000001', -1],
    ['99.99999999999999999', '100', -1],
    ['100.000', '100', 0],
    ['1e2', '100', 0],
    ['1E+2', '100.0', 0],
    ['0.5', '.5', 0],
    ['-0', '0', 0],
    ['-1', '0', -1],
    ['-0.0000000000000000001', '0', -1],
    ['-2', '-10', 1],
    ['12345678901234567891', '12345678901234567890', 1],
    ['1e21', '1e+21', 0],
    ['5e-7', '0.0000005', 0],
    ['0.0000006', '5e-7', 1],
    ['+3', '3', 0],
  ])('%s vs %s is %i', (a, b, expected) => {
    expect(compareDecimal(a, b)).toBe(expected);
  });
});

const contractCatalog: CatalogData = {
  triggers: {
    purchase: { name: 'Purchase completed', value: 'required', min: 0, max: 100 },
    signup: { name: 'Signed up', value: 'none', ids: { staging: 'signup-test' } },
    'old-promo': { name: 'Old promo', deprecated: 'use promo-2026' },
  },
};
const catalogOf = (data: CatalogData): Catalog => ({ path: '/team/triggers.json', text: JSON.stringify(data), data });

describe('loading', () => {
  it.each([
    ['{"triggers": {}', /not valid JSON: .* \(line 1, column 16\)/],
    ['{\n  "triggers": {\n    "a": {},\n  }\n}', /not valid JSON: .*\(line 4, column 3\)/],
    ['', /not valid JSON: the file ends too early \(line 1, column 1\)/],
    ['{"triggers": {"a": {"value": "requird"}}}', /trigger "a": "value" must be "required", "optional" or "none", not "requird"/],
    ['{"triggers": {"a": {"min": 3, "max": 2}}}', /trigger "a": "min" \(3\) is above "max" \(2\)/],
    [
      '{"triggers": {"a": {"ids": {"staging": "x"}}, "b": {"ids": {"staging": "x"}}}}',
      /triggers "a" and "b" have one id, "x", in profile staging/,
    ],
    ['{"triggers": {"a": {"nmae": "A"}}}', /trigger "a": unknown field "nmae"/],
  ])('%j: %s', (text, problem) => {
    const parsed = parseCatalog(text);
    expect(parsed.data).toBeUndefined();
    expect(parsed.problems[0]!.message).toMatch(problem);
  });

  // Each piece of the file echoed in a problem is cut to its start, its end and its length (fix26b), as a long --value is.
  const long = (c: string) => c.repeat(5_000);
  const cut = (c: string) => `"${c.repeat(40)}…${c.repeat(12)}" (5,000 characters)`;
  it.each([
    [{ [long('t')]: 1, triggers: {} }, `unknown field ${cut('t')} (a catalog has`],
    [{ triggers: { a: { [long('f')]: 1 } } }, `trigger "a": unknown field ${cut('f')} (known: `],
    [{ triggers: { a: { value: long('v') } } }, `trigger "a": "value" must be "required", "optional" or "none", not ${cut('v')}`],
    [{ triggers: { a: long('e') } }, `trigger "a": must be an object such as {"name": "..."}, not ${cut('e')}`],
    [{ triggers: long('s') }, `"triggers" must be an object, not ${cut('s')}`],
    [{ triggers: { [long('k')]: { value: 'x' } } }, `trigger ${cut('k')}: "value" must be`],
    [
      { triggers: { a: { ids: { s: long('i') } }, b: { ids: { s: long('i') } } } },
      `triggers "a" and "b" have one id, ${cut('i')}, in profile s`,
    ],
    [
      { triggers: { [long('i')]: {}, b: { ids: { s: long('i') } } } },
      `in profile s, ${cut('i')} is both the trigger of that name and the id of "b"`,
    ],
  ])('a long piece echoed cut: %#', (data, message) => {
    const problems = parseCatalog(JSON.stringify(data)).problems;
    expect(problems.map((p) => p.message)).toEqual([expect.stringContaining(message)]);
    expect(problems[0]!.message.length).toBeLessThan(300);
  });

  it('names the line of the trigger a problem is about', () => {
    const text = '{\n  "triggers": {\n    "good": {},\n    "bad": { "value": "maybe" }\n  }\n}\n';
    expect(parseCatalog(text).problems).toEqual([expect.objectContaining({ line: 4 })]);
  });

  it('a file that cannot be used stops with exit 2, naming the file and the line', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-'));
    const file = path.join(dir, 'triggers.json');
    fs.writeFileSync(file, '{\n "triggers": {\n  "a": {"value": "maybe"}\n }\n}');
    expect(() => loadCatalog(file)).toThrowError(expect.objectContaining({ exitCode: 2, message: expect.stringContaining(`${file}:3:`) }));
    expect(() => loadCatalog(path.join(dir, 'missing.json'))).toThrowError(/cannot read catalog .*missing.json: no such file/);
    fs.rmSync(dir, { recursive: true });
  });

  it('triggerIdsFor lists the ids the profile sends, in catalog order', () => {
    expect(triggerIdsFor(catalogOf(contractCatalog), 'default')).toEqual(['purchase', 'signup', 'old-promo']);
    expect(triggerIdsFor(catalogOf(contractCatalog), 'staging')).toEqual(['purchase', 'signup-test', 'old-promo']);
  });
});

describe('findCatalog', () => {
  it('looks in the folder and its parents; the flag and TRIGGER_CATALOG name one; --no-catalog ignores it', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-find-'));
    const deep = path.join(root, 'a', 'b');
    fs.mkdirSync(deep, { recursive: true });
    expect(findCatalog({ cwd: deep, env: {} })).toBeUndefined();
    fs.writeFileSync(path.join(root, 'triggers.json'), '{"triggers":{}}');
    expect(findCatalog({ cwd: deep, env: {} })).toEqual({ path: path.join(root, 'triggers.json'), source: 'found' });
    fs.mkdirSync(path.join(root, 'a', 'triggers.json')); // a folder of that name is not a catalog
    expect(findCatalog({ cwd: deep, env: {} })?.path).toBe(path.join(root, 'triggers.json'));
    expect(findCatalog({ cwd: deep, env: { TRIGGER_CATALOG: 'x.json' } })).toEqual({ path: path.join(deep, 'x.json'), source: 'env' });
    expect(findCatalog({ cwd: deep, env: { TRIGGER_CATALOG: 'x.json' }, flag: '/y.json' })).toEqual({ path: '/y.json', source: 'flag' });
    expect(findCatalog({ cwd: deep, env: { TRIGGER_CATALOG: 'x.json' }, flag: false })).toBeUndefined();
    fs.rmSync(root, { recursive: true });
  });
});

describe('resolution for a profile', () => {
  const catalog = catalogOf(contractCatalog);
  it.each([
    ['default', 'purchase', 'purchase'],
    ['default', 'signup', 'signup'],
    ['staging', 'signup', 'signup-test'],
    ['staging', 'signup-test', 'signup-test'],
    ['production', 'signup', 'signup'],
    ['constructor', 'signup', 'signup'], // a profile named like an Object member
    ['toString', 'purchase', 'purchase'],
  ])('in %s, %s is sent as %s', (profile, given, sent) => {
    const found = new TriggerResolver(catalog, profile).resolve(given);
    expect(found.ok && found.trigger.id).toBe(sent);
  });

  it.each([
    ['default', 'purchse', 'purchase'],
    ['default', 'Purchase', 'purchase'],
    ['default', 'signup-test', 'signup'], // a staging id used against production
    ['production', 'signup-tst', 'signup'],
    ['staging', 'signpu', 'signup-test'],
    ['default', 'old-prom', 'old-promo'],
    ['default', 'refund', undefined],
    ['default', 'p', undefined],
  ])('in %s, %s is refused (did you mean %s?)', (profile, given, suggestion) => {
    const found = new TriggerResolver(catalog, profile).resolve(given);
    expect(found.ok).toBe(false);
    if (found.ok) return;
    expect(found.suggestion).toBe(suggestion);
    expect(found.message).toContain('/team/triggers.json');
    if (suggestion) expect(found.message).toContain(`did you mean ${suggestion}?`);
    else expect(found.message).not.toContain('did you mean');
  });

  it.each([
    ['purchase', undefined, /requires a value/],
    ['purchase', '-0.0000000000000000001', /below the minimum 0/],
    ['purchase', '100.0000000000000001', /above the maximum 100/],
    ['purchase', '100', undefined],
    ['purchase', '0', undefined],
    ['purchase', '1e2', undefined],
    ['purchase', '1.00001e2', /above the maximum/],
    ['signup', '1', /takes no value/],
    ['signup', undefined, undefined],
    ['old-promo', '12345678901234567890', undefined],
    ['old-promo', undefined, undefined],
  ])('%s with value %s: %s', (key, value, problem) => {
    const resolver = new TriggerResolver(catalog, 'default');
    const found = resolver.resolve(key);
    if (!found.ok) throw new Error('unknown');
    const result = resolver.valueProblem(found.trigger, value);
    if (problem) expect(result).toMatch(problem);
    else expect(result).toBeUndefined();
  });
});

describe('the row check', () => {
  it('gives the id to send or why not, warns once per deprecated trigger, and suggests once per unknown name', () => {
    const resolver = new TriggerResolver(catalogOf(contractCatalog), 'staging');
    const warnings: Array<[string, number]> = [];
    const check = rowChecker(resolver, (message, line) => warnings.push([message, line]));
    expect(check('signup', undefined, 2)).toEqual({ id: 'signup-test' });
    expect(check('purchase', '5', 3)).toEqual({ id: 'purchase' });
    expect(check('purchase', '500', 4).invalid).toMatch(/above the maximum 100/);
    expect(check('old-promo', undefined, 5)).toEqual({ id: 'old-promo' });
    expect(check('old-promo', undefined, 6)).toEqual({ id: 'old-promo' });
    expect(warnings).toEqual([[expect.stringMatching(/^warning: trigger old-promo is deprecated: use promo-2026/), 5]]);
    const first = check('purchse', '1', 7);
    expect(first.invalid).toMatch(/did you mean purchase\?/);
    expect(check('purchse', '1', 8).invalid).toBe(first.invalid);
  });
});

describe('editDistance', () => {
  it.each([
    ['purchase', 'purchase', 0],
    ['purchse', 'purchase', 1],
    ['purhcase', 'purchase', 1],
    ['', 'abc', 3],
    ['signup', 'signpu', 1],
  ])('%s / %s: %i', (a, b, d) => expect(editDistance(a, b)).toBe(d));

  // With a cap: the distance when it is at most the cap, else cap + 1 (audit28 #10: worked out no further).
  it.each([
    ['purchse', 'purchase', 1, 1],
    ['purhcase', 'purchase', 1, 1],
    ['purhcase', 'purchase', 0, 1],
    ['abcdef', 'badcfe', 3, 3],
    ['abcdef', 'badcfe', 2, 3],
    ['user-00000000', 'checkout-step-0', 5, 6],
    ['y'.repeat(200) + '1', 'x'.repeat(200) + '0', 68, 69],
    ['x'.repeat(200) + '12', 'x'.repeat(200) + '21', 68, 1],
    ['x'.repeat(150) + 'ab', 'ab' + 'x'.repeat(150), 68, 4],
    ['x'.repeat(150) + 'ab', 'ab' + 'x'.repeat(150), 3, 4],
    ['abc', 'abcdefgh', 4, 5], // the lengths alone
    ['aabb', 'bbaa', 2, 3], // the same letters, further apart
  ])('%s / %s within %i: %i', (a, b, cap, d) => expect(editDistance(a, b, cap)).toBe(d));

  it('agrees with the whole table below the cap, on 3,000 pairs of random names', () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
    const name = () => Array.from({ length: random(14) }, () => 'abcAé-'[random(6)]).join('');
    for (let i = 0; i < 3000; i++) {
      const [a, b, cap] = [name(), name(), random(8)];
      expect(editDistance(a, b, cap), `${a} / ${b} within ${cap}`).toBe(Math.min(wholeTable(a, b), cap + 1));
    }
  });
});

/**
 * triggers.schema.json (what editors check) and the loader (what the tool refuses) agree: every
 * example the loader accepts validates, and every one it refuses does not, except the rules a JSON
 * Schema cannot state (listed below), which the schema accepts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { catalogProblems, isPlainValid } from '../../src/catalog/load.js';
import { catalogText, newCatalog } from '../../src/catalog/write.js';
import { ROOT } from '../helpers/cli.js';

const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'triggers.schema.json'), 'utf8')) as object;
const validate = new Ajv({ allErrors: true }).compile(schema);

const t = (triggers: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ triggers, ...extra });

const accepted: Array<[string, unknown]> = [
  [
    'the contract example',
    t(
      {
        purchase: { name: 'Purchase completed', value: 'required', min: 0 },
        signup: { name: 'Signed up', value: 'none', ids: { staging: 'signup-test' } },
        'old-promo': { name: 'Old promo', deprecated: 'use promo-2026' },
      },
      { $schema: './node_modules/trigger-cli/triggers.schema.json' },
    ),
  ],
  ['no triggers yet', t({})],
  ['an entry with nothing', t({ a: {} })],
  [
    'every field',
    t({
      a: { name: 'A', description: '', value: 'optional', min: -1.5, max: 1e3, deprecated: 'x', ids: { prod: 'a-1', 'st.g_2': 'a-2' } },
    }),
  ],
  ['min equal to max', t({ a: { min: 5, max: 5 } })],
  ['odd ids', t({ 'a b/c?': {}, ünï: { ids: { staging: '..' } } })],
];

const refused: Array<[string, unknown]> = [
  ['not an object', []],
  ['a string', 'triggers'],
  ['no triggers', {}],
  ['triggers is an array', { triggers: [] }],
  ['an unknown top-level field', t({}, { trigers: {} })],
  ['$schema not a string', t({}, { $schema: 1 })],
  ['an entry that is a string', t({ a: 'Purchase' })],
  ['an entry that is null', t({ a: null })],
  ['an unknown field', t({ a: { nmae: 'A' } })],
  ['a value rule that is not one of the three', t({ a: { value: 'requird' } })],
  ['a value rule that is a boolean', t({ a: { value: true } })],
  ['min as a string', t({ a: { min: '0' } })],
  ['max as null', t({ a: { max: null } })],
  ['a bound with value none', t({ a: { value: 'none', min: 0 } })],
  ['an empty trigger id', t({ '': {} })],
  ['a blank trigger id', t({ '  ': {} })],
  ['an empty name', t({ a: { name: '' } })],
  ['a blank deprecation', t({ a: { deprecated: ' ' } })],
  ['deprecated as true', t({ a: { deprecated: true } })],
  ['ids as an array', t({ a: { ids: ['x'] } })],
  ['an empty id in a profile', t({ a: { ids: { staging: '' } } })],
  ['an id that is a number', t({ a: { ids: { staging: 5 } } })],
  ['a profile name that cannot be one', t({ a: { ids: { 'stag ing': 'x' } } })],
  ['a name that is a number', t({ a: { name: 1 } })],
];

/** Refused by the loader, but beyond what a JSON Schema states: the schema accepts them. */
const loaderOnly: Array<[string, unknown]> = [
  ['min above max', t({ a: { min: 2, max: 1 } })],
  ['two triggers with one id in a profile', t({ a: { ids: { staging: 'x' } }, b: { ids: { staging: 'x' } } })],
  ["a profile's id that is another trigger's key", t({ a: { ids: { staging: 'b' } }, b: {} })],
];

/** More cases for the fast check (isPlainValid, used on every fire) against the full one. */
const extraLoaderCases: Array<[string, unknown]> = [
  ["an id that is another trigger's key, which has its own id there", t({ a: { ids: { staging: 'b' } }, b: { ids: { staging: 'c' } } })],
  ['ids swapped between two triggers', t({ a: { ids: { staging: 'b' } }, b: { ids: { staging: 'a' } } })],
  ['an id equal to its own key', t({ a: { ids: { staging: 'a' } } })],
  ['ids in two profiles', t({ a: { ids: { staging: 'x', eu: 'x' } }, b: { ids: { staging: 'y', eu: 'z' } } })],
  ['one id in two profiles for two triggers', t({ a: { ids: { staging: 'x' } }, b: { ids: { eu: 'x' } } })],
  ['a profile named default', t({ a: { ids: { default: 'b' } }, b: {} })],
  ['max with value none', t({ a: { value: 'none', max: 1 } })],
  ['bounds with value required', t({ a: { value: 'required', min: -5, max: -1 } })],
];

describe('triggers.schema.json and the loader', () => {
  it.each(accepted)('both accept: %s', (_name, example) => {
    expect(catalogProblems(example, JSON.stringify(example))).toEqual([]);
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(refused)('both refuse: %s', (_name, example) => {
    expect(catalogProblems(example, JSON.stringify(example)).length).toBeGreaterThan(0);
    expect(validate(example)).toBe(false);
  });

  it.each(loaderOnly)('the loader refuses what the schema cannot state: %s', (_name, example) => {
    expect(catalogProblems(example, JSON.stringify(example)).length).toBeGreaterThan(0);
    expect(validate(example)).toBe(true);
  });

  it.each([...accepted, ...refused, ...loaderOnly, ...extraLoaderCases])(
    'the fast check agrees with the full one: %s',
    (_name, example) => {
      expect(isPlainValid(example)).toBe(catalogProblems(example, JSON.stringify(example)).length === 0);
    },
  );

  it('a catalog the tool creates names the schema the package ships, and validates', () => {
    const created = JSON.parse(catalogText(newCatalog({ ref: './node_modules/trigger-cli/triggers.schema.json' }))) as { $schema: string };
    expect(created.$schema).toBe('./node_modules/trigger-cli/triggers.schema.json');
    expect(validate(created)).toBe(true);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('triggers.schema.json');
  });
});

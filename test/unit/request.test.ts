import { describe, expect, it } from 'vitest';
import { encodeSegment, eventPath, parseValue, prepareEvent, valueFromInput } from '../../src/client/request.js';
import { UsageError } from '../../src/errors.js';

describe('encodeSegment', () => {
  it.each([
    ['alice', 'alice'],
    ['alice@example.com', 'alice%40example.com'],
    ['.', '%2E'],
    ['..', '%2E%2E'],
    ['...', '%2E%2E%2E'],
    ['a.b', 'a.b'],
    ['a/b', 'a%2Fb'],
    ['../../admin', '..%2F..%2Fadmin'],
    ['what?', 'what%3F'],
    ['#1', '%231'],
    ['100%', '100%25'],
    ['%2E%2E', '%252E%252E'],
    ['first last', 'first%20last'],
    ['a+b', 'a%2Bb'],
    ["o'brien(1)*!", 'o%27brien%281%29%2A%21'],
    ['josé', 'jos%C3%A9'],
    ['😀', '%F0%9F%98%80'],
    ['tab\there', 'tab%09here'],
  ])('%j becomes %s', (input, expected) => {
    expect(encodeSegment(input, 'userId')).toBe(expected);
    // The server decodes it back to the same string.
    expect(decodeURIComponent(expected)).toBe(input);
  });

  it.each([
    ['', /userId must not be empty/],
    ['\ud800', /unpaired surrogate/],
    ['a\udc00b', /unpaired surrogate/],
  ])('refuses %j', (input, message) => {
    expect(() => encodeSegment(input, 'userId')).toThrow(UsageError);
    expect(() => encodeSegment(input, 'userId')).toThrow(message);
  });

  it('never yields a dot-segment in the event path', () => {
    for (const id of ['.', '..']) {
      const path = eventPath('t', id);
      expect(path.split('/')).not.toContain('..');
      expect(path.split('/')).not.toContain('.');
      expect(path).toBe(`/v1/triggers/t/users/${id === '.' ? '%2E' : '%2E%2E'}/events`);
    }
  });
});

describe('parseValue', () => {
  it.each([
    ['9.99', '9.99'],
    ['-3', '-3'],
    ['0', '0'],
    ['-0', '-0'],
    ['1e3', '1e3'],
    ['1E+3', '1e+3'],
    ['2.5e-3', '2.5e-3'],
    ['.5', '0.5'],
    ['-.5', '-0.5'],
    ['+2', '2'],
    ['5.', '5'],
    ['007', '7'],
    ['00.25', '0.25'],
    [' 42 ', '42'],
    ['12345678901234567890', '12345678901234567890'],
    ['0.1000000000000000055511151231257827', '0.1000000000000000055511151231257827'],
    ['1.7976931348623157e308', '1.7976931348623157e308'],
  ])('%j is sent as %s', (input, json) => {
    const parsed = parseValue(input);
    expect(parsed.json).toBe(json);
    // What is sent is valid JSON and the same number.
    expect(JSON.parse(parsed.json)).toBe(Number(input));
  });

  it.each([
    '',
    ' ',
    'NaN',
    'nan',
    'Infinity',
    '-Infinity',
    '0x10',
    '1,5',
    '9.99abc',
    'abc',
    '1e',
    '.',
    '-',
    '+',
    '1e999',
    '-1e999',
    '1e-999',
    '1_000',
    '١٢',
    '1e3.5',
    '--1',
  ])('refuses %j', (input) => {
    expect(() => parseValue(input)).toThrow(UsageError);
  });

  it('says what was wrong and what is accepted', () => {
    expect(() => parseValue('1,5')).toThrow('--value must be a decimal number such as 9.99, -3 or 1e3; got "1,5"');
    expect(() => parseValue('1e999')).toThrow('beyond the range of a double');
  });

  it('gives plain JSON numbers back as they are, and still refuses long ones out of range', () => {
    // The fast path takes up to 300 digits on either side of the point; beyond, the full check runs.
    const big = `1${'0'.repeat(299)}`;
    expect(parseValue(big).json).toBe(big);
    expect(parseValue(`${big}.5`).json).toBe(`${big}.5`);
    expect(parseValue(`0.${'0'.repeat(299)}1`).json).toBe(`0.${'0'.repeat(299)}1`);
    expect(() => parseValue(`1${'0'.repeat(400)}`)).toThrow('beyond the range of a double');
    expect(() => parseValue(`0.${'0'.repeat(400)}1`)).toThrow('too small to represent');
    expect(parseValue('00.50').json).toBe('0.50');
    expect(parseValue(' 7 ').json).toBe('7');
  });
});

describe('prepareEvent', () => {
  it('sends {} without a value and {"value": n} with the typed digits', () => {
    expect(prepareEvent({ triggerId: 'purchase', userId: 'alice' }).body).toBe('{}');
    expect(prepareEvent({ triggerId: 'purchase', userId: 'alice', value: '12345678901234567890' }).body).toBe(
      '{"value":12345678901234567890}',
    );
    expect(prepareEvent({ triggerId: 'p', userId: 'u', value: 9.99 }).body).toBe('{"value":9.99}');
  });

  it('refuses non-finite numbers from library callers', () => {
    expect(() => valueFromInput(Number.NaN)).toThrow(UsageError);
    expect(() => valueFromInput(Number.POSITIVE_INFINITY)).toThrow(UsageError);
  });

  it('refuses empty ids', () => {
    expect(() => prepareEvent({ triggerId: '', userId: 'u' })).toThrow('triggerId must not be empty');
    expect(() => prepareEvent({ triggerId: 't', userId: '' })).toThrow('userId must not be empty');
  });
});

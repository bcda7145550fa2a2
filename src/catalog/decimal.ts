/**
 * Comparing decimal numbers as written, exactly: "100.0000000000000001" is above "100", which a
 * double cannot tell. Pure; the value of a row is compared as the JSON text it is sent as.
 */

interface Decimal {
  negative: boolean;
  /** Significant digits, without leading or trailing zeros; "" for zero. */
  digits: string;
  /** The value is 0.<digits> × 10^point. */
  point: number;
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

function decimal(text: string): Decimal {
  const m = DECIMAL.exec(text.trim());
  if (!m || (m[2] === '' && !m[3])) throw new Error(`not a decimal number: ${JSON.stringify(text)}`);
  const int = m[2] ?? '';
  const all = int + (m[3] ?? '');
  let point = int.length + Number(m[4] ?? '0');
  let start = 0;
  while (start < all.length && all.charCodeAt(start) === 48) start++;
  point -= start;
  let end = all.length;
  while (end > start && all.charCodeAt(end - 1) === 48) end--;
  const digits = all.slice(start, end);
  return { negative: m[1] === '-' && digits !== '', digits, point: digits === '' ? 0 : point };
}

function compareMagnitude(a: Decimal, b: Decimal): number {
  if (a.digits === '' || b.digits === '') return (a.digits === '' ? 0 : 1) - (b.digits === '' ? 0 : 1);
  if (a.point !== b.point) return a.point < b.point ? -1 : 1;
  // Without trailing zeros, the digits compare as text: "12" (0.12) is below "123" and "2".
  return a.digits === b.digits ? 0 : a.digits < b.digits ? -1 : 1;
}

/** -1, 0 or 1 as a is below, equal to or above b; both are decimal texts ("9.99", "-3", "1e3", "1e+21"). */
export function compareDecimal(a: string, b: string): number {
  const x = decimal(a);
  const y = decimal(b);
  if (x.negative !== y.negative) return x.negative ? -1 : 1;
  const m = compareMagnitude(x, y);
  return x.negative ? -m : m;
}

/** Decimals compared exactly as written ("100.0000000000000001" is above "100": a double cannot tell); a row's value as the JSON sent. */
import { DECIMAL } from '../client/request.js';

interface Decimal {
  sign: number; // -1, 0 or 1.
  digits: string; // Significant digits, without leading or trailing zeros; "" for zero.
  point: number; // The value is 0.<digits> × 10^point.
}

function decimal(text: string): Decimal {
  const m = DECIMAL.exec(text.trim());
  if (!m || (m[2] === '' && !m[3])) throw new Error(`not a decimal number: ${JSON.stringify(text)}`);
  const int = m[2] ?? '';
  const all = int + (m[3] ?? '');
  const leading = all.length - all.replace(/^0+/, '').length;
  const digits = all.slice(leading).replace(/0+$/, '');
  if (digits === '') return { sign: 0, digits: '', point: 0 };
  return { sign: m[1] === '-' ? -1 : 1, digits, point: int.length + Number(m[4] ?? '0') - leading };
}

/** -1, 0 or 1 as a is below, equal to or above b; both are decimal texts ("9.99", "-3", "1e3", "1e+21"). */
export function compareDecimal(a: string, b: string): number {
  const x = decimal(a);
  const y = decimal(b);
  if (x.sign !== y.sign) return Math.sign(x.sign - y.sign);
  // One sign: the first digit's place decides the magnitude, then the digits, without trailing zeros compared as text ("12", 0.12, < "2").
  if (x.point !== y.point) return x.point < y.point ? -x.sign : x.sign;
  if (x.digits === y.digits) return 0;
  return x.digits < y.digits ? -x.sign : x.sign;
}

// Exact decimal arithmetic for the rules: xs:decimal values as the XML wrote them, never floats.
import Big from "big.js";
import { xmlTrim } from "../document/model.js";

export type Decimal = Big;

// xs:decimal lexical form: optional sign, digits with at most one point, no exponent.
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/**
 * The widest decimal the rules read: at most 19 digits before the point and 19 after, as written. The UBL
 * schema's xs:decimal has no bound, but arithmetic on unbounded digits costs the square of their length (a
 * 20,000-digit amount took seconds); 19 + 19 digits hold any amount, quantity or rate of a real invoice (the
 * corpus needs at most 8 and 9), up to SQL's DECIMAL(38, 19). `requireBoundedDecimals` refuses a document
 * with a longer value before any rule runs.
 */
export const MAX_INTEGER_DIGITS = 19;
export const MAX_FRACTION_DIGITS = 19;

/** The digits before and after the point of a decimal or xs:double text as written (sign, exponent and whitespace aside), or null when it is neither. */
export function digitsOf(text: string): { integer: number; fraction: number } | null {
  const m = /^[ \t\r\n]*[+-]?(\d*)(?:\.(\d*))?(?:[eE][+-]?\d+)?[ \t\r\n]*$/.exec(text);
  if (!m || (m[1] === "" && !m[2])) return null;
  return { integer: m[1]!.length, fraction: m[2]?.length ?? 0 };
}

/** True when a decimal text is within MAX_INTEGER_DIGITS and MAX_FRACTION_DIGITS. */
export function withinDigits(text: string): boolean {
  const d = digitsOf(text);
  return d === null || (d.integer <= MAX_INTEGER_DIGITS && d.fraction <= MAX_FRACTION_DIGITS);
}

/**
 * The xs:decimal value of a text (XML whitespace trimmed), or null when it is not one, or when it has more
 * digits than the rules read (see MAX_INTEGER_DIGITS; a document with one is refused before the rules run).
 */
export function dec(text: string | null | undefined): Decimal | null {
  if (text == null) return null;
  // Amounts are almost always written without surrounding whitespace: xmlTrim then gives the text itself.
  const t = xmlTrim(text);
  // A text no longer than either bound cannot exceed it: the digit count is looked at only past that.
  if (!DECIMAL.test(t) || (t.length > Math.min(MAX_INTEGER_DIGITS, MAX_FRACTION_DIGITS) && !withinDigits(t))) return null;
  return new Big(t.startsWith("+") ? t.slice(1) : t.startsWith(".") ? "0" + t : t.startsWith("-.") ? "-0" + t.slice(1) : t);
}

/** A decimal from a number literal in a rule (exact for literals such as 0.01). */
export function lit(value: string | number): Decimal {
  return new Big(value);
}

/** XPath round(x, 2) for xs:decimal: half rounds towards positive infinity. */
export function round2(x: Decimal): Decimal {
  // XPath round() rounds half towards +infinity, floor(x * 100 + 0.5) / 100. At or above zero that is
  // big.js's half away from zero. Below zero a half goes towards zero: cut to two places (towards zero),
  // then step down by a cent when the part cut off is more than half a cent. No division.
  if (x.gte(ZERO)) return x.round(2, Big.roundHalfUp);
  const cut = x.round(2, Big.roundDown);
  return cut.minus(x).gt(HALF_CENT) ? cut.minus(CENT) : cut;
}
/** Decimals the rules compare and compute with, made once: big.js parses a number literal again at each call that takes one. */
export const ZERO = new Big(0);
export const ONE = new Big(1);
export const HALF = new Big("0.5");
export const HUNDRED = new Big(100);
const CENT = new Big("0.01");
const HALF_CENT = new Big("0.005");

/** Sum of decimals (0 for none). */
export function sum(values: Iterable<Decimal>): Decimal {
  let s = new Big(0);
  for (const v of values) s = s.plus(v);
  return s;
}

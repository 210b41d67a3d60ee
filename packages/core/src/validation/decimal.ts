// Exact decimal arithmetic for the rules: xs:decimal values as the XML wrote them, never floats.
import Big from "big.js";

export type Decimal = Big;

// xs:decimal lexical form: optional sign, digits with at most one point, no exponent.
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** The xs:decimal value of a text (XML whitespace trimmed), or null when it is not one. */
export function dec(text: string | null | undefined): Decimal | null {
  if (text == null) return null;
  const t = text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
  if (!DECIMAL.test(t)) return null;
  return new Big(t.startsWith("+") ? t.slice(1) : t.startsWith(".") ? "0" + t : t.startsWith("-.") ? "-0" + t.slice(1) : t);
}

/** A decimal from a number literal in a rule (exact for literals such as 0.01). */
export function lit(value: string | number): Decimal {
  return new Big(value);
}

/** XPath round(x, 2) for xs:decimal: half rounds towards positive infinity. */
export function round2(x: Decimal): Decimal {
  // XPath round() rounds half towards +infinity: floor(x * 100 + 0.5) / 100.
  const y = x.times(100).plus(0.5);
  const t = y.round(0, Big.roundDown);
  return (y.gte(0) || t.eq(y) ? t : t.minus(1)).div(100);
}

/** Sum of decimals (0 for none). */
export function sum(values: Iterable<Decimal>): Decimal {
  let s = new Big(0);
  for (const v of values) s = s.plus(v);
  return s;
}

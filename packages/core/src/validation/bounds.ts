// The values the rules compute with, bounded before any rule runs: a decimal longer than any invoice needs
// refuses the document (its arithmetic would cost the square of its length).
import { ApiError } from "../domain/errors.js";
import { digitsOf, MAX_FRACTION_DIGITS, MAX_INTEGER_DIGITS } from "./decimal.js";
import { locationOf, NS, type DocumentNode } from "../document/model.js";

// UBL and CII name an element by its representation term: these are the decimal ones (AmountType, QuantityType,
// MeasureType, NumericType, PercentType, RateType), e.g. cbc:TaxableAmount, cbc:InvoicedQuantity, cbc:Percent, ram:BilledQuantity, ram:RateApplicablePercent.
const DECIMAL_TERM = /(Amount|Quantity|Measure|Numeric|Percent|Rate)$/;
/** A text this short cannot pass either bound. */
const SHORT = Math.min(MAX_INTEGER_DIGITS, MAX_FRACTION_DIGITS);

/**
 * Throws `invalid_ubl_xml` naming the first decimal element (cbc:* or ram:*Amount, *Quantity, *Measure, *Numeric,
 * *Percent, *Rate) whose number has more than MAX_INTEGER_DIGITS digits before the point or
 * MAX_FRACTION_DIGITS after, as written. One pass over the document; text that is not a number is left to
 * the rules.
 */
export function requireBoundedDecimals(root: DocumentNode): void {
  const stack: DocumentNode[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.children.length === 0) {
      // Only a text with more characters than either bound needs a look (the name test costs more than the length's).
      if (n.text.length > SHORT && (n.ns === NS.cbc || n.ns === NS.ram) && DECIMAL_TERM.test(n.name)) checkDigits(n);
    } else for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
}

function checkDigits(n: DocumentNode): void {
  const d = digitsOf(n.text);
  if (d === null || (d.integer <= MAX_INTEGER_DIGITS && d.fraction <= MAX_FRACTION_DIGITS)) return;
  const shown = n.text.trim();
  throw new ApiError(
    "invalid_ubl_xml",
    `The number at ${locationOf(n)} ('${shown.length > 40 ? shown.slice(0, 37) + "..." : shown}') has ${d.integer} digits before the decimal point and ${d.fraction} after; einvoice reads numbers of at most ${MAX_INTEGER_DIGITS} digits before the point and ${MAX_FRACTION_DIGITS} after. Write the value with fewer digits.`,
  );
}

// Order a report's errors by cause: one wrong code (a VAT category, a currency, a document type) breaks
// the code-list rule and, through it, the rules that compute with that code. The code-list errors come
// first; an error that can follow from one says so, naming the item; the others keep their order.
import type { ValidationItem } from "./validate.js";

/** The code-list rules that cause others, and the rules that compute with the code they check. */
const FOLLOW_ONS: ReadonlyArray<{ cause: RegExp; what: string; follows: RegExp }> = [
  {
    // VAT category codes (UNCL 5305) of a breakdown, allowance, charge or line
    cause: /^BR-CL-1[78]$/,
    what: "VAT category code",
    follows: /^(BR-(S|Z|E|AE|IC|G|O|AF|AG|B)-\d+|BR-CO-(17|18)|BR-4[5-8]|PEPPOL-EN16931-R0(4[0-9]|5[0-9]))$/,
  },
  {
    // currency codes (ISO 4217): of the document, the VAT accounting currency, an amount's currencyID
    cause: /^BR-CL-0[345]$/,
    what: "currency code",
    follows: /^(BR-CO-15|BR-53|PEPPOL-EN16931-R0(05|51|52|53|54|55))$/,
  },
  {
    // document type codes (UNCL 1001)
    cause: /^BR-CL-01$/,
    what: "document type code",
    follows: /^(BR-NL-[78]|PEPPOL-EN16931-P010[01]|BR-DE-17|ubl-BE-\d+)$/,
  },
  {
    // payment means codes (UNCL 4461)
    cause: /^BR-CL-16$/,
    what: "payment means code",
    follows: /^(BR-(49|50|51|61)|BR-NL-12|BR-DE-(19|23|24|25))$/,
  },
];

/**
 * The errors with the causes first (the code-list errors that break other rules, in their order), then
 * the errors that can follow from one of them, each message ending with which item (1-based) it follows
 * from, then the rest in their order. A report without such a cause comes back unchanged.
 */
export function orderByCause(errors: readonly ValidationItem[], maxChars = Infinity): ValidationItem[] {
  const causes: Array<{ item: ValidationItem; kind: (typeof FOLLOW_ONS)[number] }> = [];
  for (const e of errors) {
    const kind = FOLLOW_ONS.find((k) => k.cause.test(e.rule));
    if (kind) causes.push({ item: e, kind });
  }
  if (causes.length === 0) return [...errors];
  const followOns: ValidationItem[] = [];
  const rest: ValidationItem[] = [];
  for (const e of errors) {
    if (causes.some((c) => c.item === e)) continue;
    const from = causes.findIndex((c) => c.kind.follows.test(e.rule));
    if (from < 0) {
      rest.push(e);
      continue;
    }
    const cause = causes[from]!.item;
    const note = ` This may follow from item ${from + 1} (${cause.rule} at ${cause.location}, a wrong ${causes[from]!.kind.what}): correct that first.`;
    // Within maxChars: the message is shortened so that the note stays whole (unless the note alone is too long).
    const room = maxChars - note.length;
    const message = e.message.length <= room ? e.message + note : room > 3 ? e.message.slice(0, room - 3) + "..." + note : (e.message + note).slice(0, maxChars);
    followOns.push({ ...e, message });
  }
  return [...causes.map((c) => c.item), ...followOns, ...rest];
}

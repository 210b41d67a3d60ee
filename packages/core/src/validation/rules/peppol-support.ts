// What the Peppol rule files share: the document-wide variables of the Peppol Schematron ($profile,
// $supplierCountry, ...) computed once, and the few XPath behaviours the rules depend on (number(),
// xs:date, substring on code points), written out so each rule reads like its official test.
import { children, norm, normalizeSpace, select, stringValue, xmlTrim, type RuleContext, type DocumentNode } from "../../document/model.js";
import { dec, lit, type Decimal } from "../decimal.js";

export type Flag = "fatal" | "warning";

/** The facts of one document every Peppol rule reads (the Schematron's document-wide variables), computed once per document. */
export interface PeppolFacts {
  readonly ctx: RuleContext;
  readonly root: DocumentNode;
  /** The root is a UBL Invoice (`/ubl-invoice:Invoice`). */
  readonly isInvoice: boolean;
  /** The root is a UBL CreditNote. */
  readonly isCreditNote: boolean;
  /** $profile: "01", "02" or "Unknown". */
  readonly profile: string;
  /** $supplierCountry: from the seller's VAT number, else the tax representative's, else the seller's address, else "XX". */
  readonly supplierCountry: Value;
  /** $customerCountry: from the buyer's VAT number, else the buyer's address, else "XX". */
  readonly customerCountry: Value;
  /** $accountingSupplierCountry (Greek rules): like supplierCountry without the tax representative. */
  readonly accountingSupplierCountry: Value;
  /** $supplierCountryIsDE / $customerCountryIsDE: the address country codes. */
  readonly supplierIsDE: boolean;
  readonly customerIsDE: boolean;
  /** The address country codes as written (the Danish and Icelandic rules compare them untrimmed). */
  readonly supplierAddressCountryRaw: Value;
  readonly customerAddressCountryRaw: Value;
  /** Every cbc:DocumentCurrencyCode of the root, as written. */
  readonly documentCurrencies: readonly string[];
  report(rule: string, flag: Flag, message: string, node: DocumentNode | null): void;
}

/**
 * A document-wide value of the official rules. `null` stands for an XPath dynamic error (a function that takes
 * one value was given two, because an element the rules expect once is repeated): in XSLT an error while
 * matching a rule's context means the rule does not apply, so a rule gated on such a value stays silent.
 */
export type Value = string | null;

/** The VAT number prefixes: /.../cac:PartyTaxScheme[cac:TaxScheme/cbc:ID = 'VAT']/substring(cbc:CompanyID, 1, 2). */
function vatPrefixes(parties: DocumentNode[]): string[] {
  const out: string[] = [];
  for (const party of parties) {
    for (const pts of children(party, "cac:PartyTaxScheme")) {
      if (select(pts, "cac:TaxScheme/cbc:ID").some((id) => stringValue(id) === "VAT")) {
        const ids = children(pts, "cbc:CompanyID");
        out.push(ids.length > 1 ? "\u0000error" : xsubstring(stringValue(ids[0]), 1, 2));
      }
    }
  }
  return out;
}

/**
 * `if (prefixes) then upper-case(normalize-space(prefixes)) else <fallback>`: undefined when there is no
 * prefix (fall through), null for an error (more than one, or a repeated CompanyID).
 */
function fromPrefixes(prefixes: string[]): Value | undefined {
  if (prefixes.length === 0) return undefined;
  if (prefixes.length > 1 || prefixes[0]!.startsWith("\u0000")) return null;
  return prefixes[0] === "" ? undefined : normalizeSpace(prefixes[0]!).toUpperCase();
}

/** normalize-space(nodes) for a path the rules expect once: null when it matches more than one element. */
export function normOne(nodes: DocumentNode[]): Value {
  return nodes.length > 1 ? null : normalizeSpace(stringValue(nodes[0]));
}

/** The string value for concat() of a path the rules expect once: null when repeated. */
export function rawOne(nodes: DocumentNode[]): Value {
  return nodes.length > 1 ? null : stringValue(nodes[0]);
}

const upperOne = (nodes: DocumentNode[]): Value => { const value = normOne(nodes); return value === null ? null : value.toUpperCase(); };

/** Computes the document-wide variables of the Peppol rules. */
export function peppolFacts(ctx: RuleContext): PeppolFacts {
  const root = ctx.root;
  const suppliers = select(root, "cac:AccountingSupplierParty/cac:Party");
  const customers = select(root, "cac:AccountingCustomerParty/cac:Party");
  const supplierCountryNodes = suppliers.flatMap((party) => select(party, "cac:PostalAddress/cac:Country/cbc:IdentificationCode"));
  const customerCountryNodes = customers.flatMap((party) => select(party, "cac:PostalAddress/cac:Country/cbc:IdentificationCode"));
  const profileNodes = children(root, "cbc:ProfileID");
  const profileId = normOne(profileNodes);
  const profile = profileId === null ? "Unknown" : ["urn:fdc:peppol.eu:2017:poacc:billing:01:1.0", "urn:peppol:france:billing:regulated", "urn:peppol:france:billing:non-regulated"].includes(profileId)
    ? "01"
    : profileId === "urn:peppol:bis:billing_with_response" ? "02" : "Unknown";
  const addressCountry: Value = supplierCountryNodes.length > 0 ? upperOne(supplierCountryNodes) : "XX";
  const sellerVat = fromPrefixes(vatPrefixes(suppliers));
  const accountingSupplierCountry = sellerVat !== undefined ? sellerVat : addressCountry;
  const repVat = sellerVat === undefined ? fromPrefixes(vatPrefixes(children(root, "cac:TaxRepresentativeParty"))) : undefined;
  const supplierCountry = sellerVat !== undefined ? sellerVat : repVat !== undefined ? repVat : addressCountry;
  const buyerVat = fromPrefixes(vatPrefixes(customers));
  const customerCountry = buyerVat !== undefined ? buyerVat : customerCountryNodes.length > 0 ? upperOne(customerCountryNodes) : "XX";
  return {
    ctx,
    root,
    isInvoice: root.qname === "Invoice",
    isCreditNote: root.qname === "CreditNote",
    profile,
    supplierCountry,
    customerCountry,
    accountingSupplierCountry,
    supplierIsDE: upperOne(supplierCountryNodes) === "DE",
    customerIsDE: upperOne(customerCountryNodes) === "DE",
    supplierAddressCountryRaw: rawOne(supplierCountryNodes),
    customerAddressCountryRaw: rawOne(customerCountryNodes),
    documentCurrencies: children(root, "cbc:DocumentCurrencyCode").map(stringValue),
    // The engine's report uses no `this`: the method itself, not a closure per document.
    report: ctx.report,
  };
}

/** XPath substring($s, $start, $length) with integer arguments, counting code points. */
export function xsubstring(text: string, start: number, length = Infinity): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\ud7ff\ue000-\uffff]*$/.test(text)) {
    const from = Math.max(start - 1, 0), to = start - 1 + length;
    return to <= from ? "" : text.slice(from, to);
  }
  return Array.from(text).filter((_, i) => i + 1 >= start && i + 1 < start + length).join("");
}

/** XPath string-length(): code points. */
export function xlength(text: string): number {
  let value = 0;
  for (const _ of text) value++;
  return value;
}

const XS_DOUBLE = /^[ \t\r\n]*([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN)[ \t\r\n]*$/;

/** XPath number($s) != NaN: the text is an xs:double (digits, point, exponent, INF). */
export function isNumber(text: string | null | undefined): boolean {
  return text != null && XS_DOUBLE.test(text) && !/NaN/.test(text);
}

/**
 * XPath number($s) as an exact decimal for comparisons (never arithmetic on money): null when NaN. INF
 * becomes a very large decimal, which compares the same way.
 */
export function xnumber(text: string | null | undefined): Decimal | null {
  if (!isNumber(text)) return null;
  const value = text!.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
  if (value.endsWith("INF")) return lit(value.startsWith("-") ? "-1e400" : "1e400");
  return dec(value) ?? bigOf(value);
}

function bigOf(text: string): Decimal | null {
  const match = /^([+-]?)([0-9]*)(?:\.([0-9]*))?[eE]([+-]?[0-9]+)$/.exec(text);
  if (!match) return null;
  const base = dec(`${match[1]}${match[2] || "0"}.${match[3] || "0"}`);
  if (!base) return null;
  const exp = Number(match[4]);
  return exp >= 0 ? base.times(lit(`1e${Math.min(exp, 400)}`)) : base.div(lit(`1e${Math.min(-exp, 400)}`));
}

const XS_DATE = /^(-?(?:[1-9][0-9]{3,}|0[0-9]{3}))-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$/;

/**
 * An xs:date (whitespace around trimmed) as minutes since the epoch at its start, for comparisons; null when
 * the text is not a date. A date without a timezone is taken as UTC (the oracle's implicit timezone).
 */
export function xsDate(text: string | null | undefined): number | null {
  if (text == null) return null;
  const match = XS_DATE.exec(xmlTrim(text));
  if (!match) return null;
  const year = Number(match[1]), month = Number(match[2]), day = Number(match[3]);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  if (day > days) return null;
  let offset = 0;
  if (match[4] && match[4] !== "Z") offset = (match[4].startsWith("-") ? -1 : 1) * (Number(match[4].slice(1, 3)) * 60 + Number(match[4].slice(4, 6)));
  const since = daysFromCivil(year, month, day);
  // Past what a Date holds (100,000,000 days either side of 1970) the answer stays what a Date gave: NaN.
  return Math.abs(since) > 100_000_000 ? NaN : since * 1440 - offset;
}

/**
 * The days from 1970-01-01 to a date of the proleptic Gregorian calendar (the calendar of xs:date and
 * of a Date), by arithmetic: Howard Hinnant's days_from_civil, with eras of 400 years (146,097 days).
 * The same number as Date.UTC, without making a Date for each date the rules compare.
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** `normalize-space(x) != ''` for an element: present and not blank. */
export function filled(node: DocumentNode | null | undefined): boolean {
  return norm(node) !== "";
}

/** Quotes a value for a message ("…" for nothing). */
export function q(value: string | null | undefined): string {
  if (value == null || value === "") return "(empty)";
  const text = value.length > 80 ? value.slice(0, 77) + "..." : value;
  return `'${text}'`;
}

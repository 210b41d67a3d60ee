// What the Peppol rule files share: the document-wide variables of the Peppol Schematron ($profile,
// $supplierCountry, ...) computed once, and the few XPath behaviours the rules depend on (number(),
// xs:date, substring on code points), written out so each rule reads like its official test.
import { child, children, first, norm, normalizeSpace, select, stringValue, type RuleContext, type UblNode } from "../model.js";
import { dec, type Decimal } from "../decimal.js";

export type Flag = "fatal" | "warning";

/** The environment every Peppol rule gets. */
export interface PeppolEnv {
  readonly ctx: RuleContext;
  readonly root: UblNode;
  /** The root is a UBL Invoice (`/ubl-invoice:Invoice`). */
  readonly isInvoice: boolean;
  /** The root is a UBL CreditNote. */
  readonly isCreditNote: boolean;
  /** $profile: "01", "02" or "Unknown". */
  readonly profile: string;
  /** $supplierCountry: from the seller's VAT number, else the tax representative's, else the seller's address, else "XX". */
  readonly supplierCountry: string;
  /** $customerCountry: from the buyer's VAT number, else the buyer's address, else "XX". */
  readonly customerCountry: string;
  /** $accountingSupplierCountry (Greek rules): like supplierCountry without the tax representative. */
  readonly accountingSupplierCountry: string;
  /** $supplierCountryIsDE / $customerCountryIsDE: the address country codes. */
  readonly supplierIsDE: boolean;
  readonly customerIsDE: boolean;
  /** The address country codes as written (the Danish and Icelandic rules compare them untrimmed). */
  readonly supplierAddressCountryRaw: string;
  readonly customerAddressCountryRaw: string;
  /** Every cbc:DocumentCurrencyCode of the root, as written. */
  readonly documentCurrencies: readonly string[];
  report(rule: string, flag: Flag, message: string, node: UblNode | null): void;
}

const VAT_PREFIX = (party: UblNode | null): string | null => {
  // /.../cac:PartyTaxScheme[cac:TaxScheme/cbc:ID = 'VAT']/substring(cbc:CompanyID, 1, 2): true when non-empty.
  for (const pts of children(party, "cac:PartyTaxScheme")) {
    if (!select(pts, "cac:TaxScheme/cbc:ID").some((id) => stringValue(id) === "VAT")) continue;
    const prefix = xsubstring(stringValue(child(pts, "cbc:CompanyID")), 1, 2);
    return prefix === "" ? null : prefix;
  }
  return null;
};

const upperNorm = (s: string): string => normalizeSpace(s).toUpperCase();

/** Computes the document-wide variables of the Peppol rules. */
export function peppolEnv(ctx: RuleContext): PeppolEnv {
  const root = ctx.root;
  const supplier = first(root, "cac:AccountingSupplierParty/cac:Party");
  const customer = first(root, "cac:AccountingCustomerParty/cac:Party");
  const supplierCountryNode = first(supplier, "cac:PostalAddress/cac:Country/cbc:IdentificationCode");
  const customerCountryNode = first(customer, "cac:PostalAddress/cac:Country/cbc:IdentificationCode");
  const profileId = norm(child(root, "cbc:ProfileID"));
  const profile = ["urn:fdc:peppol.eu:2017:poacc:billing:01:1.0", "urn:peppol:france:billing:regulated", "urn:peppol:france:billing:non-regulated"].includes(profileId)
    ? "01"
    : profileId === "urn:peppol:bis:billing_with_response" ? "02" : "Unknown";
  const sellerVat = VAT_PREFIX(supplier);
  const addressCountry = supplierCountryNode ? upperNorm(stringValue(supplierCountryNode)) : "XX";
  const accountingSupplierCountry = sellerVat !== null ? upperNorm(sellerVat) : addressCountry;
  const repVat = sellerVat === null ? VAT_PREFIX(child(root, "cac:TaxRepresentativeParty")) : null;
  const supplierCountry = sellerVat !== null ? upperNorm(sellerVat) : repVat !== null ? upperNorm(repVat) : addressCountry;
  const buyerVat = VAT_PREFIX(customer);
  const customerCountry = buyerVat !== null ? upperNorm(buyerVat) : customerCountryNode ? upperNorm(stringValue(customerCountryNode)) : "XX";
  return {
    ctx,
    root,
    isInvoice: root.qname === "Invoice",
    isCreditNote: root.qname === "CreditNote",
    profile,
    supplierCountry,
    customerCountry,
    accountingSupplierCountry,
    supplierIsDE: upperNorm(stringValue(supplierCountryNode)) === "DE",
    customerIsDE: upperNorm(stringValue(customerCountryNode)) === "DE",
    supplierAddressCountryRaw: stringValue(supplierCountryNode),
    customerAddressCountryRaw: stringValue(customerCountryNode),
    documentCurrencies: children(root, "cbc:DocumentCurrencyCode").map(stringValue),
    report: (rule, flag, message, node) => ctx.report(rule, flag, message, node),
  };
}

/** XPath substring($s, $start, $length) with integer arguments, counting code points. */
export function xsubstring(s: string, start: number, length = Infinity): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\ud7ff\ue000-\uffff]*$/.test(s)) {
    const from = Math.max(start - 1, 0), to = start - 1 + length;
    return to <= from ? "" : s.slice(from, to);
  }
  return Array.from(s).filter((_, i) => i + 1 >= start && i + 1 < start + length).join("");
}

/** XPath string-length(): code points. */
export function xlength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const XS_DOUBLE = /^[ \t\r\n]*([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN)[ \t\r\n]*$/;

/** XPath number($s) != NaN: the text is an xs:double (digits, point, exponent, INF). */
export function isNumber(s: string | null | undefined): boolean {
  return s != null && XS_DOUBLE.test(s) && !/NaN/.test(s);
}

/**
 * XPath number($s) as an exact decimal for comparisons (never arithmetic on money): null when NaN. INF
 * becomes a very large decimal, which compares the same way.
 */
export function xnumber(s: string | null | undefined): Decimal | null {
  if (!isNumber(s)) return null;
  const t = s!.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
  if (t.endsWith("INF")) return dec(t.startsWith("-") ? "-1e400" : "1e400") ?? bigOf(t.startsWith("-") ? "-1e400" : "1e400");
  return dec(t) ?? bigOf(t);
}

function bigOf(t: string): Decimal | null {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?[eE]([+-]?[0-9]+)$/.exec(t);
  if (!m) return null;
  const base = dec(`${m[1]}${m[2] || "0"}.${m[3] || "0"}`);
  if (!base) return null;
  const exp = Number(m[4]);
  return exp >= 0 ? base.times(dec("1" + "0".repeat(Math.min(exp, 400)))!) : base.div(dec("1" + "0".repeat(Math.min(-exp, 400)))!);
}

const XS_DATE = /^(-?(?:[1-9][0-9]{3,}|0[0-9]{3}))-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$/;

/**
 * An xs:date (whitespace around trimmed) as minutes since the epoch at its start, for comparisons; null when
 * the text is not a date. A date without a timezone is taken as UTC (the oracle's implicit timezone).
 */
export function xsDate(s: string | null | undefined): number | null {
  if (s == null) return null;
  const m = XS_DATE.exec(s.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, ""));
  if (!m) return null;
  const year = Number(m[1]), month = Number(m[2]), day = Number(m[3]);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  if (day > days) return null;
  let offset = 0;
  if (m[4] && m[4] !== "Z") offset = (m[4].startsWith("-") ? -1 : 1) * (Number(m[4].slice(1, 3)) * 60 + Number(m[4].slice(4, 6)));
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime() / 60000 - offset;
}

/** `normalize-space(x) != ''` for an element: present and not blank. */
export function filled(node: UblNode | null | undefined): boolean {
  return norm(node) !== "";
}

/** Quotes a value for a message ("…" for nothing). */
export function q(value: string | null | undefined): string {
  if (value == null || value === "") return "(empty)";
  const v = value.length > 80 ? value.slice(0, 77) + "..." : value;
  return `'${v}'`;
}

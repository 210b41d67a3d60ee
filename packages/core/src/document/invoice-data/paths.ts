// From a rule's location in a built document back to the JSON pointer of the InvoiceData field behind it.
import type { DocumentNode } from "../model.js";
import type { BuiltDocument } from "./build.js";

/**
 * Rules reported on the whole document are about a field the caller left out or combined wrongly;
 * where one field is the answer, the report names it (the ids are the official rule ids).
 */
const RULE_FIELD: Record<string, string> = {
  "PEPPOL-EN16931-R003": "/buyerReference",
  "BR-CO-25": "/dueDate",
  "BR-S-02": "/seller/vatId",
  "BR-Z-02": "/seller/vatId",
  "BR-E-02": "/seller/vatId",
  "BR-G-02": "/seller/vatId",
  "BR-AF-02": "/seller/vatId",
  "BR-AG-02": "/seller/vatId",
  "BR-AE-02": "/buyer/vatId",
  "BR-IC-02": "/buyer/vatId",
  "BR-IC-11": "/delivery/date",
  "BR-IC-12": "/delivery/address/country",
  "BR-O-02": "/seller/vatId",
  "BR-O-11": "/lines",
  "BR-61": "/payment/accounts",
  "PEPPOL-EN16931-R061": "/payment/directDebit/mandate",
  "BR-53": "/vatAccountingCurrency",
  "PEPPOL-EN16931-R005": "/vatAccountingCurrency/code",
  "BR-CO-26": "/seller/vatId",
  // The Peppol BIS national rules of the Netherlands and Germany that a missing field breaks.
  "NL-R-001": "/precedingInvoices",
  "NL-R-007": "/payment",
  "DE-R-001": "/payment",
  "DE-R-015": "/buyerReference",
  "DE-R-016": "/seller/vatId",
  "DE-R-017": "/typeCode",
  "DE-R-018": "/paymentTerms",
  "DE-R-022": "/attachments",
  "DE-R-026": "/precedingInvoices",
  "DE-R-030": "/payment/directDebit/creditorId",
  "DE-R-031": "/payment/directDebit/debitedAccount",
  // XRechnung 3.0.2 (specification "xrechnung"): the field each BR-DE rule needs; a finding on a field inside it
  // (an IBAN of /payment/accounts, the second of /attachments) keeps its own pointer.
  "BR-DE-1": "/payment",
  "BR-DE-2": "/seller/contact",
  "BR-DE-3": "/seller/address/city",
  "BR-DE-4": "/seller/address/postalCode",
  "BR-DE-5": "/seller/contact/name",
  "BR-DE-6": "/seller/contact/phone",
  "BR-DE-7": "/seller/contact/email",
  "BR-DE-8": "/buyer/address/city",
  "BR-DE-9": "/buyer/address/postalCode",
  "BR-DE-10": "/delivery/address/city",
  "BR-DE-11": "/delivery/address/postalCode",
  "BR-DE-15": "/buyerReference",
  "BR-DE-16": "/seller/vatId",
  "BR-DE-17": "/typeCode",
  "BR-DE-18": "/paymentTerms",
  "BR-DE-19": "/payment/accounts",
  "BR-DE-20": "/payment/directDebit/debitedAccount",
  "BR-DE-21": "/specification",
  "BR-DE-22": "/attachments",
  "BR-DE-23-a": "/payment/accounts",
  "BR-DE-23-b": "/payment",
  "BR-DE-24-a": "/payment/card",
  "BR-DE-24-b": "/payment",
  "BR-DE-25-a": "/payment/directDebit",
  "BR-DE-25-b": "/payment",
  "BR-DE-26": "/precedingInvoices",
  "BR-DE-27": "/seller/contact/phone",
  "BR-DE-28": "/seller/contact/email",
  "BR-DE-30": "/payment/directDebit/creditorId",
  "BR-DE-31": "/payment/directDebit/debitedAccount",
};

/** XRechnung's national rules: RULE_FIELD names the field, unless the finding is already on a field inside it. */
const XRECHNUNG_RULE = /^BR-DE-/;

/** The national rules of RULE_FIELD: each is broken by a missing field, which its entry names. */
const MISSING_FIELD_RULE = /^(?:NL|DE)-R-\d+$/;

/** Maps each finding location of a built document to a JSON pointer. Built lazily, once per document. */
export function pointerResolver(built: BuiltDocument): (rule: string, location: string) => string {
  let byLocation: Map<string, string> | null = null;
  const index = () => {
    const m = new Map<string, string>();
    const walk = (n: DocumentNode, loc: string, inherited: string) => {
      const own = built.pointerOf(n) ?? inherited;
      m.set(loc, own);
      for (const c of n.children) walk(c, `${loc}/${c.qname}[${c.index}]`, own);
    };
    walk(built.root, `/${built.root.qname}`, "");
    return m;
  };
  return (rule, location) => {
    byLocation ??= index();
    let loc = location;
    let found = byLocation.get(loc);
    while (found === undefined && loc.lastIndexOf("/") > 0) {
      loc = loc.slice(0, loc.lastIndexOf("/"));
      found = byLocation.get(loc);
    }
    const pointer = found ?? "";
    if (XRECHNUNG_RULE.test(rule)) {
      const field = RULE_FIELD[rule];
      return field === undefined || pointer === field || pointer.startsWith(`${field}/`) ? pointer || (field ?? "") : field;
    }
    // A rule on the whole document (or on a computed total) that one field answers names that field;
    // so does a national rule a missing field breaks, whatever element its context is (NL-R-001's is the
    // type code: the field to fill in is precedingInvoices).
    if (pointer === "" || pointer === "/lines" || MISSING_FIELD_RULE.test(rule)) return RULE_FIELD[rule] ?? pointer;
    return pointer;
  };
}

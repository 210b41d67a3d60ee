// Rule family: BR-CL-* of the CEN EN 16931 CII rules 1.3.16 (pattern EN16931-Codes of
// cii/schematron/preprocessed/EN16931-CII-validation-preprocessed.sch), on the CII tree (prefixes rsm:, ram:, udt:,
// qdt:; document/model.ts). The lists are UBL's (codelists/cen.ts) where they are the same, else CII's own
// (cii-codes-lists.ts); both generated from the official files.
//
// Where CII's code rules differ from UBL's (cen-codes.ts):
// - BR-CL-01 is one list for every document (UBL: one for Invoice, one for CreditNote);
// - BR-CL-06 is UNTDID 2475 (5, 29, 72) on ram:DueDateTypeCode, where UBL's is UNTDID 2005 (3, 35, 432);
// - BR-CL-07 reads the code itself (ram:ReferenceTypeCode), UBL the schemeID of the object identifier;
// - BR-CL-08 is a rule of the code list pattern on ram:SubjectCode, a member test of a list of its own (UBL: a
//   substring test of the note's `#code#` prefix, in the model pattern);
// - BR-CL-10 has no SEPA exception, and applies to every ram:GlobalID with a schemeID outside the item and the
//   deliver-to party; BR-CL-11 to every ram:ID with a schemeID outside a tax registration, so it also takes the item's
//   origin country ram:ID with a schemeID before BR-CL-15 can (first matching rule);
// - BR-CL-14 and BR-CL-15 use an older ISO 3166 list (with AN, without SS);
// - BR-CL-03 reads only ram:TaxTotalAmount's currencyID (CII's other amounts carry none: CII-DT-031).
//
// Each rule reads `not(contains(normalize-space(X), ' ')) and contains(' A B C ', concat(' ', normalize-space(X), ' '))`:
// the value, XML whitespace collapsed, is one of the codes (an empty or missing value is not); `inList` below.
// Within the pattern an element is checked by the first rule whose context matches it.
import * as L from "../codelists/cen.js";
import * as C from "./cii-codes-lists.js";
import { normalizeSpace, stringValue, type DocumentNode, type RuleFamily } from "../../document/model.js";
import { all, hasAncestor } from "./cen-common.js";

const set = (list: readonly string[]) => new Set(list);
const TYPES = set(C.BR_CL_01_CODES), CURRENCIES = set(L.CURRENCY_CODES), VAT_DATE = set(C.BR_CL_06_CODES);
const OBJECT_SCHEMES = set(L.OBJECT_IDENTIFIER_SCHEMES), SUBJECTS = set(C.BR_CL_08_CODES), ICD = set(L.ICD_SCHEMES);
const CLASSIFICATION = set(L.ITEM_CLASSIFICATION_SCHEMES), COUNTRIES = set(C.BR_CL_14_CODES), ORIGIN_COUNTRIES = set(C.BR_CL_15_CODES);
const PAYMENT_MEANS = set(L.PAYMENT_MEANS_CODES), VAT_CATEGORIES = set(L.VAT_CATEGORY_CODES);
const ALLOWANCE_REASONS = set(L.ALLOWANCE_REASON_CODES), CHARGE_REASONS = set(L.CHARGE_REASON_CODES);
const VATEX = set(L.VATEX_CODES), UNITS = set(L.UNIT_CODES), MIMES = set(L.MIME_CODES), EAS = set(L.EAS_CODES);

/** The value is a code of the list (normalised, a single token). */
const inList = (list: ReadonlySet<string>, value: string) => !value.includes(" ") && list.has(value);
/** `normalize-space(.)`. */
const text = (node: DocumentNode) => normalizeSpace(stringValue(node));
/** `normalize-space(@name)`: "" when absent. */
const attr = (node: DocumentNode, name: string) => normalizeSpace(node.attrs[name] ?? "");
const shown = (value: string) => (value === "" ? "empty" : `'${value}'`);
const parentIs = (node: DocumentNode, qname: string) => node.parent?.qname === qname;

/** `ram:ChargeIndicator/udt:Indicator = b`: some indicator's text cast to xs:boolean is b. */
function indicatorIs(ac: DocumentNode, b: boolean): boolean {
  for (const ci of ac.children) {
    if (ci.qname !== "ram:ChargeIndicator") continue;
    for (const i of ci.children) {
      if (i.qname !== "udt:Indicator") continue;
      const v = text(i);
      if (b ? v === "true" || v === "1" : v === "false" || v === "0") return true;
    }
  }
  return false;
}

export const ciiCodeRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  const report = ctx.fatal;
  /** The elements of the document with this qname, in document order (`//qname`, through the qname index). */
  const each = (qname: string) => all(root, qname);

  // ram:TypeCode: BR-CL-01 (rsm:ExchangedDocument/ram:TypeCode), BR-CL-16 (ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode).
  for (const node of each("ram:TypeCode")) {
    if (parentIs(node, "rsm:ExchangedDocument")) {
      if (!inList(TYPES, text(node))) report("BR-CL-01", `The document type code (BT-3) ${shown(text(node))} is not a UNTDID 1001 code of an invoice or credit note.`, node);
    } else if (parentIs(node, "ram:SpecifiedTradeSettlementPaymentMeans")) {
      if (!inList(PAYMENT_MEANS, text(node))) report("BR-CL-16", `The payment means code (BT-81) ${shown(text(node))} is not a UNTDID 4461 code.`, node);
    }
  }
  // BR-CL-03: ram:TaxTotalAmount[@currencyID]
  for (const node of each("ram:TaxTotalAmount")) {
    if (node.attrs.currencyID !== undefined && !inList(CURRENCIES, attr(node, "currencyID"))) {
      report("BR-CL-03", `The currency ${shown(attr(node, "currencyID"))} of the VAT total (ram:TaxTotalAmount) is not an ISO 4217 currency code.`, node);
    }
  }
  const simple: readonly (readonly [string, string, ReadonlySet<string>, string])[] = [
    ["ram:InvoiceCurrencyCode", "BR-CL-04", CURRENCIES, "The invoice currency code (BT-5) %s is not an ISO 4217 currency code."],
    ["ram:TaxCurrencyCode", "BR-CL-05", CURRENCIES, "The VAT accounting currency code (BT-6) %s is not an ISO 4217 currency code."],
    ["ram:DueDateTypeCode", "BR-CL-06", VAT_DATE, "The VAT point date code (BT-8) %s is not one of 5, 29 or 72 (UNTDID 2475)."],
    ["ram:ReferenceTypeCode", "BR-CL-07", OBJECT_SCHEMES, "The scheme %s of the invoiced object identifier (BT-18-1) is not a UNTDID 1153 code."],
    ["ram:SubjectCode", "BR-CL-08", SUBJECTS, "The note's subject code (BT-21) %s is not a UNTDID 4451 text subject code."],
    ["ram:CountryID", "BR-CL-14", COUNTRIES, "The country code %s is not an ISO 3166-1 alpha-2 code."],
    ["ram:ExemptionReasonCode", "BR-CL-22", VATEX, "The VAT exemption reason code (BT-121) %s is not a code of the VATEX list."],
  ];
  for (const [qname, rule, list, message] of simple) {
    for (const node of each(qname)) {
      const value = text(node);
      // BR-CL-22 upper-cases the value before looking it up.
      const ok = rule === "BR-CL-22" ? !value.includes(" ") && list.has(normalizeSpace(stringValue(node).toUpperCase())) : inList(list, value);
      if (!ok) report(rule, message.replace("%s", shown(value)), node);
    }
  }
  // ram:GlobalID[@schemeID]: BR-CL-10 outside the item and the deliver-to party, then BR-CL-21 (the item's), BR-CL-26
  // (the deliver-to party's).
  for (const node of each("ram:GlobalID")) {
    if (node.attrs.schemeID === undefined) continue;
    const scheme = attr(node, "schemeID");
    if (inList(ICD, scheme)) continue;
    if (!hasAncestor(node, "ram:SpecifiedTradeProduct") && !hasAncestor(node, "ram:ShipToTradeParty")) {
      report("BR-CL-10", `The identifier scheme ${shown(scheme)} of the global identifier ${quoteId(node)} is not an ISO 6523 ICD code.`, node);
    } else if (parentIs(node, "ram:SpecifiedTradeProduct")) {
      report("BR-CL-21", `The item standard identifier scheme ${shown(scheme)} of ${quoteId(node)} is not an ISO 6523 ICD code.`, node);
    } else if (parentIs(node, "ram:ShipToTradeParty") && node.parent!.parent?.qname === "ram:ApplicableHeaderTradeDelivery") {
      report("BR-CL-26", `The delivery location identifier scheme ${shown(scheme)} of ${quoteId(node)} is not an ISO 6523 ICD code.`, node);
    }
  }
  // ram:ID: BR-CL-11 (with a schemeID, outside a tax registration), then BR-CL-15 (ram:OriginTradeCountry/ram:ID).
  for (const node of each("ram:ID")) {
    if (node.attrs.schemeID !== undefined && !hasAncestor(node, "ram:SpecifiedTaxRegistration")) {
      const scheme = attr(node, "schemeID");
      if (!inList(ICD, scheme)) report("BR-CL-11", `The identifier scheme ${shown(scheme)} of ${quoteId(node)} is not an ISO 6523 ICD code.`, node);
    } else if (parentIs(node, "ram:OriginTradeCountry") && !inList(ORIGIN_COUNTRIES, text(node))) {
      report("BR-CL-15", `The item's country of origin code (BT-159) ${shown(text(node))} is not an ISO 3166-1 alpha-2 code.`, node);
    }
  }
  // BR-CL-13: ram:ClassCode[@listID]
  for (const node of each("ram:ClassCode")) {
    if (node.attrs.listID !== undefined && !inList(CLASSIFICATION, attr(node, "listID"))) {
      report("BR-CL-13", `The item classification scheme ${shown(attr(node, "listID"))} of ${quoteId(node)} is not a UNTDID 7143 code.`, node);
    }
  }
  // ram:CategoryCode: BR-CL-17 (in ram:CategoryTradeTax), BR-CL-18 (in ram:ApplicableTradeTax).
  for (const node of each("ram:CategoryCode")) {
    const rule = parentIs(node, "ram:CategoryTradeTax") ? "BR-CL-17" : parentIs(node, "ram:ApplicableTradeTax") ? "BR-CL-18" : null;
    if (rule !== null && !inList(VAT_CATEGORIES, text(node))) {
      report(rule, `The VAT category code ${shown(text(node))} is not one of AE, L, M, E, S, Z, G, O, K, B (UNTDID 5305).`, node);
    }
  }
  // ram:SpecifiedTradeAllowanceCharge[indicator false]/ram:ReasonCode: BR-CL-19; [indicator true]: BR-CL-20.
  for (const node of each("ram:ReasonCode")) {
    const ac = node.parent;
    if (ac?.qname !== "ram:SpecifiedTradeAllowanceCharge") continue;
    if (indicatorIs(ac, false)) {
      if (!inList(ALLOWANCE_REASONS, text(node))) report("BR-CL-19", `The allowance reason code (BT-98/BT-140) ${shown(text(node))} is not a UNTDID 5189 allowance reason code.`, node);
    } else if (indicatorIs(ac, true) && !inList(CHARGE_REASONS, text(node))) {
      report("BR-CL-20", `The charge reason code (BT-105/BT-145) ${shown(text(node))} is not a UNTDID 7161 charge reason code.`, node);
    }
  }
  // BR-CL-23: ram:BasisQuantity[@unitCode] | ram:BilledQuantity[@unitCode]
  for (const qname of ["ram:BasisQuantity", "ram:BilledQuantity"]) {
    for (const node of each(qname)) {
      if (node.attrs.unitCode !== undefined && !inList(UNITS, attr(node, "unitCode"))) {
        report("BR-CL-23", `The unit of measure ${shown(attr(node, "unitCode"))} of ${qname} is not a UN/ECE Recommendation 20 or 21 code.`, node);
      }
    }
  }
  // BR-CL-24: ram:AttachmentBinaryObject[@mimeCode], the value exactly as written.
  for (const node of each("ram:AttachmentBinaryObject")) {
    const mime = node.attrs.mimeCode;
    if (mime !== undefined && !MIMES.has(mime)) {
      report("BR-CL-24", `The attachment's type '${mime}' is not allowed; use application/pdf, image/png, image/jpeg, text/csv, or an xlsx or ods spreadsheet.`, node);
    }
  }
  // BR-CL-25: ram:URIUniversalCommunication/ram:URIID[@schemeID]
  for (const node of each("ram:URIID")) {
    if (node.attrs.schemeID === undefined || !parentIs(node, "ram:URIUniversalCommunication")) continue;
    if (!inList(EAS, attr(node, "schemeID"))) report("BR-CL-25", `The electronic address scheme ${shown(attr(node, "schemeID"))} of ${quoteId(node)} is not a code of the EAS list.`, node);
  }
};

const quoteId = (node: DocumentNode) => (text(node) === "" ? "an empty identifier" : `'${text(node)}'`);

/** The ids of the assertions of this family (all of the pattern's), for tests and documentation. */
export const CII_CODE_RULE_IDS: readonly string[] = [
  "BR-CL-01", "BR-CL-03", "BR-CL-04", "BR-CL-05", "BR-CL-06", "BR-CL-07", "BR-CL-08", "BR-CL-10", "BR-CL-11", "BR-CL-13",
  "BR-CL-14", "BR-CL-15", "BR-CL-16", "BR-CL-17", "BR-CL-18", "BR-CL-19", "BR-CL-20", "BR-CL-21", "BR-CL-22", "BR-CL-23",
  "BR-CL-24", "BR-CL-25", "BR-CL-26",
];

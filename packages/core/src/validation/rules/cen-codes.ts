// Rule family: BR-CL-* (code lists) of the CEN EN 16931 UBL rules (validation artefacts 1.3.16): the pattern
// Codesmodel of ubl/schematron/codelist/EN16931-UBL-codes.sch, and BR-CL-08 from the UBL model binding. The lists
// are generated from those files (codelists/cen.ts, scripts/generate-rule-codelists.mjs).
//
// Nearly every assertion reads `not(contains(normalize-space(X), ' ')) and contains(' A B C ', concat(' ',
// normalize-space(X), ' '))`: the value, XML whitespace collapsed, is one of the codes (an empty or missing value is
// not). That is `inList(list, normalizeSpace(X))` below.
import * as L from "../codelists/cen.js";
import { children, norm, normalizeSpace, stringValue, type RuleFamily, type DocumentNode } from "../../document/model.js";
import { all, chargeIndicator, codepoints, hasAncestor, isUblRoot } from "./cen-common.js";

const set = (list: readonly string[]) => new Set(list);
const INVOICE_TYPES = set(L.INVOICE_TYPE_CODES), CREDIT_NOTE_TYPES = set(L.CREDIT_NOTE_TYPE_CODES);
const CURRENCIES = set(L.CURRENCY_CODES), VAT_DATE = set(L.VAT_DATE_CODES), OBJECT_SCHEMES = set(L.OBJECT_IDENTIFIER_SCHEMES);
const ICD = set(L.ICD_SCHEMES), SEPA = set(L.SEPA_SCHEME), CLASSIFICATION = set(L.ITEM_CLASSIFICATION_SCHEMES);
const COUNTRIES = set(L.COUNTRY_CODES), PAYMENT_MEANS = set(L.PAYMENT_MEANS_CODES), VAT_CATEGORIES = set(L.VAT_CATEGORY_CODES);
const ALLOWANCE_REASONS = set(L.ALLOWANCE_REASON_CODES), CHARGE_REASONS = set(L.CHARGE_REASON_CODES);
const VATEX = set(L.VATEX_CODES), UNITS = set(L.UNIT_CODES), MIMES = set(L.MIME_CODES), EAS = set(L.EAS_CODES);
// BR-CL-08 tests contains(' AAA AAB ... ', code): a substring of the list joined by spaces, not a member.
const SUBJECT_TEXT = ` ${L.SUBJECT_CODES.join(" ")} `;

/** The value is a code of the list (normalised, a single token). */
const inList = (list: ReadonlySet<string>, value: string) => !value.includes(" ") && list.has(value);
/** `normalize-space(@name)`: "" when absent. */
const attr = (node: DocumentNode, name: string) => normalizeSpace(node.attrs[name] ?? "");
const shown = (text: string) => (text === "" ? "empty" : `'${text}'`);

export const cenCodeRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  const report: (rule: string, message: string, node: DocumentNode) => void = ctx.fatal;

  // BR-CL-01: cbc:InvoiceTypeCode | cbc:CreditNoteTypeCode, each against its own list.
  for (const [qname, list, what] of [["cbc:InvoiceTypeCode", INVOICE_TYPES, "an invoice"], ["cbc:CreditNoteTypeCode", CREDIT_NOTE_TYPES, "a credit note"]] as const) {
    for (const node of all(root, qname)) {
      if (!inList(list, norm(node))) report("BR-CL-01", `The document type code (BT-3) ${shown(norm(node))} is not a UNTDID 1001 code allowed for ${what}.`, node);
    }
  }

  // BR-CL-03: the currencyID of every amount.
  for (const path of AMOUNTS) {
    for (const node of all(root, path)) {
      const cur = attr(node, "currencyID");
      if (!inList(CURRENCIES, cur)) {
        report("BR-CL-03", node.attrs.currencyID === undefined
          ? `The amount ${shown(normalizeSpace(stringValue(node)))} in ${node.name} has no currency (currencyID).`
          : `The currency ${shown(cur)} of the amount in ${node.name} is not an ISO 4217 currency code.`, node);
      }
    }
  }
  for (const documentCurrencyCode of all(root, "cbc:DocumentCurrencyCode")) {
    if (!inList(CURRENCIES, norm(documentCurrencyCode))) report("BR-CL-04", `The invoice currency code (BT-5) ${shown(norm(documentCurrencyCode))} is not an ISO 4217 currency code.`, documentCurrencyCode);
  }
  for (const taxCurrencyCode of all(root, "cbc:TaxCurrencyCode")) {
    if (!inList(CURRENCIES, norm(taxCurrencyCode))) report("BR-CL-05", `The VAT accounting currency code (BT-6) ${shown(norm(taxCurrencyCode))} is not an ISO 4217 currency code.`, taxCurrencyCode);
  }
  for (const descriptionCode of all(root, "cbc:DescriptionCode")) {
    if (descriptionCode.parent?.qname === "cac:InvoicePeriod" && !inList(VAT_DATE, norm(descriptionCode))) {
      report("BR-CL-06", `The VAT point date code (BT-8) ${shown(norm(descriptionCode))} is not one of 3, 35 or 432 (UNTDID 2005).`, descriptionCode);
    }
  }

  // Identifiers' schemes. Context cac:AdditionalDocumentReference[cbc:DocumentTypeCode = '130']/cbc:ID[@schemeID]
  // | cac:DocumentReference[...]/cbc:ID[@schemeID], then cac:PartyIdentification/cbc:ID[@schemeID], ...
  for (const id of all(root, "cbc:ID")) {
    if (id.attrs.schemeID === undefined) continue;
    const node = id.parent!;
    const scheme = attr(id, "schemeID");
    if ((node.qname === "cac:AdditionalDocumentReference" || node.qname === "cac:DocumentReference") &&
      children(node, "cbc:DocumentTypeCode").some((documentTypeCode) => stringValue(documentTypeCode) === "130")) {
      if (!inList(OBJECT_SCHEMES, scheme)) report("BR-CL-07", `The scheme ${shown(scheme)} of the invoiced object identifier (BT-18) is not a UNTDID 1153 code.`, id);
    } else if (node.qname === "cac:PartyIdentification") {
      const sepaOk = inList(SEPA, scheme) && (hasAncestor(id, "cac:AccountingSupplierParty") || hasAncestor(id, "cac:PayeeParty"));
      if (!inList(ICD, scheme) && !sepaOk) {
        report("BR-CL-10", scheme === "SEPA"
          ? "The SEPA scheme is only allowed for the seller's or the payee's identifier."
          : `The identifier scheme ${shown(scheme)} of ${quoteId(id)} is not an ISO 6523 ICD code.`, id);
      }
    } else if (node.qname === "cac:StandardItemIdentification") {
      if (!inList(ICD, scheme)) report("BR-CL-21", `The item standard identifier scheme ${shown(scheme)} of ${quoteId(id)} is not an ISO 6523 ICD code.`, id);
    } else if (node.qname === "cac:DeliveryLocation") {
      if (!inList(ICD, scheme)) report("BR-CL-26", `The delivery location identifier scheme ${shown(scheme)} of ${quoteId(id)} is not an ISO 6523 ICD code.`, id);
    }
  }
  for (const id of all(root, "cbc:CompanyID")) {
    if (id.attrs.schemeID === undefined || id.parent?.qname !== "cac:PartyLegalEntity") continue;
    const scheme = attr(id, "schemeID");
    if (!inList(ICD, scheme)) report("BR-CL-11", `The legal registration identifier scheme ${shown(scheme)} of ${quoteId(id)} is not an ISO 6523 ICD code.`, id);
  }
  for (const itemClassificationCode of all(root, "cbc:ItemClassificationCode")) {
    if (itemClassificationCode.attrs.listID === undefined || itemClassificationCode.parent?.qname !== "cac:CommodityClassification") continue;
    const list = attr(itemClassificationCode, "listID");
    if (!inList(CLASSIFICATION, list)) report("BR-CL-13", `The item classification scheme ${shown(list)} of ${quoteId(itemClassificationCode)} is not a UNTDID 7143 code.`, itemClassificationCode);
  }
  for (const identificationCode of all(root, "cbc:IdentificationCode")) {
    const text = identificationCode.parent?.qname;
    if (text !== "cac:Country" && text !== "cac:OriginCountry") continue;
    if (!inList(COUNTRIES, norm(identificationCode))) {
      report(text === "cac:Country" ? "BR-CL-14" : "BR-CL-15", `The ${text === "cac:Country" ? "" : "item's origin "}country code ${shown(norm(identificationCode))} is not an ISO 3166-1 alpha-2 code.`, identificationCode);
    }
  }
  for (const paymentMeansCode of all(root, "cbc:PaymentMeansCode")) {
    if (paymentMeansCode.parent?.qname === "cac:PaymentMeans" && !inList(PAYMENT_MEANS, norm(paymentMeansCode))) {
      report("BR-CL-16", `The payment means code (BT-81) ${shown(norm(paymentMeansCode))} is not a UNTDID 4461 code.`, paymentMeansCode);
    }
  }
  for (const [elementName, rule] of [["cac:TaxCategory", "BR-CL-17"], ["cac:ClassifiedTaxCategory", "BR-CL-18"]] as const) {
    for (const cat of all(root, elementName)) {
      for (const id of children(cat, "cbc:ID")) {
        if (!inList(VAT_CATEGORIES, norm(id))) report(rule, `The VAT category code ${shown(norm(id))} is not one of AE, L, M, E, S, Z, G, O, K, B (UNTDID 5305).`, id);
      }
    }
  }
  for (const allowanceChargeReasonCode of all(root, "cbc:AllowanceChargeReasonCode")) {
    const ac = allowanceChargeReasonCode.parent;
    if (ac?.qname !== "cac:AllowanceCharge") continue;
    const charge = chargeIndicator(ac);
    if (charge === false && !inList(ALLOWANCE_REASONS, norm(allowanceChargeReasonCode))) {
      report("BR-CL-19", `The allowance reason code ${shown(norm(allowanceChargeReasonCode))} is not a UNTDID 5189 allowance reason code.`, allowanceChargeReasonCode);
    } else if (charge === true && !inList(CHARGE_REASONS, norm(allowanceChargeReasonCode))) {
      report("BR-CL-20", `The charge reason code ${shown(norm(allowanceChargeReasonCode))} is not a UNTDID 7161 charge reason code.`, allowanceChargeReasonCode);
    }
  }
  for (const taxExemptionReasonCode of all(root, "cbc:TaxExemptionReasonCode")) {
    // not(contains(normalize-space(.), ' ')) and the upper-cased value is in the list.
    const text = norm(taxExemptionReasonCode);
    if (text.includes(" ") || !VATEX.has(normalizeSpace(stringValue(taxExemptionReasonCode).toUpperCase()))) {
      report("BR-CL-22", `The VAT exemption reason code (BT-121) ${shown(text)} is not a code of the VATEX list.`, taxExemptionReasonCode);
    }
  }
  for (const path of ["cbc:InvoicedQuantity", "cbc:BaseQuantity", "cbc:CreditedQuantity"]) {
    for (const node of all(root, path)) {
      if (node.attrs.unitCode === undefined) continue;
      const unit = attr(node, "unitCode");
      if (!inList(UNITS, unit)) report("BR-CL-23", `The unit of measure ${shown(unit)} is not a UN/ECE Recommendation 20 or 21 code.`, node);
    }
  }
  for (const embeddedDocumentBinaryObject of all(root, "cbc:EmbeddedDocumentBinaryObject")) {
    const mime = embeddedDocumentBinaryObject.attrs.mimeCode;
    if (mime !== undefined && !MIMES.has(mime)) {
      report("BR-CL-24", `The attachment's type '${mime}' is not allowed; use application/pdf, image/png, image/jpeg, text/csv, or an xlsx or ods spreadsheet.`, embeddedDocumentBinaryObject);
    }
  }
  for (const endpointId of all(root, "cbc:EndpointID")) {
    if (endpointId.attrs.schemeID === undefined) continue;
    const scheme = attr(endpointId, "schemeID");
    if (!inList(EAS, scheme)) report("BR-CL-25", `The electronic address scheme ${shown(scheme)} of ${quoteId(endpointId)} is not a code of the EAS list.`, endpointId);
  }

  // BR-CL-08 (pattern UBL-model, context /ubl:Invoice/cbc:Note | /cn:CreditNote/cbc:Note): a note starting with a
  // subject code between '#' characters, such as "#AAI#text", must use a UNTDID 4451 code.
  if (isUblRoot(root)) {
    for (const note of children(root, "cbc:Note")) {
      const text = stringValue(note);
      const i = text.indexOf("#");
      if (i < 0) continue;
      const rest = text.slice(i + 1);
      const j = rest.indexOf("#");
      const code = j < 0 ? "" : rest.slice(0, j);
      if (codepoints(code) === 3 && !SUBJECT_TEXT.includes(code)) {
        report("BR-CL-08", `The note's subject code '#${code}#' is not a UNTDID 4451 text subject code.`, note);
      }
    }
  }
};

const AMOUNTS = [
  "cbc:Amount", "cbc:BaseAmount", "cbc:PriceAmount", "cbc:TaxAmount", "cbc:TaxableAmount", "cbc:LineExtensionAmount",
  "cbc:TaxExclusiveAmount", "cbc:TaxInclusiveAmount", "cbc:AllowanceTotalAmount", "cbc:ChargeTotalAmount", "cbc:PrepaidAmount",
  "cbc:PayableRoundingAmount", "cbc:PayableAmount",
];

const quoteId = (node: DocumentNode) => (norm(node) === "" ? "an empty identifier" : `'${norm(node)}'`);

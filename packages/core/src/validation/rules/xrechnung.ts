// Rule families of XRechnung 3.0.2 for UBL (KoSIT XRechnung Schematron 2.5.0, XRechnung-UBL-validation.sch;
// Apache-2.0, itplr-kosit/xrechnung-schematron): BR-DE-* and BR-TMP-2 (pattern ubl-pattern), BR-DEX-* (the
// extension, ubl-extension-pattern) and BR-DE-CVD-* / BR-TMP-CVD-01 (ubl-cvd-pattern). The Peppol rules XRechnung
// takes over are in xrechnung-peppol.ts. Each assertion is read as its XPath reads, reported at the Schematron
// context (a missing element at the element that should hold it), with the official flag; BR-DE-TMP-32, flagged
// "information", is reported as a warning here and levelled to information by the rule set (rulesets/xrechnung.ts).
import { dec, round2, sum, type Decimal } from "../decimal.js";
import { child, children, exists, first, norm, normalizeSpace, select, stringValue, type RuleContext, type RuleFamily, type DocumentNode } from "../../document/model.js";
import {
  CEF_EAS_CODES, CVA_CODES, CVD_CODE, CVD_VEHICLE_CATEGORIES, DIGA_CODES, EMAIL_REGEX, ISO6523_ICD_CODES, SKONTO_REGEX,
  UNTDID7143_CODES, URL_REGEX,
} from "../codelists/xrechnung.js";
import { all, isUblRoot } from "./cen-common.js";
import { q } from "./peppol-support.js";
import {
  XR_CIUS_ID, XR_CVD_ID, XR_EXTENSION_ID, customizationTextIs, ibanValid, inCodeList, lastToken, withoutWhitespace, xpathRegex,
} from "./xrechnung-support.js";

type Report = (rule: string, message: string, node: DocumentNode | null) => void;

const SKONTO = xpathRegex(SKONTO_REGEX);
const EMAIL = xpathRegex(EMAIL_REGEX);
const URL = xpathRegex(URL_REGEX);
/** $XR-TELEPHONE-REGEX '.*([0-9].*){3,}.*' on a normalize-space'd value: at least three digits (counted, not backtracked). */
const threeDigits = (text: string): boolean => (text.match(/[0-9]/g)?.length ?? 0) >= 3;

/** The VAT category codes for which BR-DE-16 requires the seller's VAT identifier or tax representative. */
const VAT_CODES_NEEDING_SELLER_VAT = new Set(["S", "Z", "E", "AE", "K", "G", "L", "M"]);
/** BR-DE-17: the invoice type codes XRechnung expects. */
const TYPE_CODES = new Set(["326", "380", "384", "389", "381", "875", "876", "877"]);

const filled = (node: DocumentNode | null | undefined): boolean => norm(node) !== "";
/** `x[boolean(normalize-space(.))]`: some child x that is not blank. */
const someFilled = (node: DocumentNode | null, qname: string): boolean => children(node, qname).some(filled);
const docName = (root: DocumentNode): string => (root.name === "CreditNote" ? "credit note" : "invoice");

// ---------------------------------------------------------------------------------------------------------
// Pattern ubl-pattern: BR-DE-1..31, BR-DE-TMP-32, BR-TMP-2

export const xrechnungRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  if (!isUblRoot(root)) return;
  const fatal: Report = ctx.fatal;
  const warning: Report = (rule, message, node) => ctx.report(rule, "warning", message, node);
  documentRules(ctx, fatal, warning);
  for (const adr of children(root, "cac:AdditionalDocumentReference")) {
    for (const ext of select(adr, "cac:Attachment/cac:ExternalReference")) {
      const uris = children(ext, "cbc:URI");
      const uri = stringValue(uris[0]);
      if (uris.length <= 1 && !URL.test(uri)) {
        warning("BR-TMP-2", uris.length === 0
          ? "The external document location (BT-124) is missing; give the absolute URL of the attached document."
          : `The external document location (BT-124) ${q(uri)} is not an absolute URL with a scheme, such as https://example.com/invoice.pdf.`, ext);
      }
    }
  }
  for (const asp of children(root, "cac:AccountingSupplierParty")) {
    if (!exists(asp, "cac:Party/cac:Contact")) {
      fatal("BR-DE-2", "The seller contact (BG-6: contact person, telephone and e-mail) is missing; XRechnung requires it.", child(asp, "cac:Party") ?? asp);
    }
    for (const party of children(asp, "cac:Party")) {
      for (const address of children(party, "cac:PostalAddress")) {
        if (!someFilled(address, "cbc:CityName")) fatal("BR-DE-3", "The seller's city (BT-37) is missing.", address);
        if (!someFilled(address, "cbc:PostalZone")) fatal("BR-DE-4", "The seller's post code (BT-38) is missing.", address);
      }
      for (const contact of children(party, "cac:Contact")) contactRules(contact, fatal, warning);
    }
  }
  for (const address of select(root, "cac:AccountingCustomerParty/cac:Party/cac:PostalAddress")) {
    if (!someFilled(address, "cbc:CityName")) fatal("BR-DE-8", "The buyer's city (BT-52) is missing.", address);
    if (!someFilled(address, "cbc:PostalZone")) fatal("BR-DE-9", "The buyer's post code (BT-53) is missing.", address);
  }
  for (const address of select(root, "cac:Delivery/cac:DeliveryLocation/cac:Address")) {
    if (!someFilled(address, "cbc:CityName")) fatal("BR-DE-10", "The deliver-to address (BG-15) has no city (BT-77); give it whenever the address is given.", address);
    if (!someFilled(address, "cbc:PostalZone")) fatal("BR-DE-11", "The deliver-to address (BG-15) has no post code (BT-78); give it whenever the address is given.", address);
  }
  for (const means of children(root, "cac:PaymentMeans")) paymentMeansRules(means, fatal, warning);
  for (const subtotal of select(root, "cac:TaxTotal/cac:TaxSubtotal")) {
    const category = child(subtotal, "cac:TaxCategory");
    if (!someFilled(category, "cbc:Percent")) {
      const code = normalizeSpace(stringValue(child(category, "cbc:ID")));
      fatal("BR-DE-14", `The VAT breakdown${code ? ` for category ${q(code)}` : ""} has no VAT rate (BT-119, cbc:Percent); XRechnung requires it, 0 where no VAT is charged.`, category ?? subtotal);
    }
  }
};

function documentRules(ctx: RuleContext, fatal: Report, warning: Report): void {
  const root = ctx.root;
  const doc = docName(root);
  if (!child(root, "cac:PaymentMeans")) fatal("BR-DE-1", `The ${doc} has no payment instructions (BG-16, cac:PaymentMeans); XRechnung requires them.`, root);
  if (!someFilled(root, "cbc:BuyerReference")) {
    fatal("BR-DE-15", `The ${doc} has no buyer reference (BT-10, cbc:BuyerReference); for a German public buyer this is the Leitweg-ID.`, root);
  }

  // BR-DE-16: a VAT category S, Z, E, AE, K, G, L or M needs the seller's VAT id / tax number or a tax representative.
  const used = new Set<string>();
  for (const ac of children(root, "cac:AllowanceCharge")) {
    const indicators = children(ac, "cbc:ChargeIndicator").map(stringValue);
    for (const id of select(ac, "cac:TaxCategory/cbc:ID")) {
      const code = stringValue(id);
      if (VAT_CODES_NEEDING_SELLER_VAT.has(code) && (indicators.includes("false") || indicators.includes("true"))) used.add(code);
    }
  }
  for (const line of [...children(root, "cac:InvoiceLine"), ...children(root, "cac:CreditNoteLine")]) {
    for (const id of select(line, "cac:Item/cac:ClassifiedTaxCategory/cbc:ID")) {
      if (VAT_CODES_NEEDING_SELLER_VAT.has(stringValue(id))) used.add(stringValue(id));
    }
  }
  const sellerTaxId = select(root, "cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID").some(filled);
  if (used.size > 0 && !child(root, "cac:TaxRepresentativeParty") && !sellerTaxId) {
    fatal("BR-DE-16", `The ${doc} uses VAT categor${used.size === 1 ? "y" : "ies"} ${[...used].map((text) => q(text)).join(", ")}, so it needs the seller's VAT identifier (BT-31) or tax registration number (BT-32) in cac:PartyTaxScheme/cbc:CompanyID, or a seller tax representative (BG-11).`, child(root, "cac:AccountingSupplierParty") ?? root);
  }

  const typeCode = normalizeSpace(stringValue(child(root, "cbc:InvoiceTypeCode")));
  const creditCode = normalizeSpace(stringValue(child(root, "cbc:CreditNoteTypeCode")));
  if (!TYPE_CODES.has(typeCode) && !TYPE_CODES.has(creditCode)) {
    const code = typeCode || creditCode;
    warning("BR-DE-17", `The ${doc} type code (BT-3) ${q(code)} is not one XRechnung expects: use 326 (partial invoice), 380 (commercial invoice), 384 (corrected invoice), 389 (self-billed invoice), 381 (credit note), 875, 876 or 877 (construction invoices).`,
      child(root, "cbc:InvoiceTypeCode") ?? child(root, "cbc:CreditNoteTypeCode") ?? root);
  }

  skontoRule(root, fatal);

  const cids = children(root, "cbc:CustomizationID").map(stringValue);
  if (!cids.some((cid) => cid === XR_CIUS_ID || cid === XR_EXTENSION_ID || cid === XR_CVD_ID)) {
    warning("BR-DE-21", `The specification identifier (BT-24) ${q(cids[0])} is not XRechnung's: use '${XR_CIUS_ID}'.`, child(root, "cbc:CustomizationID") ?? root);
  }

  // BR-DE-22: no two attachments with the same file name.
  const seen = new Set<string>();
  for (const adr of children(root, "cac:AdditionalDocumentReference")) {
    const names = select(adr, "cac:Attachment/cbc:EmbeddedDocumentBinaryObject").map((embeddedDocumentBinaryObject) => embeddedDocumentBinaryObject.attrs.filename).filter((text): text is string => text !== undefined);
    const repeated = names.find((name) => seen.has(name));
    if (repeated !== undefined) {
      fatal("BR-DE-22", `Two attached documents have the same file name ${q(repeated)}; each attachment's filename must be unique.`, adr);
    }
    for (const name of names) seen.add(name);
  }

  if ((typeCode === "384" || creditCode === "384") && !exists(root, "cac:BillingReference/cac:InvoiceDocumentReference")) {
    warning("BR-DE-26", `The ${doc} is a corrected invoice (type code 384) but does not reference the invoice it corrects (BG-3, cac:BillingReference).`, root);
  }

  const mandates = select(root, "cac:PaymentMeans/cac:PaymentMandate");
  if (mandates.length > 0) {
    const sepa = (path: string) => select(root, path).some((id) => id.attrs.schemeID === "SEPA");
    if (!sepa("cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID") && !sepa("cac:PayeeParty/cac:PartyIdentification/cbc:ID")) {
      fatal("BR-DE-30", "The invoice is paid by direct debit (BG-19), so the seller's or payee's SEPA creditor identifier (BT-90: cac:PartyIdentification/cbc:ID with schemeID 'SEPA') is required.",
        first(root, "cac:AccountingSupplierParty/cac:Party") ?? root);
    }
    if (!mandates.some((paymentMandate) => exists(paymentMandate, "cac:PayerFinancialAccount/cbc:ID"))) {
      fatal("BR-DE-31", "The invoice is paid by direct debit (BG-19), so the debited account (BT-91, cac:PayerFinancialAccount/cbc:ID) is required.", mandates[0]!);
    }
  }

  const lines = [...children(root, "cac:InvoiceLine"), ...children(root, "cac:CreditNoteLine")];
  if (!exists(root, "cac:Delivery/cbc:ActualDeliveryDate") && !child(root, "cac:InvoicePeriod") && !lines.every((line) => child(line, "cac:InvoicePeriod"))) {
    // Flag "information" in the official rules: levelled by the rule set (never an error, never a warning in the report).
    ctx.report("BR-DE-TMP-32", "warning", `The ${doc} gives no date of delivery or service: no actual delivery date (BT-72), no invoicing period (BG-14) and not every line has a period (BG-26).`, root);
  }
}

/**
 * BR-DE-18: every line of the first note of the payment terms that starts with '#' is a well-formed cash-discount
 * line (#SKONTO#TAGE=n#PROZENT=n.nn# with an optional #BASISBETRAG=n.nn#), and the text after the last one starts
 * with a line break.
 */
function skontoRule(root: DocumentNode, fatal: Report): void {
  const notes = children(root, "cac:PaymentTerms").map((paymentTerms) => child(paymentTerms, "cbc:Note")).filter((node): node is DocumentNode => node !== null);
  const bad: string[] = [];
  let any = false;
  for (const note of notes) {
    const text = stringValue(note);
    if (text === "") continue;
    for (const line of text.split(/\r?\n/)) {
      const trimmed = normalizeSpace(line);
      if (!trimmed.startsWith("#")) continue;
      any = true;
      if (!SKONTO.test(trimmed)) bad.push(trimmed);
    }
  }
  if (!any) return;
  // matches(cac:PaymentTerms/cbc:Note[1]/tokenize(., '#.+#')[last()], '^\s*\n'): the text after the last #...# group.
  const tail = notes.length > 0 ? lastToken(stringValue(notes[0])) : "";
  const endsWithBreak = /^[ \t\n\r]*\n/.test(tail);
  if (bad.length > 0 || !endsWithBreak) {
    const node = notes[0]!;
    fatal("BR-DE-18", bad.length > 0
      ? `The cash discount line ${q(bad[0])} in the payment terms (BT-20) is not in the form #SKONTO#TAGE=14#PROZENT=2.00# (optionally followed by BASISBETRAG=123.45#), in capitals, without spaces, the percentage with two decimals.`
      : "The cash discount (Skonto) line in the payment terms (BT-20) must end with a line break.", node);
  }
}

function contactRules(contact: DocumentNode, fatal: Report, warning: Report): void {
  if (!someFilled(contact, "cbc:Name")) fatal("BR-DE-5", "The seller contact point (BT-41, cbc:Name) is missing: give the name of a person or department.", contact);
  if (!someFilled(contact, "cbc:Telephone")) fatal("BR-DE-6", "The seller contact's telephone number (BT-42) is missing.", contact);
  if (!someFilled(contact, "cbc:ElectronicMail")) fatal("BR-DE-7", "The seller contact's e-mail address (BT-43) is missing.", contact);
  const phones = children(contact, "cbc:Telephone");
  if (phones.length <= 1 && !threeDigits(norm(phones[0]))) {
    const phone = norm(phones[0]);
    warning("BR-DE-27", phone === ""
      ? "The seller contact's telephone number (BT-42) is missing; it should be a number with at least three digits."
      : `The seller contact's telephone number (BT-42) ${q(phone)} should contain at least three digits.`, phones[0] ?? contact);
  }
  const mails = children(contact, "cbc:ElectronicMail");
  if (mails.length <= 1 && !EMAIL.test(norm(mails[0]))) {
    const mail = norm(mails[0]);
    warning("BR-DE-28", mail === ""
      ? "The seller contact's e-mail address (BT-43) is missing; it should be an address such as name@example.com."
      : `The seller contact's e-mail address (BT-43) ${q(mail)} does not look like an e-mail address (one @ with a name before it and a domain after it).`, mails[0] ?? contact);
  }
}

function paymentMeansRules(means: DocumentNode, fatal: Report, warning: Report): void {
  const code = normalizeSpace(stringValue(child(means, "cbc:PaymentMeansCode")));
  const has = (qname: string) => child(means, qname) !== null;
  if (code === "30" || code === "58") {
    if (code === "58") {
      const ids = select(means, "cac:PayeeFinancialAccount/cbc:ID");
      if (ids.length <= 1 && !ibanValid(withoutWhitespace(stringValue(ids[0])))) {
        warning("BR-DE-19", ids.length === 0 || norm(ids[0]) === ""
          ? "Payment means 58 is a SEPA credit transfer, so the payment account (BT-84, cac:PayeeFinancialAccount/cbc:ID) should be given as an IBAN; it is missing."
          : `Payment means 58 is a SEPA credit transfer, so the payment account (BT-84) should be a valid IBAN; ${q(norm(ids[0]))} is not (wrong format or check digits).`, ids[0] ?? means);
      }
    }
    if (!has("cac:PayeeFinancialAccount")) fatal("BR-DE-23-a", `Payment means ${code} is a credit transfer, so the account to pay into (BG-17, cac:PayeeFinancialAccount) is required.`, means);
    if (has("cac:CardAccount") || has("cac:PaymentMandate")) {
      fatal("BR-DE-23-b", `Payment means ${code} is a credit transfer, so it must not carry ${has("cac:CardAccount") ? "payment card information (BG-18)" : "a direct debit mandate (BG-19)"}.`, means);
    }
  } else if (code === "48" || code === "54" || code === "55") {
    if (!has("cac:CardAccount")) fatal("BR-DE-24-a", `Payment means ${code} is a card payment, so the payment card information (BG-18, cac:CardAccount) is required.`, means);
    if (has("cac:PayeeFinancialAccount") || has("cac:PaymentMandate")) {
      fatal("BR-DE-24-b", `Payment means ${code} is a card payment, so it must not carry ${has("cac:PayeeFinancialAccount") ? "a credit transfer account (BG-17)" : "a direct debit mandate (BG-19)"}.`, means);
    }
  } else if (code === "59") {
    const ids = select(means, "cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID");
    if (ids.length <= 1 && !ibanValid(withoutWhitespace(stringValue(ids[0])))) {
      warning("BR-DE-20", ids.length === 0 || norm(ids[0]) === ""
        ? "Payment means 59 is a SEPA direct debit, so the debited account (BT-91, cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID) should be given as an IBAN; it is missing."
        : `Payment means 59 is a SEPA direct debit, so the debited account (BT-91) should be a valid IBAN; ${q(norm(ids[0]))} is not (wrong format or check digits).`, ids[0] ?? means);
    }
    if (!has("cac:PaymentMandate")) fatal("BR-DE-25-a", "Payment means 59 is a direct debit, so the direct debit information (BG-19, cac:PaymentMandate) is required.", means);
    if (has("cac:PayeeFinancialAccount") || has("cac:CardAccount")) {
      fatal("BR-DE-25-b", `Payment means 59 is a direct debit, so it must not carry ${has("cac:PayeeFinancialAccount") ? "a credit transfer account (BG-17)" : "payment card information (BG-18)"}.`, means);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Pattern ubl-extension-pattern: BR-DEX-01..14, only for the XRechnung extension's CustomizationID

const DEX_MIME_CODES = new Set([
  "application/pdf", "image/png", "image/jpeg", "text/csv",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.oasis.opendocument.spreadsheet", "application/xml",
]);
const ICD_EXT = DIGA_CODES + ISO6523_ICD_CODES; // $ISO-6523-ICD-EXT-CODES
const EAS_EXT = DIGA_CODES + CEF_EAS_CODES; // $CEF-EAS-EXT-CODES

export const xrechnungExtensionRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  if (!customizationTextIs(root, XR_EXTENSION_ID) || !isUblRoot(root)) return;
  const fatal: Report = ctx.fatal;
  for (const obj of all(root, "cbc:EmbeddedDocumentBinaryObject")) {
    const mime = obj.attrs.mimeCode;
    if (mime === undefined || !DEX_MIME_CODES.has(mime)) {
      fatal("BR-DEX-01", `The attached document (BT-125) has MIME code ${q(mime)}; allowed are application/pdf, image/png, image/jpeg, text/csv, the Excel and OpenDocument spreadsheet types and, in the extension, application/xml.`, obj);
    }
  }
  if (root.name === "Invoice") subLineRules(ctx, root);
  for (const total of all(root, "cac:LegalMonetaryTotal")) dueAmountRule(total, fatal);
  const scheme = (rule: string, nodes: readonly DocumentNode[], list: string, what: string, sepaOk = false) => {
    for (const id of nodes) {
      const raw = id.attrs.schemeID;
      if (raw === undefined) continue;
      const text = normalizeSpace(raw);
      if (inCodeList(list, text)) continue;
      if (sepaOk && text === "SEPA" && ancestorNamed(id, "cac:AccountingSupplierParty", "cac:PayeeParty")) continue;
      fatal(rule, `The scheme ${q(raw)} of the ${what} ${q(norm(id))} is not in the ${list === EAS_EXT ? "electronic address scheme (EAS)" : "ISO 6523 ICD"} code list (with XRechnung's XR01, XR02, XR03).`, id);
    }
  };
  scheme("BR-DEX-04", all(root, "cbc:ID").filter((id) => id.parent?.qname === "cac:PartyIdentification"), ICD_EXT, "party identifier", true);
  scheme("BR-DEX-05", all(root, "cbc:CompanyID").filter((companyId) => companyId.parent?.qname === "cac:PartyLegalEntity"), ICD_EXT, "legal registration identifier");
  scheme("BR-DEX-06", all(root, "cbc:ID").filter((id) => id.parent?.qname === "cac:StandardItemIdentification"), ICD_EXT, "item's standard identifier");
  scheme("BR-DEX-07", all(root, "cbc:EndpointID"), EAS_EXT, "electronic address");
  scheme("BR-DEX-08", all(root, "cbc:ID").filter((id) => id.parent?.qname === "cac:DeliveryLocation"), ICD_EXT, "delivery location identifier");
  if (root.name === "Invoice") for (const payment of children(root, "cac:PrepaidPayment")) thirdPartyPaymentRules(root, payment, fatal);
};

function ancestorNamed(node: DocumentNode, ...qnames: string[]): boolean {
  for (let element = node.parent; element; element = element.parent) if (qnames.includes(element.qname)) return true;
  return false;
}

/** BR-DEX-02 (warning) and BR-DEX-03 on the sub invoice lines of an extension invoice. */
function subLineRules(ctx: RuleContext, root: DocumentNode): void {
  const amount = (node: DocumentNode): Decimal | null => dec(stringValue(child(node, "cbc:LineExtensionAmount")));
  const sumOf = (subs: DocumentNode[]): Decimal | null => {
    const values = subs.map((sub) => dec(stringValue(child(sub, "cbc:LineExtensionAmount"))));
    return values.every((value) => value !== null) ? sum(values as Decimal[]) : null;
  };
  const mismatch = (node: DocumentNode): boolean => {
    const subs = children(node, "cac:SubInvoiceLine");
    const own = amount(node), total = sumOf(subs);
    return own === null || total === null || !own.eq(total);
  };
  const parents = [...children(root, "cac:InvoiceLine"), ...all(root, "cac:SubInvoiceLine")].filter((node) => child(node, "cac:SubInvoiceLine"));
  const wrong = parents.find(mismatch);
  if (wrong) {
    const subs = children(wrong, "cac:SubInvoiceLine");
    ctx.report("BR-DEX-02", "warning", `The ${wrong.qname === "cac:InvoiceLine" ? "invoice line" : "sub invoice line"} ${q(norm(child(wrong, "cbc:ID")))} has net amount (BT-131) ${q(norm(child(wrong, "cbc:LineExtensionAmount")))}, but its ${subs.length} sub invoice lines add up to ${sumOf(subs)?.toFixed() ?? "(not a number)"}; they should be equal.`, root);
  }
  const badItem = all(root, "cac:Item").find((item) => item.parent?.qname === "cac:SubInvoiceLine" && children(item, "cac:ClassifiedTaxCategory").length !== 1);
  if (badItem) {
    const count = children(badItem, "cac:ClassifiedTaxCategory").length;
    ctx.report("BR-DEX-03", "fatal", `The sub invoice line ${q(norm(child(badItem.parent, "cbc:ID")))} has ${count} VAT categories for its item (BG-DEX-06, cac:ClassifiedTaxCategory); exactly one is required.`, root);
  }
}

/** BR-DEX-09: amount due = total with VAT - paid amount + rounding + third party payments (replaces BR-CO-16). */
function dueAmountRule(total: DocumentNode, fatal: Report): void {
  const at = (qname: string): Decimal | null => dec(stringValue(child(total, qname)));
  const optional = (qname: string): Decimal | null => (child(total, qname) ? at(qname) : dec("0"));
  const payments = select(total.parent, "cac:PrepaidPayment/cbc:PaidAmount");
  const thirdParty = payments.some(filled) ? sumOrNull(payments.map((paidAmount) => dec(stringValue(paidAmount)))) : dec("0");
  const payable = at("cbc:PayableAmount"), inclusive = at("cbc:TaxInclusiveAmount");
  const prepaid = optional("cbc:PrepaidAmount"), rounding = optional("cbc:PayableRoundingAmount");
  const ok = payable && inclusive && prepaid && rounding && thirdParty
    && round2(payable.minus(rounding)).eq(round2(inclusive.minus(prepaid).plus(thirdParty)));
  if (!ok) {
    fatal("BR-DEX-09", `The amount due (BT-115) ${q(norm(child(total, "cbc:PayableAmount")))} must equal the total with VAT (BT-112) ${q(norm(child(total, "cbc:TaxInclusiveAmount")))} minus the paid amount (BT-113) ${q(norm(child(total, "cbc:PrepaidAmount")) || "0")} plus the rounding (BT-114) ${q(norm(child(total, "cbc:PayableRoundingAmount")) || "0")} plus the third party payments (BT-DEX-002) ${q(thirdParty?.toFixed() ?? "(not a number)")}.`, total);
  }
}

function sumOrNull(values: (Decimal | null)[]): Decimal | null {
  return values.every((value) => value !== null) ? sum(values as Decimal[]) : null;
}

/** BR-DEX-10..14 on a third party payment (BG-DEX-09, cac:PrepaidPayment). */
function thirdPartyPaymentRules(root: DocumentNode, payment: DocumentNode, fatal: Report): void {
  if (!someFilled(payment, "cbc:ID")) fatal("BR-DEX-10", "The third party payment (BG-DEX-09) has no payment type (BT-DEX-001, cbc:ID).", payment);
  if (!someFilled(payment, "cbc:PaidAmount")) fatal("BR-DEX-11", "The third party payment (BG-DEX-09) has no amount (BT-DEX-002, cbc:PaidAmount).", payment);
  if (!someFilled(payment, "cbc:InstructionID")) fatal("BR-DEX-12", "The third party payment (BG-DEX-09) has no description (BT-DEX-003, cbc:InstructionID).", payment);
  const amounts = children(payment, "cbc:PaidAmount");
  const text = stringValue(amounts[0]);
  const point = text.indexOf(".");
  if (amounts.length <= 1 && point >= 0 && [...text.slice(point + 1)].length > 2) {
    fatal("BR-DEX-13", `The third party payment amount (BT-DEX-002) ${q(text)} has more than two decimals.`, amounts[0]!);
  }
  const currencies = children(root, "cbc:DocumentCurrencyCode").map(stringValue);
  if (!amounts.some((paidAmount) => paidAmount.attrs.currencyID !== undefined && currencies.includes(paidAmount.attrs.currencyID))) {
    fatal("BR-DEX-14", `The third party payment amount (BT-DEX-002) is in ${q(amounts[0]?.attrs.currencyID)}, not in the invoice currency (BT-5) ${q(currencies[0])}.`, amounts[0] ?? payment);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Pattern ubl-cvd-pattern: BR-DE-CVD-01..06, BR-TMP-CVD-01, only for XRechnung CVD's CustomizationID

const CVD_LIST_IDS = CVD_CODE + UNTDID7143_CODES; // $UNTDID-7143-CVD-CODES

export const xrechnungCvdRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  if (!isUblRoot(root) || !customizationTextIs(root, XR_CVD_ID)) return;
  const fatal: Report = ctx.fatal;
  if (!select(root, "cac:OriginatorDocumentReference/cbc:ID").some(filled)) fatal("BR-DE-CVD-02", "A clean vehicles (CVD) invoice needs the tender or lot reference (BT-17).", root);
  if (!select(root, "cac:ContractDocumentReference/cbc:ID").some(filled)) fatal("BR-DE-CVD-01", "A clean vehicles (CVD) invoice needs the contract reference (BT-12).", root);
  const items = select(root, root.name === "Invoice" ? "cac:InvoiceLine/cac:Item" : "cac:CreditNoteLine/cac:Item");
  const cvdCodes = (item: DocumentNode) => select(item, "cac:CommodityClassification/cbc:ItemClassificationCode").filter((itemClassificationCode) => itemClassificationCode.attrs.listID === "CVD");
  const cvaProps = (item: DocumentNode) => children(item, "cac:AdditionalItemProperty").filter((additionalItemProperty) => children(additionalItemProperty, "cbc:Name").some((name) => stringValue(name) === "cva"));
  const allItems = select(root, "cac:InvoiceLine/cac:Item").concat(select(root, "cac:CreditNoteLine/cac:Item"));
  if (!allItems.some((item) => cvdCodes(item).length > 0 && cvaProps(item).length > 0)) {
    fatal("BR-DE-CVD-03", "A clean vehicles (CVD) invoice needs at least one line whose item has a classification with scheme 'CVD' (BT-158) and an attribute named 'cva' (BT-160).", root);
  }
  for (const item of items) {
    const codes = cvdCodes(item), props = cvaProps(item);
    if (codes.length > 0 && props.length !== 1) fatal("BR-DE-CVD-06-a", `The item has a CVD vehicle category, so it needs exactly one attribute named 'cva' (BT-160); it has ${props.length}.`, item);
    if (props.length > 0 && codes.length !== 1) fatal("BR-DE-CVD-06-b", `The item has an attribute 'cva', so it needs exactly one classification with scheme 'CVD' (BT-158); it has ${codes.length}.`, item);
    for (const code of select(item, "cac:CommodityClassification/cbc:ItemClassificationCode")) {
      const listId = normalizeSpace(code.attrs.listID ?? "");
      if (!inCodeList(CVD_LIST_IDS, listId)) fatal("BR-TMP-CVD-01", `The item classification scheme (BT-158-1) ${q(code.attrs.listID)} is not in UNTDID 7143 (or 'CVD').`, code);
      if (listId === "CVD" && !CVD_VEHICLE_CATEGORIES.includes(norm(code))) {
        fatal("BR-DE-CVD-04", `The CVD vehicle category ${q(norm(code))} is not one of ${CVD_VEHICLE_CATEGORIES.join(", ")}.`, code);
      }
    }
    for (const prop of props) {
      if (!CVA_CODES.includes(normalizeSpace(stringValue(child(prop, "cbc:Value"))))) {
        fatal("BR-DE-CVD-05", `The 'cva' attribute value (BT-161) ${q(norm(child(prop, "cbc:Value")))} is not one of ${CVA_CODES.join(", ")}.`, prop);
      }
    }
  }
};

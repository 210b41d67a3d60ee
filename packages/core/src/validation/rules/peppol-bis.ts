// PEPPOL-EN16931-R*, PEPPOL-COMMON-R* (identifier formats and check digits) and the code list rules
// PEPPOL-EN16931-CL*/P*/F001 of Peppol BIS Billing 3.0 release 2026.5, by Schematron context.
//
// In a Schematron pattern an element is checked by the first rule whose context it matches, so the
// visitors below are if/else chains in the official order of each pattern.
import { child, children, exists, first, isBlankText, norm, normalizeSpace, select, stringValue, textAt, type DocumentNode } from "../../document/model.js";
import { dec, HUNDRED, lit, ONE, round2, ZERO, type Decimal } from "../decimal.js";
import {
  CREDIT_NOTE_TYPE_CODES, EAS_SCHEMES, INVOICE_TYPE_CODES, ISO4217_CURRENCIES, MIME_CODES,
  UNCL2005_PERIOD_CODES, UNCL5189_ALLOWANCE_REASONS, UNCL7161_CHARGE_REASONS,
} from "../codelists/peppol.js";
import {
  abnValid, belgianEnterpriseNumberValid, glnCheckDigitValid, italianFiscalCodeValid, italianIpaCodeValid,
  italianVatNumberValid, mod11Valid, swedishOrgNumberValid,
} from "./peppol-checkdigits.js";
import { isNumber, normOne, q, xlength, xnumber, xsDate, xsubstring, type PeppolFacts } from "./peppol-support.js";
import { decOf } from "./cen-common.js";

// Constants of the line and allowance arithmetic, made once (big.js values are immutable).
const TOLERANCE = lit("0.02");

const BIS3 = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";

/** Pattern "empty elements": every element without child elements and without text (R008). */
export function emptyElement(facts: PeppolFacts, node: DocumentNode): void {
  if (node.children.length === 0 && isBlankText(node.text)) {
    facts.report("PEPPOL-EN16931-R008", "fatal", `The element ${node.qname} is empty; leave it out instead of sending it without a value.`, node);
  }
}

/** Pattern of R080 (credit notes only) and the document-level rule of the main pattern. */
export function documentRules(facts: PeppolFacts): void {
  const { root } = facts;
  if (facts.isCreditNote) {
    const projects = children(root, "cac:AdditionalDocumentReference").filter((additionalDocumentReference) => children(additionalDocumentReference, "cbc:DocumentTypeCode").some((documentTypeCode) => stringValue(documentTypeCode) === "50"));
    if (projects.length > 1) facts.report("PEPPOL-EN16931-R080", "fatal", `The credit note has ${projects.length} project references (document references with type code 50); at most one is allowed.`, root);
  }
  if (!facts.isInvoice && !facts.isCreditNote) return;
  const doc = facts.isInvoice ? "invoice" : "credit note";
  if (!child(root, "cbc:ProfileID")) facts.report("PEPPOL-EN16931-R001", "fatal", `The ${doc} has no business process (cbc:ProfileID); Peppol BIS Billing 3.0 requires 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0'.`, root);
  if (facts.profile === "Unknown") facts.report("PEPPOL-EN16931-R007", "fatal", `The business process ${q(textAt(root, "cbc:ProfileID"))} is not an approved one; use 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0'.`, root);
  const notes = children(root, "cbc:Note").length;
  if (notes > 1 && !(facts.supplierIsDE && facts.customerIsDE)) facts.report("PEPPOL-EN16931-R002", "fatal", `The ${doc} has ${notes} notes at document level; only one is allowed unless both seller and buyer are in Germany.`, root);
  if (!child(root, "cbc:BuyerReference") && !exists(root, "cac:OrderReference/cbc:ID")) facts.report("PEPPOL-EN16931-R003", "fatal", `The ${doc} has neither a buyer reference nor a purchase order reference; the buyer needs one of them.`, root);
  const cid = normText(child(root, "cbc:CustomizationID"));
  if (!(cid.startsWith(BIS3) && !cid.includes("::"))) facts.report("PEPPOL-EN16931-R004", "fatal", `The specification identifier ${q(cid)} must begin with '${BIS3}' (and contain no '::').`, root);
  const totals = children(root, "cac:TaxTotal");
  const withSub = totals.filter((taxTotal) => child(taxTotal, "cac:TaxSubtotal")).length;
  if (withSub !== 1) facts.report("PEPPOL-EN16931-R053", "fatal", `The ${doc} has ${withSub} VAT totals with a VAT breakdown; exactly one is required.`, root);
  const taxCurrency = child(root, "cbc:TaxCurrencyCode");
  const without = totals.length - withSub, wanted = taxCurrency ? 1 : 0;
  if (without !== wanted) {
    facts.report("PEPPOL-EN16931-R054", "fatal", taxCurrency
      ? `The ${doc} gives a VAT accounting currency, so it needs exactly one VAT total without breakdown (the VAT in that currency); it has ${without}.`
      : `The ${doc} has ${without} VAT totals without breakdown but no VAT accounting currency (cbc:TaxCurrencyCode); leave them out.`, root);
  }
  if (taxCurrency) {
    const inTax = taxAmountsIn(totals, norm(taxCurrency)), inDoc = taxAmountsIn(totals, norm(child(root, "cbc:DocumentCurrencyCode")));
    const allNonPos = inTax.some((amount) => amount !== null && amount.lte(ZERO)) && inDoc.some((amount) => amount !== null && amount.lte(ZERO));
    const allNonNeg = inTax.some((amount) => amount !== null && amount.gte(ZERO)) && inDoc.some((amount) => amount !== null && amount.gte(ZERO));
    if (!allNonPos && !allNonNeg) facts.report("PEPPOL-EN16931-R055", "fatal", `The total VAT in the invoice currency and the total VAT in the accounting currency (${norm(taxCurrency)}) must have the same sign.`, root);
  }
}

function taxAmountsIn(totals: DocumentNode[], currency: string): (Decimal | null)[] {
  return totals.flatMap((total) => children(total, "cbc:TaxAmount")).filter((taxAmount) => taxAmount.attrs.currencyID === currency).map((taxAmount) => xnumber(stringValue(taxAmount)));
}

/** normalize-space(x/text()): the element's own text. */
function normText(node: DocumentNode | null): string {
  return node ? normalizeSpace(node.text) : "";
}

const AMOUNTS = new Set(["cbc:Amount", "cbc:BaseAmount", "cbc:PriceAmount", "cbc:TaxableAmount", "cbc:LineExtensionAmount", "cbc:TaxExclusiveAmount", "cbc:TaxInclusiveAmount", "cbc:AllowanceTotalAmount", "cbc:ChargeTotalAmount", "cbc:PrepaidAmount", "cbc:PayableRoundingAmount", "cbc:PayableAmount"]);

const ICD_RULES: ReadonlyArray<readonly [scheme: string, check: (facts: PeppolFacts, node: DocumentNode) => void]> = [
  ["0088", (facts, node) => { const text = norm(node); if (!(/^[0-9]+$/.test(text) && glnCheckDigitValid(text))) facts.report("PEPPOL-COMMON-R040", "fatal", `${what(node)} ${q(text)} (scheme 0088) is not a valid GLN: ${/^[0-9]+$/.test(text) ? "the check digit is wrong" : "it must be digits only"}.`, node); }],
  ["0192", (facts, node) => { const text = norm(node); if (!(/^[0-9]{9}$/.test(text) && mod11Valid(text))) facts.report("PEPPOL-COMMON-R041", "fatal", `${what(node)} ${q(text)} (scheme 0192) is not a valid Norwegian organisation number: ${/^[0-9]{9}$/.test(text) ? "the check digit is wrong" : "it must be nine digits"}.`, node); }],
  ["0184", (facts, node) => { const text = stringValue(node); const ok = (xlength(text) === 10 && xsubstring(text, 1, 2) === "DK" && /^[0-9]*$/.test(xsubstring(text, 3, 8))) || (xlength(text) === 8 && /^[0-9]*$/.test(xsubstring(text, 1, 8))); if (!ok) facts.report("PEPPOL-COMMON-R042", "fatal", `${what(node)} ${q(text)} (scheme 0184) is not a Danish CVR number: it must be eight digits, or DK followed by eight digits, with no spaces.`, node); }],
  ["0096", (facts, node) => { const text = stringValue(node); if (!(xlength(text) === 10 && /^[0-9]*$/.test(xsubstring(text, 1, 10)))) facts.report("PEPPOL-COMMON-R052", "fatal", `${what(node)} ${q(text)} (scheme 0096) is not a Danish P number: it must be ten digits, with no spaces.`, node); }],
  ["0198", (facts, node) => { const text = stringValue(node); if (!(xlength(text) === 10 && xsubstring(text, 1, 2) === "DK" && /^[0-9]*$/.test(xsubstring(text, 3, 8)))) facts.report("PEPPOL-COMMON-R053", "fatal", `${what(node)} ${q(text)} (scheme 0198) is not a Danish ERSTORG (SE) number: it must be DK followed by eight digits, with no spaces.`, node); }],
  ["0208", (facts, node) => { const text = norm(node); if (!(/^[0-9]{10}$/.test(text) && belgianEnterpriseNumberValid(text))) facts.report("PEPPOL-COMMON-R043", "fatal", `${what(node)} ${q(text)} (scheme 0208) is not a valid Belgian enterprise number: ${/^[0-9]{10}$/.test(text) ? "the last two digits (the check digits) are wrong" : "it must be ten digits"}.`, node); }],
  ["0201", (facts, node) => { const text = norm(node); if (!italianIpaCodeValid(text)) facts.report("PEPPOL-COMMON-R044", "warning", `${what(node)} ${q(text)} (scheme 0201) is not an Italian IPA office code: it must be six letters or digits.`, node); }],
  ["0210", (facts, node) => { const text = norm(node); if (!italianFiscalCodeValid(text)) facts.report("PEPPOL-COMMON-R045", "warning", `${what(node)} ${q(text)} (scheme 0210) is not an Italian tax code (codice fiscale): it must be 16 characters in the personal format or 11 digits.`, node); }],
  ["9907", (facts, node) => { if (node.qname !== "cbc:EndpointID") return; const text = norm(node); if (!italianFiscalCodeValid(text)) facts.report("PEPPOL-COMMON-R046", "warning", `The electronic address ${q(text)} (scheme 9907) is not an Italian tax code (codice fiscale): it must be 16 characters in the personal format or 11 digits.`, node); }],
  ["0211", (facts, node) => { const text = norm(node); if (!italianVatNumberValid(text)) facts.report("PEPPOL-COMMON-R047", "warning", `${what(node)} ${q(text)} (scheme 0211) is not a valid Italian VAT number (partita IVA): after IT come eleven digits with a valid check digit.`, node); }],
  ["0007", (facts, node) => { const text = norm(node); if (!(xlength(text) === 10 && isNumber(text) && swedishOrgNumberValid(text))) facts.report("PEPPOL-COMMON-R049", "fatal", `${what(node)} ${q(text)} (scheme 0007) is not a valid Swedish organisation number: ${/^[0-9]{10}$/.test(text) ? "the last digit (the check digit) is wrong" : "it must be ten digits"}.`, node); }],
  ["0151", (facts, node) => { const text = norm(node); if (!(/^[0-9]{11}$/.test(text) && abnValid(text))) facts.report("PEPPOL-COMMON-R050", "fatal", `${what(node)} ${q(text)} (scheme 0151) is not a valid Australian Business Number: ${/^[0-9]{11}$/.test(text) ? "the check digits are wrong" : "it must be eleven digits"}.`, node); }],
  ["0106", (facts, node) => { const text = norm(node); if (!/^[0-9]{8}$/.test(text)) facts.report("PEPPOL-COMMON-R054", "warning", `${what(node)} ${q(text)} (scheme 0106) is not a Dutch Chamber of Commerce (KVK) number: it must be eight digits, like 12345678.`, node); }],
  ["0190", (facts, node) => { const text = norm(node); if (!/^[0-9]{20}$/.test(text)) facts.report("PEPPOL-COMMON-R055", "warning", `${what(node)} ${q(text)} (scheme 0190) is not a Dutch organisation number (OIN): it must be twenty digits.`, node); }],
  ["9944", (facts, node) => { const text = norm(node); if (!/^NL[0-9]{9}B[0-9]{2}$/.test(text)) facts.report("PEPPOL-COMMON-R056-1", "warning", `${what(node)} ${q(text)} (scheme 9944) is not a Dutch VAT number: it must look like NL123456789B12.`, node); }],
];

function what(node: DocumentNode): string {
  if (node.qname === "cbc:EndpointID") return `The ${partyName(node)}electronic address`;
  if (node.qname === "cbc:CompanyID") return `The ${partyName(node)}${node.parent?.qname === "cac:PartyLegalEntity" ? "legal registration number" : "tax registration number"}`;
  return `The ${partyName(node)}identifier`;
}

function partyName(node: DocumentNode): string {
  for (let element = node.parent; element; element = element.parent) {
    switch (element.qname) {
      case "cac:AccountingSupplierParty": return "seller's ";
      case "cac:AccountingCustomerParty": return "buyer's ";
      case "cac:PayeeParty": return "payee's ";
      case "cac:TaxRepresentativeParty": return "tax representative's ";
      case "cac:Delivery": return "delivery ";
    }
  }
  return "";
}

/** Pattern "identifier schemes" (PEPPOL-COMMON): the check for the scheme of an identifier, if any. */
function identifierRules(facts: PeppolFacts, node: DocumentNode): void {
  const isId = node.qname === "cbc:EndpointID" || node.qname === "cbc:CompanyID" || (node.qname === "cbc:ID" && node.parent?.qname === "cac:PartyIdentification");
  if (!isId) return;
  const scheme = node.attrs.schemeID;
  if (scheme !== undefined) {
    for (const [code, check] of ICD_RULES) {
      if (scheme === code) {
        if (code !== "9907" || node.qname === "cbc:EndpointID") return check(facts, node);
      }
    }
  }
  if (node.qname === "cbc:CompanyID" && node.parent?.qname === "cac:PartyTaxScheme" && normOne(select(node.parent, "cac:TaxScheme/cbc:ID")) === "VAT" && norm(node).startsWith("NL")) {
    if (!/^NL[0-9]{9}B[0-9]{2}$/.test(norm(node))) facts.report("PEPPOL-COMMON-R056-2", "warning", `The Dutch VAT number ${q(norm(node))} must look like NL123456789B12.`, node);
    return;
  }
  if (scheme === "0217" && !/^[0-9]{12}$/.test(norm(node))) facts.report("PEPPOL-COMMON-R057", "warning", `${what(node)} ${q(norm(node))} (scheme 0217) is not a Dutch Chamber of Commerce establishment number: it must be twelve digits.`, node);
}

/** The main pattern (document, parties, allowances and charges, payment, amounts, lines, prices, identifiers). */
export function mainRules(facts: PeppolFacts, node: DocumentNode): void {
  const { root } = facts;
  const parent = node.parent;
  switch (node.qname) {
    case "Invoice": case "CreditNote":
      return; // documentRules
    case "cbc:TaxCurrencyCode": {
      const own = normText(node), docCur = normText(child(parent, "cbc:DocumentCurrencyCode"));
      if (own === docCur) facts.report("PEPPOL-EN16931-R005", "fatal", `The VAT accounting currency ${q(own)} is the invoice currency; give it only when it differs.`, node);
      return;
    }
    case "cac:Party":
      if (parent?.qname === "cac:AccountingCustomerParty") {
        if (!child(node, "cbc:EndpointID")) facts.report("PEPPOL-EN16931-R010", "fatal", "The buyer has no electronic address (cbc:EndpointID); Peppol delivers to it, so it is required.", node);
      } else if (parent?.qname === "cac:AccountingSupplierParty") {
        if (!child(node, "cbc:EndpointID")) facts.report("PEPPOL-EN16931-R020", "fatal", "The seller has no electronic address (cbc:EndpointID); it is required.", node);
      }
      return;
    case "cac:AllowanceCharge": {
      const lineName = facts.isInvoice ? "cac:InvoiceLine" : "cac:CreditNoteLine";
      const inScope = (facts.isInvoice || facts.isCreditNote) && (parent === root || (parent?.qname === lineName && parent.parent === root));
      if (inScope) allowanceChargeRules(facts, node);
      else if (parent?.qname === "cac:Price") priceAllowanceRules(facts, node);
      return;
    }
    case "cac:PaymentMeans": {
      const code = normOne(children(node, "cbc:PaymentMeansCode"));
      if ((code === "49" || code === "59") && !exists(node, "cac:PaymentMandate/cbc:ID")) facts.report("PEPPOL-EN16931-R061", "fatal", `Payment means ${code} is a direct debit, so the mandate reference (cac:PaymentMandate/cbc:ID) is required.`, node);
      return;
    }
    case "cbc:StartDate": case "cbc:EndDate":
      return linePeriodRules(facts, node);
    case "cac:InvoiceLine": case "cac:CreditNoteLine":
      return lineRules(facts, node);
    case "cbc:BaseQuantity":
      if (parent?.qname === "cac:Price" && node.attrs.unitCode !== undefined) baseQuantityRule(facts, node);
      return;
    case "cbc:TaxAmount": {
      const inScope = (parent?.qname === "cac:TaxTotal" && child(parent, "cac:TaxSubtotal")) || parent?.qname === "cac:TaxSubtotal";
      if (inScope) currencyRule(facts, node);
      return;
    }
  }
  if (AMOUNTS.has(node.qname)) return currencyRule(facts, node);
  identifierRules(facts, node);
}

/** Price-level allowances are a separate context: cac:Price/cac:AllowanceCharge (R044, R046). */
function priceAllowanceRules(facts: PeppolFacts, node: DocumentNode): void {
  if (norm(child(node, "cbc:ChargeIndicator")) !== "false") {
    facts.report("PEPPOL-EN16931-R044", "fatal", `A charge on the item price is not allowed (charge indicator ${q(norm(child(node, "cbc:ChargeIndicator")))}); only a price discount with indicator 'false'.`, node);
  }
  const base = child(node, "cbc:BaseAmount");
  if (base) {
    const price = dec(stringValue(child(node.parent, "cbc:PriceAmount"))), gross = dec(stringValue(base)), discount = dec(stringValue(child(node, "cbc:Amount")));
    if (!(price && gross && discount && price.eq(gross.minus(discount)))) {
      facts.report("PEPPOL-EN16931-R046", "fatal", `The net price ${q(textAt(node.parent, "cbc:PriceAmount"))} must equal the gross price ${q(norm(base))} minus the price discount ${q(textAt(node, "cbc:Amount"))}.`, node);
    }
  }
}

function allowanceChargeRules(facts: PeppolFacts, node: DocumentNode): void {
  const factor = child(node, "cbc:MultiplierFactorNumeric"), base = child(node, "cbc:BaseAmount");
  const kind = norm(child(node, "cbc:ChargeIndicator")) === "true" ? "charge" : "allowance";
  if (factor && !base) {
    facts.report("PEPPOL-EN16931-R041", "fatal", `The ${kind} gives a percentage (${norm(factor)}) but no base amount; give the amount the percentage applies to.`, node);
    return;
  }
  if (!factor && base) {
    facts.report("PEPPOL-EN16931-R042", "fatal", `The ${kind} gives a base amount (${norm(base)}) but no percentage; give the percentage or leave the base amount out.`, node);
    return;
  }
  if (factor && base) {
    const amountNode = child(node, "cbc:Amount");
    const amount = amountNode ? decOf(amountNode) : ZERO, baseAmount = decOf(base), factorAmount = decOf(factor);
    if (amount && baseAmount && factorAmount) {
      const expected = baseAmount.times(factorAmount).div(HUNDRED);
      if (expected.minus(amount).abs().gt(TOLERANCE)) {
        facts.report("PEPPOL-EN16931-R040", "fatal", `The ${kind} amount ${q(norm(amountNode))} should be the base amount ${norm(base)} × ${norm(factor)}% = ${expected.toFixed()} (0.02 tolerance).`, node);
      }
    }
  }
  const indicator = normText(child(node, "cbc:ChargeIndicator"));
  if (indicator !== "true" && indicator !== "false") facts.report("PEPPOL-EN16931-R043", "fatal", `The charge indicator of an allowance or charge is ${q(indicator)}; it must be 'true' (charge) or 'false' (allowance).`, node);
}

function linePeriodRules(facts: PeppolFacts, node: DocumentNode): void {
  const period = node.parent, line = period?.parent;
  const lineName = facts.isInvoice ? "cac:InvoiceLine" : facts.isCreditNote ? "cac:CreditNoteLine" : "";
  if (period?.qname !== "cac:InvoicePeriod" || line?.qname !== lineName || line.parent !== facts.root) return;
  const docDate = first(facts.root, `cac:InvoicePeriod/${node.qname}`);
  if (!docDate) return;
  const own = xsDate(node.text), doc = xsDate(stringValue(docDate));
  if (node.qname === "cbc:StartDate") {
    if (own === null || doc === null || !(own >= doc)) facts.report("PEPPOL-EN16931-R110", "fatal", `The line period starts on ${q(node.text.trim())}, before the invoice period starts (${norm(docDate)}); it must lie within the invoice period.`, node);
  } else if (own === null || doc === null || !(own <= doc)) {
    facts.report("PEPPOL-EN16931-R111", "fatal", `The line period ends on ${q(node.text.trim())}, after the invoice period ends (${norm(docDate)}); it must lie within the invoice period.`, node);
  }
}

// The line's helpers live outside lineRules: a closure made per line costs more than the call.
const lineNoOf = (line: DocumentNode): string => textAt(line, "cbc:ID") || String(line.index);
const numOr = (node: DocumentNode | null, fallback: Decimal): Decimal | null => (node ? decOf(node) : fallback);

/** The line's allowances ("false") or charges ("true"), rounded: 0 without any, null when an amount is not a number. */
function lineAcTotal(line: DocumentNode, indicator: string): Decimal | null {
  let total = ZERO, any = false;
  for (const ac of children(line, "cac:AllowanceCharge")) {
    if (norm(child(ac, "cbc:ChargeIndicator")) !== indicator) continue;
    any = true;
    for (const amount of children(ac, "cbc:Amount")) {
      const value = decOf(amount);
      if (value === null) return null;
      total = total.plus(value);
    }
  }
  return any ? round2(total) : ZERO;
}

function lineRules(facts: PeppolFacts, line: DocumentNode): void {
  const lineExt = numOr(child(line, "cbc:LineExtensionAmount"), ZERO);
  const quantity = numOr(child(line, facts.isInvoice ? "cbc:InvoicedQuantity" : "cbc:CreditedQuantity"), ONE);
  const price = numOr(first(line, "cac:Price/cbc:PriceAmount"), ZERO);
  const baseNode = first(line, "cac:Price/cbc:BaseQuantity");
  const baseValue = baseNode ? decOf(baseNode) : null;
  const baseQuantity = baseNode && baseValue && !baseValue.eq(ZERO) ? baseValue : ONE;
  const allowances = lineAcTotal(line, "false"), charges = lineAcTotal(line, "true");
  const baseOk = !(baseNode && baseValue === null);
  if (lineExt && quantity && price && baseOk && allowances && charges) {
    const expected = quantity.times(baseQuantity.eq(ONE) ? price : price.div(baseQuantity)).plus(charges).minus(allowances);
    if (expected.minus(lineExt).abs().gt(TOLERANCE)) {
      facts.report("PEPPOL-EN16931-R120", "fatal", `Line ${lineNoOf(line)}: the net amount ${lineExt.toFixed()} should be quantity ${quantity.toFixed()} × price ${price.toFixed()}${baseQuantity.eq(ONE) ? "" : ` / base quantity ${baseQuantity.toFixed()}`} + charges ${charges.toFixed()} − allowances ${allowances.toFixed()} = ${expected.round(2).toFixed()} (0.02 tolerance).`, line);
    }
  }
  if (baseNode && !(baseValue && baseValue.gt(ZERO))) facts.report("PEPPOL-EN16931-R121", "fatal", `Line ${lineNoOf(line)}: the price base quantity ${q(norm(baseNode))} must be a number above zero.`, line);
  const refs = children(line, "cac:DocumentReference");
  if (refs.length > 1) facts.report("PEPPOL-EN16931-R100", "fatal", `Line ${lineNoOf(line)} has ${refs.length} invoiced object references; at most one is allowed per line.`, line);
  if (refs.length > 0 && !refs.some((documentReference) => children(documentReference, "cbc:DocumentTypeCode").some((documentTypeCode) => stringValue(documentTypeCode) === "130"))) {
    facts.report("PEPPOL-EN16931-R101", "fatal", `Line ${lineNoOf(line)}: a line document reference must be an invoiced object identifier (document type code 130).`, line);
  }
}

function baseQuantityRule(facts: PeppolFacts, node: DocumentNode): void {
  const line = node.parent?.parent;
  const invoiced = child(line, "cbc:InvoicedQuantity"), credited = child(line, "cbc:CreditedQuantity");
  if (!invoiced && !credited) return;
  const quantity = facts.isInvoice ? invoiced : credited;
  if (!quantity || quantity.attrs.unitCode !== node.attrs.unitCode) {
    facts.report("PEPPOL-EN16931-R130", "fatal", `The unit of the price base quantity (${q(node.attrs.unitCode)}) must be the unit of the ${facts.isInvoice ? "invoiced" : "credited"} quantity (${q(quantity?.attrs.unitCode)}).`, node);
  }
}

function currencyRule(facts: PeppolFacts, node: DocumentNode): void {
  const cur = node.attrs.currencyID;
  if (cur === undefined || !facts.documentCurrencies.includes(cur)) {
    facts.report("PEPPOL-EN16931-R051", "fatal", `The amount ${q(norm(node))} (${node.qname}) is in currency ${q(cur)}, not in the invoice currency ${q(facts.documentCurrencies[0])}; every amount except the VAT total in accounting currency must use the invoice currency.`, node);
  }
}

const DATES = new Set(["cbc:IssueDate", "cbc:DueDate", "cbc:TaxPointDate", "cbc:StartDate", "cbc:EndDate", "cbc:ActualDeliveryDate"]);
const EXEMPTIONS: Readonly<Record<string, readonly [rule: string, category: string]>> = {
  "VATEX-EU-G": ["PEPPOL-EN16931-P0104", "G"],
  "VATEX-EU-O": ["PEPPOL-EN16931-P0105", "O"],
  "VATEX-EU-IC": ["PEPPOL-EN16931-P0106", "K"],
  "VATEX-EU-AE": ["PEPPOL-EN16931-P0107", "AE"],
  "VATEX-EU-D": ["PEPPOL-EN16931-P0108", "E"],
  "VATEX-EU-F": ["PEPPOL-EN16931-P0109", "E"],
  "VATEX-EU-I": ["PEPPOL-EN16931-P0110", "E"],
  "VATEX-EU-J": ["PEPPOL-EN16931-P0111", "E"],
};

/** Pattern "restricted code lists and formatting" (CL*, P*, F001). */
export function codeRules(facts: PeppolFacts, node: DocumentNode): void {
  const parent = node.parent;
  switch (node.qname) {
    case "cbc:EmbeddedDocumentBinaryObject": {
      const mime = node.attrs.mimeCode;
      if (mime !== undefined && !MIME_CODES.has(mime)) facts.report("PEPPOL-EN16931-CL001", "fatal", `The attachment's MIME type ${q(mime)} is not allowed; use one of ${[...MIME_CODES].join(", ")}.`, node);
      return;
    }
    case "cbc:AllowanceChargeReasonCode": {
      if (parent?.qname !== "cac:AllowanceCharge") return;
      const indicators = children(parent, "cbc:ChargeIndicator").map(stringValue);
      const code = normText(node);
      if (indicators.includes("false")) {
        if (!UNCL5189_ALLOWANCE_REASONS.has(code)) facts.report("PEPPOL-EN16931-CL002", "fatal", `The allowance reason code ${q(code)} is not in the UNCL 5189 subset Peppol allows (${[...UNCL5189_ALLOWANCE_REASONS].join(", ")}).`, node);
      } else if (indicators.includes("true")) {
        if (!UNCL7161_CHARGE_REASONS.has(code)) facts.report("PEPPOL-EN16931-CL003", "fatal", `The charge reason code ${q(code)} is not a UNCL 7161 code.`, node);
      }
      return;
    }
    case "cbc:DescriptionCode":
      if (parent?.qname === "cac:InvoicePeriod" && !UNCL2005_PERIOD_CODES.has(normText(node))) facts.report("PEPPOL-EN16931-CL006", "fatal", `The invoice period description code ${q(normText(node))} is not allowed; use 3, 35 or 432.`, node);
      return;
    case "cbc:InvoiceTypeCode": {
      const code = normText(node);
      if ((facts.profile === "01" || facts.profile === "02") && !INVOICE_TYPE_CODES.has(code)) facts.report("PEPPOL-EN16931-P0100", "fatal", `The invoice type code ${q(code)} is not allowed in Peppol BIS Billing (allowed: ${[...INVOICE_TYPE_CODES].join(", ")}).`, node);
      const own = norm(node);
      if ((own === "326" || own === "384") && !(facts.supplierIsDE && facts.customerIsDE)) facts.report("PEPPOL-EN16931-P0112", "fatal", `Invoice type code ${own} is only allowed when both seller and buyer are in Germany.`, node);
      return;
    }
    case "cbc:CreditNoteTypeCode": {
      const code = normText(node);
      if ((facts.profile === "01" || facts.profile === "02") && !CREDIT_NOTE_TYPE_CODES.has(code)) facts.report("PEPPOL-EN16931-P0101", "fatal", `The credit note type code ${q(code)} is not allowed in Peppol BIS Billing (allowed: ${[...CREDIT_NOTE_TYPE_CODES].join(", ")}).`, node);
      return;
    }
    case "cbc:EndpointID": {
      const scheme = node.attrs.schemeID;
      if (scheme !== undefined && !EAS_SCHEMES.has(scheme)) facts.report("PEPPOL-EN16931-CL008", "fatal", `The electronic address scheme ${q(scheme)} of ${q(norm(node))} is not in the Electronic Address Scheme code list.`, node);
      return;
    }
    case "cac:TaxCategory": {
      const reasons = children(node, "cbc:TaxExemptionReasonCode");
      if (reasons.length !== 1) return;
      const hit = EXEMPTIONS[stringValue(reasons[0]).toUpperCase()];
      const category = norm(child(node, "cbc:ID"));
      if (hit && category !== hit[1]) facts.report(hit[0], "fatal", `The VAT exemption reason code ${stringValue(reasons[0])} requires VAT category ${hit[1]}, but the category is ${q(category)}.`, node);
      return;
    }
  }
  if (AMOUNTS.has(node.qname) || node.qname === "cbc:TaxAmount") {
    const cur = node.attrs.currencyID;
    if (cur === undefined || !ISO4217_CURRENCIES.has(cur)) facts.report("PEPPOL-EN16931-CL007", "fatal", `The currency ${q(cur)} of the amount ${q(norm(node))} is not an ISO 4217 currency code.`, node);
    return;
  }
  if (DATES.has(node.qname)) {
    const text = node.text;
    if (!(xlength(text) === 10 && xsDate(stringValue(node)) !== null)) facts.report("PEPPOL-EN16931-F001", "fatal", `The date ${q(stringValue(node))} (${node.qname}) must be written YYYY-MM-DD.`, node);
  }
}

// Rule family: the Peppol BIS 3 rules as UBL.BE 1.31 carries them (GLOBALUBL.BE, the patterns after
// "START PEPPOL-EN16931-ubl"). UBL.BE embeds an older subset of the Peppol rules, changed in places: R004 asks for
// the UBL.BE specification identifier, R001 is a warning, R051 does not check the VAT breakdown's amounts, and the
// lists are UBL.BE's (codelists/ublbe.ts). They run on every UBL.BE document, whatever its ProfileID says, so they
// are written here rather than taken from the Peppol 2026.5 family. Not carried over: the national rules of
// Norway, Denmark, Italy, Sweden and Greece that GLOBALUBL.BE also embeds (they apply to sellers from those
// countries only; see docs/validation-ublbe.md).
import * as L from "../codelists/ublbe.js";
import { dec, type Decimal } from "../decimal.js";
import { child, children, isBlankText, norm, normalizeSpace, select, stringValue, type RuleFamily, type DocumentNode } from "../../document/model.js";
import { all } from "./cen-common.js";
import { glnCheckDigitValid, mod11Valid } from "./peppol-checkdigits.js";
import { q, xlength, xsDate, xsubstring } from "./peppol-support.js";

export const UBLBE_CUSTOMIZATION = "urn:cen.eu:en16931:2017#conformant#urn:UBL.BE:1.0.0.20180214";

const MIMES = new Set(L.MIME_CODES), ALLOWANCE_REASONS = new Set(L.UNCL5189_ALLOWANCE_REASONS);
const CHARGE_REASONS = new Set(L.UNCL7161_CHARGE_REASONS), PERIOD_CODES = new Set(L.UNCL2005_PERIOD_CODES);
const CURRENCIES = new Set(L.ISO4217_CURRENCIES), EAS = new Set(L.EAS_SCHEMES);
const P0100 = new Set(L.P0100_INVOICE_TYPES), P0101 = new Set(L.P0101_CREDIT_NOTE_TYPES);

/** The amounts whose currency the rules check (R051 without the VAT breakdown's own amounts; CL007 and BR-CL-03 with all). */
export const AMOUNTS = [
  "cbc:Amount", "cbc:BaseAmount", "cbc:PriceAmount", "cbc:TaxAmount", "cbc:TaxableAmount", "cbc:LineExtensionAmount",
  "cbc:TaxExclusiveAmount", "cbc:TaxInclusiveAmount", "cbc:AllowanceTotalAmount", "cbc:ChargeTotalAmount",
  "cbc:PrepaidAmount", "cbc:PayableRoundingAmount", "cbc:PayableAmount",
];
const DATES = ["cbc:IssueDate", "cbc:DueDate", "cbc:TaxPointDate", "cbc:StartDate", "cbc:EndDate", "cbc:ActualDeliveryDate"];
/** P0104 to P0111: the VAT category an exemption reason code requires. */
const VATEX_CATEGORY: Readonly<Record<string, [string, string]>> = {
  "VATEX-EU-G": ["PEPPOL-EN16931-P0104", "G"], "VATEX-EU-O": ["PEPPOL-EN16931-P0105", "O"],
  "VATEX-EU-IC": ["PEPPOL-EN16931-P0106", "K"], "VATEX-EU-AE": ["PEPPOL-EN16931-P0107", "AE"],
  "VATEX-EU-D": ["PEPPOL-EN16931-P0108", "E"], "VATEX-EU-F": ["PEPPOL-EN16931-P0109", "E"],
  "VATEX-EU-I": ["PEPPOL-EN16931-P0110", "E"], "VATEX-EU-J": ["PEPPOL-EN16931-P0111", "E"],
};

/** $profile: the process number NN of 'urn:fdc:peppol.eu:2017:poacc:billing:NN:1.0' (matched anywhere), else Unknown. */
export function ublbeProfile(root: DocumentNode): string {
  const ids = children(root, "cbc:ProfileID");
  if (ids.length !== 1) return "Unknown";
  const text = norm(ids[0]);
  return /urn:fdc:peppol\.eu:2017:poacc:billing:([0-9]{2}):1.0/.test(text) ? (text.split(":")[6] ?? "") : "Unknown";
}

/** `xs:decimal(x)` of one element, or null (absent, repeated or not a decimal). */
const decOne = (nodes: readonly DocumentNode[]): Decimal | null => (nodes.length === 1 ? dec(stringValue(nodes[0])) : null);

export const ublbePeppolRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  const isInvoice = ctx.rootElement === "Invoice";
  const fatal = ctx.fatal;
  const profile = ublbeProfile(root);
  const docCurrencies = children(root, "cbc:DocumentCurrencyCode").map(stringValue);

  // R008: no empty elements.
  const walk = (node: DocumentNode): void => {
    if (node.children.length === 0 && isBlankText(node.text)) {
      fatal("PEPPOL-EN16931-R008", `The element ${node.qname} is empty; leave it out instead of sending it without a value.`, node);
    }
    for (const element of node.children) walk(element);
  };
  walk(root);

  // Document level.
  if (children(root, "cbc:ProfileID").length === 0) {
    ctx.report("PEPPOL-EN16931-R001", "warning", "The document has no business process (cbc:ProfileID), such as 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0'.", root);
  }
  if (profile === "Unknown") {
    const profileId = child(root, "cbc:ProfileID");
    fatal("PEPPOL-EN16931-R007", `The business process (cbc:ProfileID) ${q(norm(profileId))} must have the form 'urn:fdc:peppol.eu:2017:poacc:billing:NN:1.0', where NN is the process number.`, profileId ?? root);
  }
  const notes = children(root, "cbc:Note");
  if (notes.length > 1) fatal("PEPPOL-EN16931-R002", `The document has ${notes.length} notes (cbc:Note); at most one is allowed at document level.`, notes[1]!);
  if (children(root, "cbc:BuyerReference").length === 0 && select(root, "cac:OrderReference/cbc:ID").length === 0) {
    fatal("PEPPOL-EN16931-R003", "Give the buyer reference (cbc:BuyerReference) or the purchase order reference (cac:OrderReference/cbc:ID).", root);
  }
  const cids = children(root, "cbc:CustomizationID");
  if (cids.length <= 1 && !normalizeSpace(cids[0]?.text ?? "").startsWith(UBLBE_CUSTOMIZATION)) {
    fatal("PEPPOL-EN16931-R004", `The specification identifier (cbc:CustomizationID) ${q(norm(cids[0]))} must be '${UBLBE_CUSTOMIZATION}'.`, cids[0] ?? root);
  }
  const taxTotals = children(root, "cac:TaxTotal");
  const withSub = taxTotals.filter((taxTotal) => children(taxTotal, "cac:TaxSubtotal").length > 0);
  if (withSub.length !== 1) {
    fatal("PEPPOL-EN16931-R053", `The document has ${withSub.length} VAT totals with a VAT breakdown (cac:TaxTotal with cac:TaxSubtotal); exactly one is required.`, withSub[1] ?? root);
  }
  const taxCurrency = children(root, "cbc:TaxCurrencyCode");
  const withoutSub = taxTotals.length - withSub.length, wanted = taxCurrency.length > 0 ? 1 : 0;
  if (withoutSub !== wanted) {
    fatal("PEPPOL-EN16931-R054", wanted === 1
      ? `With a VAT accounting currency (cbc:TaxCurrencyCode ${q(norm(taxCurrency[0]))}), exactly one VAT total without breakdown must give the VAT in that currency; the document has ${withoutSub}.`
      : `Without a VAT accounting currency (cbc:TaxCurrencyCode), no VAT total may come without a breakdown; the document has ${withoutSub}.`, root);
  }
  if (taxCurrency.length > 0) {
    // R055: the VAT totals in the accounting currency and in the invoice currency have the same sign.
    const amountsIn = (currencyNode: DocumentNode | undefined) => {
      const cur = normalizeSpace(stringValue(currencyNode));
      return taxTotals.flatMap((taxTotal) => children(taxTotal, "cbc:TaxAmount")).filter((taxAmount) => taxAmount.attrs.currencyID === cur).map((taxAmount) => dec(stringValue(taxAmount)));
    };
    const inTax = amountsIn(taxCurrency[0]), inDoc = amountsIn(child(root, "cbc:DocumentCurrencyCode") ?? undefined);
    const all0 = (xs: (Decimal | null)[], test: (amount: Decimal) => boolean) => xs.some((amount) => amount !== null && test(amount));
    const le = (xs: (Decimal | null)[]) => all0(xs, (amount) => amount.lte(0)), ge = (xs: (Decimal | null)[]) => all0(xs, (amount) => amount.gte(0));
    if (!((le(inTax) && le(inDoc)) || (ge(inTax) && ge(inDoc)))) {
      fatal("PEPPOL-EN16931-R055", "The total VAT in the VAT accounting currency and the total VAT in the invoice currency must have the same sign.", root);
    }
  }
  const refsOfType = (code: string) => children(root, "cac:AdditionalDocumentReference").filter((additionalDocumentReference) => children(additionalDocumentReference, "cbc:DocumentTypeCode").some((documentTypeCode) => stringValue(documentTypeCode) === code));
  if (refsOfType("130").length > 1) fatal("PEPPOL-EN16931-R006", `The document has ${refsOfType("130").length} invoiced object references (document type code 130); at most one is allowed.`, refsOfType("130")[1]!);
  if (refsOfType("50").length > 1) fatal("PEPPOL-EN16931-R080", `The document has ${refsOfType("50").length} project references (document type code 50); at most one is allowed.`, refsOfType("50")[1]!);

  for (const tc of all(root, "cbc:TaxCurrencyCode")) {
    const docCode = normalizeSpace(child(tc.parent, "cbc:DocumentCurrencyCode")?.text ?? "");
    if (normalizeSpace(tc.text) === docCode) fatal("PEPPOL-EN16931-R005", `The VAT accounting currency ${q(normalizeSpace(tc.text))} must differ from the invoice currency; leave it out when they are the same.`, tc);
  }
  for (const [party, rule, who] of [["cac:AccountingCustomerParty", "PEPPOL-EN16931-R010", "buyer"], ["cac:AccountingSupplierParty", "PEPPOL-EN16931-R020", "seller"]] as const) {
    for (const partyNode of all(root, party).flatMap((node) => children(node, "cac:Party"))) {
      if (!child(partyNode, "cbc:EndpointID")) fatal(rule, `The ${who}'s electronic address (cbc:EndpointID) is missing.`, partyNode);
    }
  }

  // Allowances and charges of the document and of its lines: the first matching rule applies (R041, R042, then R040/R043).
  const lineName = isInvoice ? "cac:InvoiceLine" : "cac:CreditNoteLine";
  const acs = [...children(root, "cac:AllowanceCharge"), ...children(root, lineName).flatMap((node) => children(node, "cac:AllowanceCharge"))];
  for (const ac of acs) {
    const factor = child(ac, "cbc:MultiplierFactorNumeric"), base = child(ac, "cbc:BaseAmount");
    if (factor && !base) {
      fatal("PEPPOL-EN16931-R041", `The allowance or charge gives a percentage (${norm(factor)}) but no base amount (cbc:BaseAmount).`, ac);
      continue;
    }
    if (!factor && base) {
      fatal("PEPPOL-EN16931-R042", `The allowance or charge gives a base amount (${norm(base)}) but no percentage (cbc:MultiplierFactorNumeric).`, ac);
      continue;
    }
    if (factor && base) {
      const amounts = children(ac, "cbc:Amount");
      const amount = amounts.length === 0 ? dec("0") : decOne(amounts);
      const acAmount = decOne(children(ac, "cbc:BaseAmount")), value = decOne(children(ac, "cbc:MultiplierFactorNumeric"));
      if (amount && acAmount && value) {
        const expected = acAmount.times(value).div(100);
        if (amount.plus("0.02").lt(expected) || amount.minus("0.02").gt(expected)) {
          fatal("PEPPOL-EN16931-R040", `The allowance or charge amount ${q(norm(amounts[0]))} should be the base amount ${norm(base)} × ${norm(factor)} % = ${expected.toFixed()} (0.02 tolerance).`, ac);
        }
      }
    }
    const ci = normalizeSpace(child(ac, "cbc:ChargeIndicator")?.text ?? "");
    if (ci !== "true" && ci !== "false") {
      fatal("PEPPOL-EN16931-R043", `The charge indicator ${q(norm(child(ac, "cbc:ChargeIndicator")))} must be 'true' (a charge) or 'false' (an allowance).`, child(ac, "cbc:ChargeIndicator") ?? ac);
    }
  }

  for (const pm of all(root, "cac:PaymentMeans")) {
    const code = normalizeSpace(stringValue(child(pm, "cbc:PaymentMeansCode")));
    if (children(pm, "cbc:PaymentMeansCode").length <= 1 && (code === "49" || code === "59") && select(pm, "cac:PaymentMandate/cbc:ID").length === 0) {
      fatal("PEPPOL-EN16931-R061", `A direct debit (payment means ${code}) needs the mandate reference (cac:PaymentMandate/cbc:ID).`, pm);
    }
  }

  // R051 (the document currency on every amount but the VAT breakdown's) and CL007 (an ISO 4217 currency).
  for (const qn of AMOUNTS) {
    for (const node of all(root, qn)) {
      const cur = node.attrs.currencyID;
      const r051 = qn !== "cbc:TaxAmount" || (node.parent?.qname === "cac:TaxTotal" && children(node.parent, "cac:TaxSubtotal").length > 0);
      if (r051 && (cur === undefined || !docCurrencies.includes(cur))) {
        fatal("PEPPOL-EN16931-R051", `The amount ${q(norm(node))} in ${node.name} is in ${q(cur)}, not in the invoice currency ${q(docCurrencies[0])}.`, node);
      }
      if (cur === undefined || !CURRENCIES.has(cur)) {
        fatal("PEPPOL-EN16931-CL007", `The currency ${q(cur)} of the amount in ${node.name} is not an ISO 4217 currency code.`, node);
      }
    }
  }

  // Lines.
  for (const [qn, rule, cmp, word] of [["cbc:StartDate", "PEPPOL-EN16931-R110", 1, "starts"], ["cbc:EndDate", "PEPPOL-EN16931-R111", -1, "ends"]] as const) {
    const docDates = select(root, `cac:InvoicePeriod/${qn}`);
    if (docDates.length !== 1) continue;
    const docDate = xsDate(stringValue(docDates[0]));
    for (const line of children(root, lineName)) {
      for (const node of select(line, `cac:InvoicePeriod/${qn}`)) {
        const lineDate = xsDate(node.text);
        if (lineDate === null || docDate === null) continue;
        if ((cmp === 1 && lineDate < docDate) || (cmp === -1 && lineDate > docDate)) {
          fatal(rule, `The line period ${word} on ${q(norm(node))}, outside the invoice period (which ${word} on ${q(norm(docDates[0]))}).`, node);
        }
      }
    }
  }
  for (const line of [...all(root, "cac:InvoiceLine"), ...all(root, "cac:CreditNoteLine")]) {
    const id = q(norm(child(line, "cbc:ID")));
    const bq = select(line, "cac:Price/cbc:BaseQuantity");
    if (bq.length === 1) {
      const amount = dec(stringValue(bq[0]));
      if (amount !== null && !amount.gt(0)) fatal("PEPPOL-EN16931-R121", `The price base quantity ${q(norm(bq[0]))} of line ${id} must be above zero.`, bq[0]!);
    }
    const docRefs = children(line, "cac:DocumentReference");
    if (docRefs.length > 1) fatal("PEPPOL-EN16931-R100", `Line ${id} has ${docRefs.length} document references; at most one (the invoiced object) is allowed.`, docRefs[1]!);
    if (docRefs.length > 0 && !docRefs.some((documentReference) => children(documentReference, "cbc:DocumentTypeCode").some((documentTypeCode) => stringValue(documentTypeCode) === "130"))) {
      fatal("PEPPOL-EN16931-R101", `The document reference of line ${id} can only be the invoiced object (document type code 130).`, docRefs[0]!);
    }
  }
  for (const ac of all(root, "cac:AllowanceCharge")) {
    const price = ac.parent;
    if (price?.qname !== "cac:Price") continue;
    if (normalizeSpace(stringValue(child(ac, "cbc:ChargeIndicator"))) !== "false") {
      fatal("PEPPOL-EN16931-R044", "A charge on the item price is not allowed: the price's allowance must have charge indicator 'false'.", ac);
    }
    if (child(ac, "cbc:BaseAmount")) {
      const net = decOne(children(price, "cbc:PriceAmount")), gross = decOne(children(ac, "cbc:BaseAmount")), amount = decOne(children(ac, "cbc:Amount"));
      if (!(net && gross && amount && net.eq(gross.minus(amount)))) {
        fatal("PEPPOL-EN16931-R046", `The item net price ${q(norm(child(price, "cbc:PriceAmount")))} must equal the gross price ${q(norm(child(ac, "cbc:BaseAmount")))} minus the price allowance ${q(norm(child(ac, "cbc:Amount")))}.`, ac);
      }
    }
  }
  for (const bq of all(root, "cbc:BaseQuantity")) {
    if (bq.parent?.qname !== "cac:Price" || bq.attrs.unitCode === undefined) continue;
    const line = bq.parent.parent;
    const hasQuantity = !!child(line, "cbc:InvoicedQuantity") || !!child(line, "cbc:CreditedQuantity");
    const quantities = children(line, isInvoice ? "cbc:InvoicedQuantity" : "cbc:CreditedQuantity");
    if (hasQuantity && !quantities.some((quantity) => quantity.attrs.unitCode === bq.attrs.unitCode)) {
      fatal("PEPPOL-EN16931-R130", `The unit ${q(bq.attrs.unitCode)} of the price base quantity must be the unit of the invoiced quantity (${q(quantities[0]?.attrs.unitCode)}).`, bq);
    }
  }

  // Identifier checks by scheme (0088 GLN, 0192 Norwegian organisation number, 0184 Danish CVR).
  const ids = [...all(root, "cbc:EndpointID"), ...all(root, "cbc:ID").filter((id) => id.parent?.qname === "cac:PartyIdentification"), ...all(root, "cbc:CompanyID")];
  for (const node of ids) {
    const scheme = node.attrs.schemeID, value = norm(node);
    if (scheme === "0088" && !(/^[0-9]+$/.test(value) && glnCheckDigitValid(value))) {
      fatal("PEPPOL-COMMON-R040", `The identifier ${q(value)} (scheme 0088) is not a valid GLN: ${/^[0-9]+$/.test(value) ? "the check digit is wrong" : "it must be digits only"}.`, node);
    } else if (scheme === "0192" && !(/^[0-9]{9}$/.test(value) && mod11Valid(value))) {
      fatal("PEPPOL-COMMON-R041", `The identifier ${q(value)} (scheme 0192) is not a valid Norwegian organisation number (nine digits with a valid check digit).`, node);
    } else if (scheme === "0184") {
      const str = node.text;
      if (!(xlength(str) === 10 && xsubstring(str, 1, 2) === "DK" && /^[0-9]*$/.test(xsubstring(str, 3, 8)))) {
        fatal("PEPPOL-COMMON-R042", `The identifier ${q(str)} (scheme 0184) is not a Danish CVR number ('DK' followed by eight digits).`, node);
      }
    }
  }

  // Code lists (as UBL.BE carries them).
  for (const embeddedDocumentBinaryObject of all(root, "cbc:EmbeddedDocumentBinaryObject")) {
    const mime = embeddedDocumentBinaryObject.attrs.mimeCode;
    if (mime !== undefined && !MIMES.has(mime)) {
      fatal("PEPPOL-EN16931-CL001", `The attachment's type ${q(mime)} is not allowed; use application/pdf, image/png, image/jpeg, text/csv, or an xlsx or ods spreadsheet.`, embeddedDocumentBinaryObject);
    }
  }
  for (const allowanceChargeReasonCode of all(root, "cbc:AllowanceChargeReasonCode")) {
    const ac = allowanceChargeReasonCode.parent;
    if (ac?.qname !== "cac:AllowanceCharge") continue;
    const indicators = children(ac, "cbc:ChargeIndicator").map(stringValue);
    const code = normalizeSpace(allowanceChargeReasonCode.text);
    if (indicators.includes("false") && !ALLOWANCE_REASONS.has(code)) {
      fatal("PEPPOL-EN16931-CL002", `The allowance reason code ${q(code)} is not one of the allowance reason codes (UNCL 5189 subset).`, allowanceChargeReasonCode);
    } else if (!indicators.includes("false") && indicators.includes("true") && !CHARGE_REASONS.has(code)) {
      fatal("PEPPOL-EN16931-CL003", `The charge reason code ${q(code)} is not a charge reason code (UNCL 7161).`, allowanceChargeReasonCode);
    }
  }
  for (const descriptionCode of all(root, "cbc:DescriptionCode")) {
    if (descriptionCode.parent?.qname === "cac:InvoicePeriod" && !PERIOD_CODES.has(normalizeSpace(descriptionCode.text))) {
      fatal("PEPPOL-EN16931-CL006", `The invoice period description code ${q(normalizeSpace(descriptionCode.text))} is not 3, 35 or 432.`, descriptionCode);
    }
  }
  for (const [qn, rule, list, what] of [["cbc:InvoiceTypeCode", "PEPPOL-EN16931-P0100", P0100, "invoice"], ["cbc:CreditNoteTypeCode", "PEPPOL-EN16931-P0101", P0101, "credit note"]] as const) {
    for (const node of all(root, qn)) {
      if (profile === "01" && !list.has(normalizeSpace(node.text))) {
        fatal(rule, `The ${what} type code ${q(normalizeSpace(node.text))} is not allowed in business process 01 (allowed: ${[...list].join(", ")}).`, node);
      }
    }
  }
  for (const qn of DATES) {
    for (const node of all(root, qn)) {
      if (!(xlength(node.text) === 10 && xsDate(stringValue(node)) !== null)) {
        fatal("PEPPOL-EN16931-F001", `The date ${q(stringValue(node))} in ${node.name} must be a date written YYYY-MM-DD.`, node);
      }
    }
  }
  for (const endpointId of all(root, "cbc:EndpointID")) {
    const scheme = endpointId.attrs.schemeID;
    if (scheme !== undefined && !EAS.has(scheme)) {
      ctx.report("PEPPOL-EN16931-CL008", "warning", `The electronic address scheme ${q(scheme)} of ${q(norm(endpointId))} is not in UBL.BE's list of electronic address schemes.`, endpointId);
    }
  }
  for (const cat of all(root, "cac:TaxCategory")) {
    const codes = children(cat, "cbc:TaxExemptionReasonCode");
    if (codes.length !== 1) continue;
    const hit = VATEX_CATEGORY[stringValue(codes[0]).toUpperCase()];
    if (hit && norm(child(cat, "cbc:ID")) !== hit[1]) {
      fatal(hit[0], `The VAT exemption reason code ${q(norm(codes[0]))} requires VAT category ${q(hit[1])}, not ${q(norm(child(cat, "cbc:ID")))}.`, cat);
    }
  }
};

// Rule family: where UBL.BE 1.31's own copy of the EN 16931 rules (GLOBALUBL.BE, patterns ubl-model, UBL-syntax and
// Codesmodel) is stricter than CEN 1.3.16, which always runs with it. GLOBALUBL.BE embeds an older edition of the CEN
// rules; where its assertion is the same as CEN 1.3.16's or weaker, CEN 1.3.16 already gives the verdict (the rule
// set is basedOn CEN), so only what UBL.BE adds is here:
//   - its older code lists (BR-CL-*, BR-CO-09), which lack codes added since: reported only for a code CEN 1.3.16
//     accepts (CEN reports the others itself);
//   - BR-51 as a fatal rule (4 to 6 digits of the card number), BR-66 and BR-67 (one card, one mandate);
//   - BR-AE-08, BR-G-08, BR-IC-08 (a warning), BR-O-08 and BR-Z-08 computed from the lines' own VAT breakdowns
//     (cac:InvoiceLine/cac:TaxTotal/cac:TaxSubtotal) instead of the line net amounts: reported only where the CEN
//     1.3.16 sum holds (CEN reports the others itself);
//   - UBL-SR-27 (one payment instruction note), UBL-SR-38 (one exemption reason per line item) and the fatal
//     ubl-CR-666 (no attachment on an invoiced object reference);
//   - BR-IG-01 to 04 and BR-IP-01 to 04 (VAT categories L and M), which CEN 1.3.16 no longer has.
// Not carried over: the lower-case ubl-CR-* and ubl-DT-* warnings (UBL.BE's renamed copies of UBL-CR-* and
// UBL-DT-*, which CEN 1.3.16 already reports under their own names), see docs/validation-ublbe.md.
import * as CEN from "../codelists/cen.js";
import * as BE from "../codelists/ublbe.js";
import { sum, type Decimal } from "../decimal.js";
import { child, children, norm, normalizeSpace, select, stringValue, type RuleFamily, type DocumentNode } from "../../document/model.js";
import { all, categoryCode, chargeIndicator, codePointPrefix, decAt, decOf, isUblRoot, isVat, money } from "./cen-common.js";
import { q, xlength } from "./peppol-support.js";
import { AMOUNTS } from "./ublbe-peppol.js";

/** A list UBL.BE checks and the CEN 1.3.16 list of the same rule. */
interface Lists { be: ReadonlySet<string>; cen: ReadonlySet<string> }
const lists = (be: readonly string[], cen: readonly string[]): Lists => ({ be: new Set(be), cen: new Set(cen) });
const INVOICE_TYPES = lists(BE.INVOICE_TYPE_CODES, CEN.INVOICE_TYPE_CODES);
const CREDIT_NOTE_TYPES = lists(BE.CREDIT_NOTE_TYPE_CODES, CEN.CREDIT_NOTE_TYPE_CODES);
const CURRENCIES = lists(BE.CURRENCY_CODES, CEN.CURRENCY_CODES);
const OBJECT_SCHEMES = lists(BE.OBJECT_IDENTIFIER_SCHEMES, CEN.OBJECT_IDENTIFIER_SCHEMES);
const PARTY_SCHEMES = lists(BE.PARTY_ID_SCHEMES, CEN.ICD_SCHEMES);
const LEGAL_SCHEMES = lists(BE.LEGAL_ID_SCHEMES, CEN.ICD_SCHEMES);
const ITEM_SCHEMES = lists(BE.ITEM_ID_SCHEMES, CEN.ICD_SCHEMES);
const LOCATION_SCHEMES = lists(BE.DELIVERY_LOCATION_SCHEMES, CEN.ICD_SCHEMES);
const CLASSIFICATION = lists(BE.ITEM_CLASSIFICATION_SCHEMES, CEN.ITEM_CLASSIFICATION_SCHEMES);
const ORIGIN_COUNTRIES = lists(BE.ORIGIN_COUNTRY_CODES, CEN.COUNTRY_CODES);
const PAYMENT_MEANS = lists(BE.PAYMENT_MEANS_CODES, CEN.PAYMENT_MEANS_CODES);
const ALLOWANCE_REASONS = lists(BE.ALLOWANCE_REASON_CODES, CEN.ALLOWANCE_REASON_CODES);
const CHARGE_REASONS = lists(BE.CHARGE_REASON_CODES, CEN.CHARGE_REASON_CODES);
const ENDPOINT_SCHEMES = lists(BE.ENDPOINT_SCHEMES, CEN.EAS_CODES);
const CEN_VAT_PREFIX_TEXT = ` ${CEN.VAT_PREFIXES.join(" ")} `;

/** The code is valid under CEN 1.3.16 but not in UBL.BE's older list. */
const onlyCen = (lists: Lists, code: string) => lists.cen.has(code) && !lists.be.has(code);
const attr = (node: DocumentNode, name: string) => normalizeSpace(node.attrs[name] ?? "");

/** The categories whose breakdown sum UBL.BE computes from the lines' VAT breakdowns, with their flags. */
const LINE_BREAKDOWN_RULES: readonly [string, string, "fatal" | "warning", string][] = [
  ["AE", "BR-AE-08", "fatal", "reverse charge"], ["G", "BR-G-08", "fatal", "export outside the EU"],
  ["K", "BR-IC-08", "warning", "intra-community supply"], ["O", "BR-O-08", "fatal", "not subject to VAT"],
  ["Z", "BR-Z-08", "fatal", "zero rated"],
];

export const ublbeCenRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  const fatal = ctx.fatal;
  const older = "UBL.BE 1.31 uses an older list that does not have it";

  // Code lists.
  for (const [qn, lists, what] of [["cbc:InvoiceTypeCode", INVOICE_TYPES, "invoice"], ["cbc:CreditNoteTypeCode", CREDIT_NOTE_TYPES, "credit note"]] as const) {
    for (const node of all(root, qn)) if (onlyCen(lists, norm(node))) fatal("BR-CL-01", `The ${what} type code (BT-3) ${q(norm(node))} is not allowed: ${older}.`, node);
  }
  for (const qn of AMOUNTS) {
    for (const node of all(root, qn)) {
      const cur = attr(node, "currencyID");
      if (onlyCen(CURRENCIES, cur)) fatal("BR-CL-03", `The currency ${q(cur)} of the amount in ${node.name} is not allowed: ${older}.`, node);
    }
  }
  for (const [qn, rule, what] of [["cbc:DocumentCurrencyCode", "BR-CL-04", "invoice currency (BT-5)"], ["cbc:TaxCurrencyCode", "BR-CL-05", "VAT accounting currency (BT-6)"]] as const) {
    for (const node of all(root, qn)) if (onlyCen(CURRENCIES, norm(node))) fatal(rule, `The ${what} ${q(norm(node))} is not allowed: ${older}.`, node);
  }
  for (const id of all(root, "cbc:ID")) {
    if (id.attrs.schemeID === undefined) continue;
    const node = id.parent!, scheme = attr(id, "schemeID");
    let hit: [string, string] | null = null;
    if ((node.qname === "cac:AdditionalDocumentReference" || node.qname === "cac:DocumentReference") && children(node, "cbc:DocumentTypeCode").some((documentTypeCode) => stringValue(documentTypeCode) === "130")) {
      if (onlyCen(OBJECT_SCHEMES, scheme)) hit = ["BR-CL-07", "invoiced object identifier (BT-18)"];
    } else if (node.qname === "cac:PartyIdentification") {
      if (onlyCen(PARTY_SCHEMES, scheme)) hit = ["BR-CL-10", "party identifier"];
    } else if (node.qname === "cac:StandardItemIdentification") {
      if (onlyCen(ITEM_SCHEMES, scheme)) hit = ["BR-CL-21", "item standard identifier"];
    } else if (node.qname === "cac:DeliveryLocation") {
      if (onlyCen(LOCATION_SCHEMES, scheme)) hit = ["BR-CL-26", "delivery location identifier"];
    }
    if (hit) fatal(hit[0], `The scheme ${q(scheme)} of the ${hit[1]} ${q(norm(id))} is not allowed: ${older}.`, id);
  }
  for (const id of all(root, "cbc:CompanyID")) {
    if (id.attrs.schemeID !== undefined && id.parent?.qname === "cac:PartyLegalEntity" && onlyCen(LEGAL_SCHEMES, attr(id, "schemeID"))) {
      fatal("BR-CL-11", `The scheme ${q(attr(id, "schemeID"))} of the legal registration identifier ${q(norm(id))} is not allowed: ${older}.`, id);
    }
  }
  for (const itemClassificationCode of all(root, "cbc:ItemClassificationCode")) {
    if (itemClassificationCode.attrs.listID !== undefined && itemClassificationCode.parent?.qname === "cac:CommodityClassification" && onlyCen(CLASSIFICATION, attr(itemClassificationCode, "listID"))) {
      fatal("BR-CL-13", `The item classification scheme ${q(attr(itemClassificationCode, "listID"))} of ${q(norm(itemClassificationCode))} is not allowed: ${older}.`, itemClassificationCode);
    }
  }
  for (const identificationCode of all(root, "cbc:IdentificationCode")) {
    if (identificationCode.parent?.qname === "cac:OriginCountry" && onlyCen(ORIGIN_COUNTRIES, norm(identificationCode))) fatal("BR-CL-15", `The item's origin country code ${q(norm(identificationCode))} is not allowed: ${older}.`, identificationCode);
  }
  for (const paymentMeansCode of all(root, "cbc:PaymentMeansCode")) {
    if (paymentMeansCode.parent?.qname === "cac:PaymentMeans" && onlyCen(PAYMENT_MEANS, norm(paymentMeansCode))) fatal("BR-CL-16", `The payment means code (BT-81) ${q(norm(paymentMeansCode))} is not allowed: ${older}.`, paymentMeansCode);
  }
  for (const allowanceChargeReasonCode of all(root, "cbc:AllowanceChargeReasonCode")) {
    if (allowanceChargeReasonCode.parent?.qname !== "cac:AllowanceCharge") continue;
    const charge = chargeIndicator(allowanceChargeReasonCode.parent);
    if (charge === false && onlyCen(ALLOWANCE_REASONS, norm(allowanceChargeReasonCode))) fatal("BR-CL-19", `The allowance reason code ${q(norm(allowanceChargeReasonCode))} is not allowed: ${older}.`, allowanceChargeReasonCode);
    else if (charge === true && onlyCen(CHARGE_REASONS, norm(allowanceChargeReasonCode))) fatal("BR-CL-20", `The charge reason code ${q(norm(allowanceChargeReasonCode))} is not allowed: ${older}.`, allowanceChargeReasonCode);
  }
  for (const endpointId of all(root, "cbc:EndpointID")) {
    if (endpointId.attrs.schemeID !== undefined && onlyCen(ENDPOINT_SCHEMES, attr(endpointId, "schemeID"))) {
      fatal("BR-CL-25", `The electronic address scheme ${q(attr(endpointId, "schemeID"))} of ${q(norm(endpointId))} is not allowed: ${older}.`, endpointId);
    }
  }
  for (const partyTaxScheme of all(root, "cac:PartyTaxScheme")) {
    if (!isVat(partyTaxScheme) || children(partyTaxScheme, "cbc:CompanyID").length > 1) continue;
    const prefix = codePointPrefix(stringValue(child(partyTaxScheme, "cbc:CompanyID")), 2);
    if (!BE.VAT_PREFIX_TEXT.includes(prefix) && CEN_VAT_PREFIX_TEXT.includes(prefix)) {
      fatal("BR-CO-09", `The VAT identifier ${q(norm(child(partyTaxScheme, "cbc:CompanyID")))} starts with ${q(prefix)}, a country code UBL.BE 1.31's older list does not have.`, partyTaxScheme);
    }
  }

  // Payment card and mandate.
  for (const card of all(root, "cac:CardAccount")) {
    if (card.parent?.qname !== "cac:PaymentMeans") continue;
    const pans = children(card, "cbc:PrimaryAccountNumberID");
    if (pans.length > 1) continue;
    const len = xlength(stringValue(pans[0]));
    if (len < 4 || len > 6) {
      fatal("BR-51", pans.length === 0
        ? "The payment card (BG-18) has no card number (BT-87): give its last 4 to 6 digits."
        : `The payment card number (BT-87) ${q(stringValue(pans[0]))} must be only the last 4 to 6 digits of the card number.`, pans[0] ?? card);
    }
  }
  if (isUblRoot(root)) {
    const cards = select(root, "cac:PaymentMeans/cac:CardAccount"), mandates = select(root, "cac:PaymentMeans/cac:PaymentMandate");
    if (cards.length > 1) fatal("BR-66", `The document gives ${cards.length} payment cards (cac:CardAccount); at most one is allowed.`, cards[1]!);
    if (mandates.length > 1) fatal("BR-67", `The document gives ${mandates.length} direct debit mandates (cac:PaymentMandate); at most one is allowed.`, mandates[1]!);
    // ubl-CR-666: no attachment on the invoiced object reference.
    const attached = all(root, "cac:AdditionalDocumentReference").find((additionalDocumentReference) => children(additionalDocumentReference, "cbc:DocumentTypeCode").some((documentTypeCode) => stringValue(documentTypeCode) === "130") && child(additionalDocumentReference, "cac:Attachment"));
    if (attached) fatal("ubl-CR-666", "The invoiced object reference (document type code 130) must not carry an attachment (cac:Attachment).", child(attached, "cac:Attachment"));
  }
  for (const pm of all(root, "cac:PaymentMeans")) {
    const notes = children(pm, "cbc:InstructionNote");
    if (notes.length > 1) fatal("UBL-SR-27", `The payment means has ${notes.length} payment instruction notes (cbc:InstructionNote); at most one is allowed.`, notes[1]!);
  }
  for (const line of [...all(root, "cac:InvoiceLine"), ...all(root, "cac:CreditNoteLine")]) {
    const reasons = select(line, "cac:Item/cac:ClassifiedTaxCategory/cbc:TaxExemptionReason");
    if (reasons.length > 1) fatal("UBL-SR-38", `Line ${q(norm(child(line, "cbc:ID")))} gives ${reasons.length} VAT exemption reasons for its item; at most one is allowed.`, reasons[1]!);
  }

  lineBreakdownRules(root, ctx.report);
  if (isUblRoot(root)) for (const [code, prefix, name] of [["L", "BR-IG", "IGIC (Canary Islands)"], ["M", "BR-IP", "IPSI (Ceuta and Melilla)"]] as const) canaryCeutaRules(root, code, prefix, name, fatal);
};

/**
 * BR-IG-01 to 04 (category L, IGIC) and BR-IP-01 to 04 (category M, IPSI), which CEN 1.3.16 no longer has: a
 * document using the category needs it in the VAT breakdown, and a seller VAT identifier (or the tax
 * representative's). As UBL.BE writes them, BR-IG-01 finds the breakdown's category by its exact text, and the
 * seller may give any tax scheme's identifier.
 */
function canaryCeutaRules(root: DocumentNode, code: string, prefix: string, name: string, fatal: (rule: string, message: string, node: DocumentNode | null) => void): void {
  const isCode = (cat: DocumentNode) => categoryCode(cat) === code && isVat(cat);
  const exactly = (cat: DocumentNode) => children(cat, "cbc:ID").some((id) => stringValue(id) === code);
  const acCats = (charge: boolean | null) => all(root, "cac:AllowanceCharge").filter((ac) => charge === null || chargeIndicator(ac) === charge).flatMap((ac) => children(ac, "cac:TaxCategory"));
  const itemCats = all(root, "cac:ClassifiedTaxCategory").filter(isCode);
  const used = acCats(null).filter(isCode).length + itemCats.length;
  const breakdown = select(root, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory");
  const inBreakdown = breakdown.filter((taxCategory) => exactly(taxCategory) && (code === "L" || isVat(taxCategory))).length;
  if (!((used > 0 && inBreakdown > 0) || (used === 0 && breakdown.filter(isCode).length === 0))) {
    fatal(`${prefix}-01`, used > 0
      ? `The document uses VAT category ${code} (${name}) on ${used} line(s), allowance(s) or charge(s), but its VAT breakdown has no category ${code}.`
      : `The VAT breakdown has category ${code} (${name}), but no line, allowance or charge uses it.`, root);
  }
  const sellerVat = select(root, "cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID").length > 0 ||
    all(root, "cac:TaxRepresentativeParty").some((taxRepresentativeParty) => children(taxRepresentativeParty, "cac:PartyTaxScheme").some((partyTaxScheme) => isVat(partyTaxScheme) && child(partyTaxScheme, "cbc:CompanyID")));
  if (sellerVat) return;
  const missing = (rule: string, what: string) => fatal(rule, `The document has ${what} with VAT category ${code} (${name}), so the seller's VAT identifier (or the tax representative's) is required.`, root);
  if (itemCats.length > 0) missing(`${prefix}-02`, "an item");
  if (acCats(false).some(isCode)) missing(`${prefix}-03`, "a document allowance");
  // BR-IG-04's "none" side tests the exact text: a category ' L ' passes it.
  if (acCats(true).some(code === "L" ? (node) => exactly(node) && isVat(node) : isCode)) missing(`${prefix}-04`, "a document charge");
}

/**
 * BR-AE-08, BR-G-08, BR-IC-08, BR-O-08, BR-Z-08 as UBL.BE computes them: in an invoice whose lines carry VAT
 * breakdowns, the breakdown's taxable amount equals the lines' taxable amounts of that category plus the document
 * charges minus the document allowances of that category. (UBL.BE's test only looks at invoice lines, so a credit
 * note always passes it.)
 */
function lineBreakdownRules(root: DocumentNode, report: (rule: string, flag: "fatal" | "warning", message: string, node: DocumentNode | null) => void): void {
  const invoiceLines = all(root, "cac:InvoiceLine");
  if (!invoiceLines.some((invoiceLine) => select(invoiceLine, "cac:TaxTotal/cac:TaxSubtotal").length > 0)) return;
  const lines = children(root, "cac:InvoiceLine");
  for (const [code, rule, flag, what] of LINE_BREAKDOWN_RULES) {
    for (const tt of children(root, "cac:TaxTotal")) {
      for (const st of children(tt, "cac:TaxSubtotal")) {
        for (const cat of children(st, "cac:TaxCategory")) {
          if (categoryCode(cat) !== code || !isVat(cat)) continue;
          const taxable = decAt(st, "cbc:TaxableAmount");
          const lineParts = lines.flatMap((invoiceLine) => select(invoiceLine, "cac:TaxTotal/cac:TaxSubtotal").filter((taxSubtotal) => children(taxSubtotal, "cac:TaxCategory").some((taxCategory) => norm(child(taxCategory, "cbc:ID")) === code)));
          const lineAmounts = lineParts.map((taxSubtotal) => decAt(taxSubtotal, "cbc:TaxableAmount"));
          const charges = docAllowanceCharges(root, code, true), allowances = docAllowanceCharges(root, code, false);
          if (taxable === null || lineAmounts.includes(null) || charges === null || allowances === null) continue;
          const expected = sum(lineAmounts as Decimal[]).plus(charges).minus(allowances);
          if (expected.eq(taxable)) continue;
          // CEN 1.3.16 computes the same sum from the line net amounts; where that one fails, CEN reports it.
          const netAmounts = lines.filter((invoiceLine) => select(invoiceLine, "cac:Item/cac:ClassifiedTaxCategory").some((classifiedTaxCategory) => norm(child(classifiedTaxCategory, "cbc:ID")) === code)).map((invoiceLine) => decAt(invoiceLine, "cbc:LineExtensionAmount"));
          if (netAmounts.includes(null) || !sum(netAmounts as Decimal[]).plus(charges).minus(allowances).eq(taxable)) continue;
          report(rule, flag, `The taxable amount of the ${what} VAT breakdown (category ${code}) is ${money(taxable)}, but the lines' own VAT breakdowns of category ${code} (${lineParts.length} line${lineParts.length === 1 ? "" : "s"}) add up to ${money(sum(lineAmounts as Decimal[]))}${charges.eq(0) && allowances.eq(0) ? "" : `, plus document charges ${money(charges)} minus document allowances ${money(allowances)}`}: ${money(expected)}.`, cat);
        }
      }
    }
  }
}

/** Σ document-level charges (or allowances) of a VAT category, or null when an amount is not a decimal. */
function docAllowanceCharges(root: DocumentNode, code: string, charge: boolean): Decimal | null {
  const amounts = children(root, "cac:AllowanceCharge")
    .filter((ac) => chargeIndicator(ac) === charge && children(ac, "cac:TaxCategory").some((taxCategory) => norm(child(taxCategory, "cbc:ID")) === code))
    .map((ac) => decOf(child(ac, "cbc:Amount")));
  return amounts.includes(null) ? null : sum(amounts as Decimal[]);
}

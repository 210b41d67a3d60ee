// Rule families of XRechnung 3.0.2 for UN/CEFACT CII (KoSIT XRechnung Schematron 2.5.0, XRechnung-CII-validation.sch
// with common.sch, and the Peppol BIS rules KoSIT merges into its CII rules; Apache-2.0, itplr-kosit/xrechnung-schematron):
// the Peppol rules XRechnung takes over (peppol-cii-pattern-1, -0-a, -0-b), BR-DE-*, BR-TMP-2/3, BR-DE-TMP-32
// (cii-pattern), BR-DEX-* (the extension, cii-extension-pattern) and BR-DE-CVD-* / BR-TMP-CVD-01 (cii-cvd-pattern).
// Each assertion is read as its XPath reads on the CII tree, reported at its Schematron context with the official flag;
// within a pattern an element is checked by the first (highest-priority) rule whose context matches it, as XSLT does.
// BR-DE-TMP-32, flagged "information", is reported as a warning and levelled to information by the rule set.
import Big from "big.js";
import { dec, round2, sum, type Decimal } from "../decimal.js";
import {
  child, children, exists, first, isBlankText, norm, normalizeSpace, select, stringValue, type DocumentNode, type RuleContext, type RuleFamily,
} from "../../document/model.js";
import {
  CEF_EAS_CODES, CVA_CODES, CVD_CODE, CVD_VEHICLE_CATEGORIES, DIGA_CODES, EMAIL_REGEX, ISO6523_ICD_CODES, SKONTO_REGEX, UNTDID7143_CODES,
  URL_REGEX,
} from "../codelists/xrechnung.js";
import { all, hasAncestor, hasParents } from "./cen-common.js";
import { q } from "./peppol-support.js";
import { XR_CIUS_ID, XR_CVD_ID, XR_EXTENSION_ID, ibanValid, inCodeList, lastToken, withoutWhitespace, xpathRegex } from "./xrechnung-support.js";

type Report = (rule: string, message: string, node: DocumentNode | null) => void;

const SKONTO = xpathRegex(SKONTO_REGEX);
const EMAIL = xpathRegex(EMAIL_REGEX);
const URL = xpathRegex(URL_REGEX);
/** $XR-TELEPHONE-REGEX '.*([0-9].*){3,}.*': at least three digits (counted, not backtracked). */
const threeDigits = (text: string): boolean => (text.match(/[0-9]/g)?.length ?? 0) >= 3;

const TX = "rsm:SupplyChainTradeTransaction";
const AGREEMENT = `${TX}/ram:ApplicableHeaderTradeAgreement`;
const SETTLEMENT = `${TX}/ram:ApplicableHeaderTradeSettlement`;
const LINE = "ram:IncludedSupplyChainTradeLineItem";
/** BT-24 in CII. */
const GUIDELINE = "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID";

/** The Schematron context `/rsm:CrossIndustryInvoice`. */
export function isCiiRoot(node: DocumentNode): boolean {
  return node.parent === null && node.qname === "rsm:CrossIndustryInvoice";
}

const filled = (node: DocumentNode | null | undefined): boolean => norm(node) !== "";
/** `x[boolean(normalize-space(.))]`: some child x that is not blank. */
const someFilled = (node: DocumentNode | null, qname: string): boolean => children(node, qname).some(filled);
/** `path = 'value'` on untyped nodes: some node's string value is exactly `value`. */
const someEquals = (nodes: readonly DocumentNode[], values: readonly string[]): boolean => nodes.some((n) => values.includes(stringValue(n)));
/** An element of the tree at exactly this path from the root (`/rsm:CrossIndustryInvoice/a/b/...`, `path` given leaf first). */
const atPath = (node: DocumentNode, ...parents: string[]): boolean => {
  let at: DocumentNode | null = node.parent;
  for (const qname of parents) {
    if (!at || at.qname !== qname) return false;
    at = at.parent;
  }
  return at !== null && isCiiRoot(at);
};
/** xs:decimal of one node, or null when there is not exactly one or it is no decimal (a dynamic error officially: no verdict). */
const decOne = (nodes: readonly DocumentNode[]): Decimal | null => (nodes.length === 1 ? dec(stringValue(nodes[0])) : null);

/**
 * An untyped value compared with a number in XPath (`x < 0`): cast to xs:double, NaN when it is not one (officially a
 * dynamic error, which gives no verdict at all).
 */
function xdouble(text: string): number {
  const t = text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
  if (t === "INF" || t === "+INF") return Infinity;
  if (t === "-INF") return -Infinity;
  return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : NaN;
}

// ---------------------------------------------------------------------------------------------------------
// The Peppol BIS Billing 3.0 rules XRechnung takes over, as merged into KoSIT's CII rules (patterns
// peppol-cii-pattern-1, peppol-cii-pattern-0-a and peppol-cii-pattern-0-b)

export const xrechnungCiiPeppolRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  if (!isCiiRoot(root)) return;
  const settlement = select(root, SETTLEMENT);
  // $documentCurrencyCode, $taxCurrencyCode: the elements; $slackValue: 0.5 for HUF, else 0.02.
  const documentCurrency = settlement.flatMap((s) => children(s, "ram:InvoiceCurrencyCode")).map(stringValue);
  const taxCurrency = settlement.flatMap((s) => children(s, "ram:TaxCurrencyCode")).map(stringValue);
  const env: PeppolEnv = { ctx, root, fatal: ctx.fatal, documentCurrency, taxCurrency, slack: new Big(documentCurrency.includes("HUF") ? "0.5" : "0.02") };
  walk(root, (node) => {
    // Pattern 0-a: R008, every element without child elements and without text, but ram:ApplicableHeaderTradeDelivery.
    if (node.children.length === 0 && isBlankText(node.text) && node.qname !== "ram:ApplicableHeaderTradeDelivery") {
      env.fatal("PEPPOL-EN16931-R008", `The element ${node.qname} is empty; leave it out instead of sending it without a value.`, node);
    }
    peppolPattern(env, node);
    // Pattern 0-b: R044, R046 on the gross price of a line.
    if (node.qname === "ram:GrossPriceProductTradePrice" && hasParents(node, "ram:SpecifiedLineTradeAgreement", LINE, TX)) grossPriceRules(env, node);
  });
};

interface PeppolEnv {
  readonly ctx: RuleContext;
  readonly root: DocumentNode;
  readonly fatal: Report;
  readonly documentCurrency: readonly string[];
  readonly taxCurrency: readonly string[];
  readonly slack: Decimal;
}

function walk(node: DocumentNode, visit: (node: DocumentNode) => void): void {
  visit(node);
  for (const element of node.children) walk(element, visit);
}

/** u:slack($exp, $val, $slack): $exp within $slack of $val. */
const withinSlack = (exp: Decimal, val: Decimal, slack: Decimal): boolean => exp.plus(slack).gte(val) && exp.minus(slack).lte(val);

/** peppol-cii-pattern-1: the first rule (by priority) whose context matches the element. */
function peppolPattern(env: PeppolEnv, node: DocumentNode): void {
  const { fatal } = env;
  switch (node.qname) {
    case "rsm:ExchangedDocumentContext":
      if (!exists(node, "ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID")) {
        fatal("PEPPOL-EN16931-R001", "The business process (BT-23, ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID) is missing; it is required.", node);
      }
      return;
    case "ram:ApplicableHeaderTradeSettlement":
      return settlementRules(env, node);
    case "ram:BuyerTradeParty":
      if (!exists(node, "ram:URIUniversalCommunication/ram:URIID")) fatal("PEPPOL-EN16931-R010", "The buyer has no electronic address (BT-49, ram:URIUniversalCommunication/ram:URIID); it is required.", node);
      return;
    case "ram:SellerTradeParty":
      if (!exists(node, "ram:URIUniversalCommunication/ram:URIID")) fatal("PEPPOL-EN16931-R020", "The seller has no electronic address (BT-34, ram:URIUniversalCommunication/ram:URIID); it is required.", node);
      return;
    case "ram:SpecifiedTradeAllowanceCharge":
      return allowanceChargeRules(env, node);
    case "ram:AppliedTradeAllowanceCharge":
      if (!indicatorIsBoolean(node)) {
        fatal("PEPPOL-EN16931-R043-2", `The price discount's charge indicator ${q(norm(first(node, "ram:ChargeIndicator/udt:Indicator")))} must be 'true' or 'false'.`, node);
      }
      return;
    case "ram:SpecifiedTradeSettlementPaymentMeans": {
      const codes = children(node, "ram:TypeCode");
      const code = codes.length === 1 ? norm(codes[0]) : "";
      if ((code === "49" || code === "59") && !exists(node.parent, "ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID")) {
        fatal("PEPPOL-EN16931-R061", `Payment means ${code} is a direct debit, so the mandate reference (BT-89, ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID) is required.`, node);
      }
      return;
    }
    case "ram:StartDateTime": case "ram:EndDateTime":
      return linePeriodRule(env, node);
    case LINE:
      return lineRules(env, node);
    case "ram:NetPriceProductTradePrice": case "ram:GrossPriceProductTradePrice": {
      const bases = children(node, "ram:BasisQuantity");
      if (bases.length === 0) return;
      const base = decOne(bases);
      if (bases.length === 1 && base !== null && !base.gt(0)) {
        fatal("PEPPOL-EN16931-R121", `The price base quantity (BT-149) ${q(norm(bases[0]))} must be greater than zero.`, node);
      }
      return;
    }
    case "ram:BasisQuantity": {
      const price = node.parent;
      if (node.attrs.unitCode === undefined || (price?.qname !== "ram:NetPriceProductTradePrice" && price?.qname !== "ram:GrossPriceProductTradePrice")) return;
      const units = select(price.parent?.parent, "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity").map((n) => n.attrs.unitCode).filter((u) => u !== undefined);
      if (!units.includes(node.attrs.unitCode)) {
        fatal("PEPPOL-EN16931-R130", `The price base quantity's unit ${q(node.attrs.unitCode)} must be the unit of the invoiced quantity ${q(units[0])}.`, node);
      }
      return;
    }
    default:
      return;
  }
}

function settlementRules(env: PeppolEnv, node: DocumentNode): void {
  const { fatal } = env;
  const taxCodes = children(node, "ram:TaxCurrencyCode");
  if (taxCodes.length === 1) {
    const own = normalizeSpace(taxCodes[0]!.text), invoice = children(node, "ram:InvoiceCurrencyCode");
    if (invoice.length <= 1 && own === normalizeSpace(invoice[0]?.text ?? "")) {
      fatal("PEPPOL-EN16931-R005", `The VAT accounting currency ${q(own)} is the invoice currency; give it only when it differs.`, node);
    }
  }
  const totals = select(node, "ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:TaxTotalAmount");
  const inCurrency = (codes: readonly string[]) => totals.filter((t) => t.attrs.currencyID !== undefined && codes.includes(t.attrs.currencyID));
  const inDocumentCurrency = inCurrency(env.documentCurrency);
  if (inDocumentCurrency.length > 1) {
    fatal("PEPPOL-EN16931-R053", `There are ${inDocumentCurrency.length} VAT totals (BT-110) in the invoice currency; only one is allowed.`, node);
  }
  const other = totals.filter((t) => t.attrs.currencyID !== undefined && env.documentCurrency.some((c) => c !== t.attrs.currencyID));
  if (other.length !== (taxCodes.length > 0 ? 1 : 0)) {
    fatal("PEPPOL-EN16931-R054", taxCodes.length > 0
      ? `With a VAT accounting currency (BT-6), exactly one VAT total (BT-111) in another currency than the invoice's is required; there are ${other.length}.`
      : `Without a VAT accounting currency (BT-6), no VAT total in another currency than the invoice's is allowed; there are ${other.length}.`, node);
  }
  if (env.taxCurrency.length > 0 && inDocumentCurrency.length > 0) {
    const values = (nodes: DocumentNode[]) => nodes.map((n) => xdouble(stringValue(n)));
    const tax = values(inCurrency(env.taxCurrency)), doc = values(inDocumentCurrency);
    const negative = tax.some((v) => v < 0) && doc.some((v) => v < 0);
    const positive = tax.some((v) => v >= 0) && doc.some((v) => v >= 0);
    if (!negative && !positive) {
      fatal("PEPPOL-EN16931-R055", "The VAT total in the accounting currency (BT-111) and the VAT total in the invoice currency (BT-110) must have the same sign.", node);
    }
  }
}

function indicatorIsBoolean(node: DocumentNode): boolean {
  const indicators = select(node, "ram:ChargeIndicator/udt:Indicator");
  const value = indicators.length === 1 ? normalizeSpace(indicators[0]!.text) : "";
  return value === "true" || value === "false";
}

function allowanceChargeRules(env: PeppolEnv, node: DocumentNode): void {
  const { fatal } = env;
  const percent = child(node, "ram:CalculationPercent"), base = child(node, "ram:BasisAmount");
  if (percent && !base) {
    fatal("PEPPOL-EN16931-R041", `The allowance or charge gives a percentage (${q(norm(percent))}) but no base amount (ram:BasisAmount); give both or neither.`, node);
    return;
  }
  if (!percent && base) {
    fatal("PEPPOL-EN16931-R042", `The allowance or charge gives a base amount (${q(norm(base))}) but no percentage (ram:CalculationPercent); give both or neither.`, node);
    return;
  }
  if (percent && base) {
    const amounts = children(node, "ram:ActualAmount");
    const amount = amounts.length === 0 ? new Big(0) : decOne(amounts);
    const b = decOne(children(node, "ram:BasisAmount")), p = decOne(children(node, "ram:CalculationPercent"));
    if (amount && b && p) {
      const expected = b.times(p).div(100);
      if (!withinSlack(amount, expected, env.slack)) {
        fatal("PEPPOL-EN16931-R040", `The allowance or charge amount ${q(norm(amounts[0]))} must be the base amount ${q(norm(base))} × the percentage ${q(norm(percent))} / 100 = ${expected.toFixed()}.`, node);
      }
    }
  }
  if (!indicatorIsBoolean(node)) {
    fatal("PEPPOL-EN16931-R043-1", `The allowance or charge indicator ${q(norm(first(node, "ram:ChargeIndicator/udt:Indicator")))} must be 'true' or 'false'.`, node);
  }
}

/** R110 / R111: a line's period lies within the invoice period (compared as strings, as the untyped values are). */
function linePeriodRule(env: PeppolEnv, node: DocumentNode): void {
  if (!hasParents(node, "ram:BillingSpecifiedPeriod", "ram:SpecifiedLineTradeSettlement", LINE, TX)) return;
  const tx = node.parent!.parent!.parent!.parent!;
  const header = select(tx, `ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod/${node.qname}`);
  if (header.length === 0) return;
  const invoice = header.flatMap((h) => children(h, "udt:DateTimeString")).map(stringValue);
  const own = children(node, "udt:DateTimeString").map(stringValue);
  const start = node.qname === "ram:StartDateTime";
  if (!own.some((o) => invoice.some((i) => (start ? o >= i : o <= i)))) {
    env.fatal(start ? "PEPPOL-EN16931-R110" : "PEPPOL-EN16931-R111",
      `The line's period ${start ? "starts" : "ends"} on ${q(own[0])}, ${start ? "before the invoicing period starts" : "after the invoicing period ends"} (${q(invoice[0])}); a line's period must lie within the invoice's.`, node);
  }
}

function lineRules(env: PeppolEnv, line: DocumentNode): void {
  const optional = (path: string, fallback: string): Decimal | null => {
    const nodes = select(line, path);
    return nodes.length === 0 ? new Big(fallback) : decOne(nodes);
  };
  const lineAmount = optional("ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount", "0");
  const quantity = optional("ram:SpecifiedLineTradeDelivery/ram:BilledQuantity", "1");
  const price = optional("ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount", "0");
  const baseOf = (path: string): Decimal | null | undefined => {
    const nodes = select(line, path);
    if (nodes.length === 0) return undefined;
    const value = decOne(nodes);
    return value === null ? null : value.eq(0) ? undefined : value;
  };
  const net = baseOf("ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity");
  const gross = net === undefined ? baseOf("ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:BasisQuantity") : net;
  const baseQuantity = gross === undefined ? new Big(1) : gross;
  const total = (indicator: string): Decimal | null => {
    const acs = select(line, "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge")
      .filter((ac) => normalizeSpace(stringValue(first(ac, "ram:ChargeIndicator/udt:Indicator"))) === indicator);
    const amounts = acs.flatMap((ac) => children(ac, "ram:ActualAmount")).map((n) => dec(stringValue(n)));
    if (!amounts.every((a) => a !== null)) return null;
    // round(sum(...) * 10 * 10) div 100: round half towards positive infinity.
    return round2(sum(amounts as Decimal[]));
  };
  const allowances = total("false"), charges = total("true");
  if (lineAmount && quantity && price && baseQuantity && allowances && charges) {
    const expected = quantity.times(price.div(baseQuantity)).plus(charges).minus(allowances);
    if (!withinSlack(lineAmount, expected, env.slack)) {
      env.ctx.report("PEPPOL-EN16931-R120", "warning", `The line net amount ${q(norm(first(line, "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount")))} should be quantity × (price / base quantity) + charges − allowances = ${expected.round(2).toFixed(2)}.`, line);
    }
  }
  const refs = select(line, "ram:SpecifiedLineTradeSettlement/ram:AdditionalReferencedDocument");
  if (refs.length > 0 && !someEquals(refs.flatMap((r) => children(r, "ram:TypeCode")), ["130"])) {
    env.fatal("PEPPOL-EN16931-R101", "A line's referenced document (ram:AdditionalReferencedDocument) must be an invoiced object identifier, with type code '130'.", line);
  }
}

/** R044, R046 on a line's gross price. */
function grossPriceRules(env: PeppolEnv, gross: DocumentNode): void {
  const discounts = children(gross, "ram:AppliedTradeAllowanceCharge");
  if (discounts.some((d) => child(d, "ram:ActualAmount")) && !someEquals(discounts.flatMap((d) => select(d, "ram:ChargeIndicator/udt:Indicator")), ["false"])) {
    env.fatal("PEPPOL-EN16931-R044", "A price discount (BT-147) must be an allowance: its charge indicator must be 'false'; charges on the price are not allowed.", gross);
  }
  const charges = children(gross, "ram:ChargeAmount");
  if (charges.length === 0) return;
  const firstAmounts = discounts.map((d) => child(d, "ram:ActualAmount")).filter((n): n is DocumentNode => n !== null);
  const discount = firstAmounts.length === 0 ? new Big(0) : decOne(firstAmounts);
  const grossAmount = decOne(charges);
  const nets = select(gross.parent, "ram:NetPriceProductTradePrice/ram:ChargeAmount");
  if (nets.length > 1 || discount === null || grossAmount === null) return; // a dynamic error officially: no verdict
  const net = nets.length === 1 ? dec(stringValue(nets[0])) : undefined;
  if (net === null) return;
  if (net === undefined || !net.eq(grossAmount.minus(discount))) {
    env.fatal("PEPPOL-EN16931-R046", `The net price (BT-146) ${q(norm(nets[0]))} must be the gross price (BT-148) ${q(norm(charges[0]))} minus the price discount (BT-147) ${q(discount.toFixed())}.`, gross);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Pattern cii-pattern: BR-DE-1..31, BR-TMP-2, BR-TMP-3, BR-DE-TMP-32

/** The VAT category codes for which BR-DE-16 requires the seller's VAT identifier or tax representative. */
const VAT_CODES_NEEDING_SELLER_VAT = ["S", "Z", "E", "AE", "K", "G", "L", "M"];
/** BR-DE-17: the invoice type codes XRechnung expects. */
const TYPE_CODES = ["326", "380", "384", "389", "381", "875", "876", "877"];

export const xrechnungCiiRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  if (!isCiiRoot(root)) return;
  const fatal: Report = ctx.fatal;
  const warning: Report = (rule, message, node) => ctx.report(rule, "warning", message, node);
  documentRules(ctx, fatal, warning);
  for (const context of children(root, "rsm:ExchangedDocumentContext")) {
    if (!someEquals(select(context, "ram:GuidelineSpecifiedDocumentContextParameter/ram:ID"), [XR_CIUS_ID, XR_EXTENSION_ID, XR_CVD_ID])) {
      warning("BR-DE-21", `The specification identifier (BT-24) ${q(norm(first(context, "ram:GuidelineSpecifiedDocumentContextParameter/ram:ID")))} is not XRechnung's: use '${XR_CIUS_ID}'.`, context);
    }
  }
  for (const seller of select(root, `${AGREEMENT}/ram:SellerTradeParty`)) {
    if (!child(seller, "ram:DefinedTradeContact")) fatal("BR-DE-2", "The seller contact (BG-6: contact person, telephone and e-mail) is missing; XRechnung requires it.", seller);
    for (const address of children(seller, "ram:PostalTradeAddress")) {
      if (!someFilled(address, "ram:CityName")) fatal("BR-DE-3", "The seller's city (BT-37) is missing.", address);
      if (!someFilled(address, "ram:PostcodeCode")) fatal("BR-DE-4", "The seller's post code (BT-38) is missing.", address);
    }
    for (const contact of children(seller, "ram:DefinedTradeContact")) contactRules(contact, fatal, warning);
  }
  for (const address of select(root, `${AGREEMENT}/ram:BuyerTradeParty/ram:PostalTradeAddress`)) {
    if (!someFilled(address, "ram:CityName")) fatal("BR-DE-8", "The buyer's city (BT-52) is missing.", address);
    if (!someFilled(address, "ram:PostcodeCode")) fatal("BR-DE-9", "The buyer's post code (BT-53) is missing.", address);
  }
  for (const document of select(root, `${AGREEMENT}/ram:AdditionalReferencedDocument`)) {
    if (!someEquals(children(document, "ram:TypeCode"), ["916"])) continue;
    const uris = children(document, "ram:URIID");
    if (uris.length === 1 && !URL.test(stringValue(uris[0]))) {
      warning("BR-TMP-2", `The external document location (BT-124) ${q(stringValue(uris[0]))} is not an absolute URL with a scheme, such as https://example.com/invoice.pdf.`, document);
    }
  }
  for (const address of select(root, `${TX}/ram:ApplicableHeaderTradeDelivery/ram:ShipToTradeParty/ram:PostalTradeAddress`)) {
    if (!someFilled(address, "ram:CityName")) fatal("BR-DE-10", "The deliver-to address (BG-15) has no city (BT-77); give it whenever the address is given.", address);
    if (!someFilled(address, "ram:PostcodeCode")) fatal("BR-DE-11", "The deliver-to address (BG-15) has no post code (BT-78); give it whenever the address is given.", address);
  }
  for (const means of select(root, `${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans`)) paymentMeansRules(root, means, fatal, warning);
  for (const tax of select(root, `${SETTLEMENT}/ram:ApplicableTradeTax`)) {
    if (!someFilled(tax, "ram:RateApplicablePercent")) {
      const code = norm(child(tax, "ram:CategoryCode"));
      fatal("BR-DE-14", `The VAT breakdown${code ? ` for category ${q(code)}` : ""} has no VAT rate (BT-119, ram:RateApplicablePercent); XRechnung requires it, 0 where no VAT is charged.`, tax);
    }
  }
  for (const tx of children(root, TX)) {
    const lines = children(tx, LINE);
    if (!exists(tx, "ram:ApplicableHeaderTradeDelivery/ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime") && !exists(tx, "ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod")
      && !lines.every((line) => exists(line, "ram:SpecifiedLineTradeSettlement/ram:BillingSpecifiedPeriod"))) {
      // Flag "information" in the official rules: levelled by the rule set (never an error, never a warning in the report).
      ctx.report("BR-DE-TMP-32", "warning", "The invoice gives no date of delivery or service: no actual delivery date (BT-72), no invoicing period (BG-14) and not every line has a period (BG-26).", tx);
    }
    for (const line of lines) basisQuantityRule(line, fatal);
  }
};

function documentRules(ctx: RuleContext, fatal: Report, warning: Report): void {
  const root = ctx.root;
  // BR-DE-30 / BR-DE-31: BG-19 has no element of its own in CII: it is there when any of BT-89, BT-90, BT-91 is.
  const mandate = exists(root, `${SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID`);
  const creditor = exists(root, `${SETTLEMENT}/ram:CreditorReferenceID`);
  const debited = exists(root, `${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans/ram:PayerPartyDebtorFinancialAccount/ram:IBANID`);
  const directDebit = mandate || creditor || debited;
  // As the official test reads: (BT-89 or BT-91) and BT-90, or none of the three (BT-90 alone is not enough).
  if (directDebit && !((mandate || debited) && creditor)) {
    fatal("BR-DE-30", creditor
      ? "The invoice gives a creditor identifier (BT-90) but neither a mandate reference (BT-89) nor a debited account (BT-91): direct debit information (BG-19) needs BT-90 with BT-89 or BT-91."
      : "The invoice is paid by direct debit (BG-19), so the bank assigned creditor identifier (BT-90, ram:CreditorReferenceID) is required.", root);
  }
  if (directDebit && !((mandate || creditor) && debited)) {
    fatal("BR-DE-31", debited
      ? "The invoice gives a debited account (BT-91) but neither a mandate reference (BT-89) nor a creditor identifier (BT-90): direct debit information (BG-19) needs BT-91 with BT-89 or BT-90."
      : "The invoice is paid by direct debit (BG-19), so the debited account (BT-91, ram:PayerPartyDebtorFinancialAccount/ram:IBANID) is required.", root);
  }
  if (!exists(root, `${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans`)) {
    fatal("BR-DE-1", "The invoice has no payment instructions (BG-16, ram:SpecifiedTradeSettlementPaymentMeans); XRechnung requires them.", root);
  }
  if (!select(root, `${AGREEMENT}/ram:BuyerReference`).some(filled)) {
    fatal("BR-DE-15", "The invoice has no buyer reference (BT-10, ram:BuyerReference); for a German public buyer this is the Leitweg-ID.", root);
  }

  const lineTaxes = select(root, `${TX}/${LINE}/ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax`);
  const headerTaxes = select(root, `${SETTLEMENT}/ram:SpecifiedTradeAllowanceCharge/ram:CategoryTradeTax`);
  const codesOf = (taxes: DocumentNode[]) => taxes.flatMap((t) => children(t, "ram:CategoryCode"));
  const onLines = someEquals(lineTaxes.flatMap((t) => children(t, "ram:TypeCode")), ["VAT"]) && someEquals(codesOf(lineTaxes), VAT_CODES_NEEDING_SELLER_VAT);
  // `ram:CategoryTradeTax = 'VAT'` compares the whole element's string value, as the official rule does.
  const onAllowances = someEquals(headerTaxes, ["VAT"]) && someEquals(codesOf(headerTaxes), VAT_CODES_NEEDING_SELLER_VAT);
  const sellerTaxId = select(root, `${AGREEMENT}/ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID`)
    .some((id) => ["VA", "FC"].includes(normalizeSpace(id.attrs.schemeID ?? "")) && filled(id));
  if ((onLines || onAllowances) && !sellerTaxId && !exists(root, `${AGREEMENT}/ram:SellerTaxRepresentativeTradeParty`)) {
    const used = [...new Set(codesOf(onLines ? lineTaxes : headerTaxes).map(stringValue).filter((c) => VAT_CODES_NEEDING_SELLER_VAT.includes(c)))];
    fatal("BR-DE-16", `The invoice uses VAT categor${used.length === 1 ? "y" : "ies"} ${used.map((c) => q(c)).join(", ")}, so it needs the seller's VAT identifier (BT-31, schemeID 'VA') or tax registration number (BT-32, schemeID 'FC') in ram:SpecifiedTaxRegistration/ram:ID, or a seller tax representative (BG-11).`,
      first(root, `${AGREEMENT}/ram:SellerTradeParty`) ?? root);
  }

  const typeCodes = select(root, "rsm:ExchangedDocument/ram:TypeCode");
  const typeCode = typeCodes.length === 1 ? norm(typeCodes[0]) : typeCodes.length === 0 ? "" : null;
  if (typeCode !== null && !TYPE_CODES.includes(typeCode)) {
    warning("BR-DE-17", `The invoice type code (BT-3) ${q(typeCode)} is not one XRechnung expects: use 326 (partial invoice), 380 (commercial invoice), 384 (corrected invoice), 389 (self-billed invoice), 381 (credit note), 875, 876 or 877 (construction invoices).`, root);
  }

  skontoRule(root, fatal);

  // BR-DE-22: no attachment with the file name of a preceding sibling attachment.
  for (const parent of new Set(all(root, "ram:AdditionalReferencedDocument").map((d) => d.parent))) {
    const seen = new Set<string>();
    for (const document of children(parent, "ram:AdditionalReferencedDocument")) {
      const names = children(document, "ram:AttachmentBinaryObject").map((o) => o.attrs.filename).filter((n): n is string => n !== undefined);
      const repeated = names.find((name) => seen.has(name));
      if (repeated !== undefined) {
        fatal("BR-DE-22", `Two attached documents have the same file name ${q(repeated)}; each attachment's filename must be unique.`, root);
        break;
      }
      for (const name of names) seen.add(name);
    }
  }

  if (typeCode === "384" && !exists(root, `${SETTLEMENT}/ram:InvoiceReferencedDocument`)) {
    warning("BR-DE-26", "The invoice is a corrected invoice (type code 384) but does not reference the invoice it corrects (BG-3, ram:InvoiceReferencedDocument).", root);
  }
}

/**
 * BR-DE-18: every line of the first description of the payment terms that starts with '#' is a well-formed
 * cash-discount line (#SKONTO#TAGE=n#PROZENT=n.nn# with an optional #BASISBETRAG=n.nn#), and the text after the last
 * one starts with a line break.
 */
function skontoRule(root: DocumentNode, fatal: Report): void {
  const notes = select(root, `${SETTLEMENT}/ram:SpecifiedTradePaymentTerms`).map((terms) => child(terms, "ram:Description")).filter((n): n is DocumentNode => n !== null);
  const bad: string[] = [];
  let any = false;
  for (const note of notes) {
    for (const line of stringValue(note).split(/\r?\n/)) {
      const trimmed = normalizeSpace(line);
      if (!trimmed.startsWith("#")) continue;
      any = true;
      if (!SKONTO.test(trimmed)) bad.push(trimmed);
    }
  }
  if (!any || notes.length > 1) return; // more than one description with the tail: a dynamic error officially, no verdict
  const endsWithBreak = /^[ \t\n\r]*\n/.test(lastToken(stringValue(notes[0])));
  if (bad.length > 0 || !endsWithBreak) {
    fatal("BR-DE-18", bad.length > 0
      ? `The cash discount line ${q(bad[0])} in the payment terms (BT-20) is not in the form #SKONTO#TAGE=14#PROZENT=2.00# (optionally followed by BASISBETRAG=123.45#), in capitals, without spaces, the percentage with two decimals.`
      : "The cash discount (Skonto) line in the payment terms (BT-20) must end with a line break.", root);
  }
}

function contactRules(contact: DocumentNode, fatal: Report, warning: Report): void {
  if (![...children(contact, "ram:PersonName"), ...children(contact, "ram:DepartmentName")].some(filled)) {
    fatal("BR-DE-5", "The seller contact point (BT-41, ram:PersonName or ram:DepartmentName) is missing: give the name of a person or department.", contact);
  }
  const phones = select(contact, "ram:TelephoneUniversalCommunication/ram:CompleteNumber");
  const mails = select(contact, "ram:EmailURIUniversalCommunication/ram:URIID");
  if (!phones.some(filled)) fatal("BR-DE-6", "The seller contact's telephone number (BT-42) is missing.", contact);
  if (!mails.some(filled)) fatal("BR-DE-7", "The seller contact's e-mail address (BT-43) is missing.", contact);
  if (phones.length <= 1 && !threeDigits(norm(phones[0]))) {
    const phone = norm(phones[0]);
    warning("BR-DE-27", phone === ""
      ? "The seller contact's telephone number (BT-42) is missing; it should be a number with at least three digits."
      : `The seller contact's telephone number (BT-42) ${q(phone)} should contain at least three digits.`, contact);
  }
  if (mails.length <= 1 && !EMAIL.test(norm(mails[0]))) {
    const mail = norm(mails[0]);
    warning("BR-DE-28", mail === ""
      ? "The seller contact's e-mail address (BT-43) is missing; it should be an address such as name@example.com."
      : `The seller contact's e-mail address (BT-43) ${q(mail)} does not look like an e-mail address (one @ with a name before it and a domain after it).`, contact);
  }
}

/** An IBAN as BR-DE-19/20 read it, or null when there is more than one (a dynamic error officially: no verdict). */
function ibanOf(nodes: readonly DocumentNode[]): string | null {
  return nodes.length > 1 ? null : withoutWhitespace(stringValue(nodes[0]));
}

function paymentMeansRules(root: DocumentNode, means: DocumentNode, fatal: Report, warning: Report): void {
  const codes = children(means, "ram:TypeCode");
  if (codes.length !== 1) return; // normalize-space of none matches no rule; of several, a dynamic error
  const code = norm(codes[0]);
  const has = (qname: string) => child(means, qname) !== null;
  const directDebit = () => exists(root, `${SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID`) || exists(root, `${SETTLEMENT}/ram:CreditorReferenceID`)
    || exists(means, "ram:PayerPartyDebtorFinancialAccount/ram:IBANID");
  if (code === "30" || code === "58") {
    if (code === "58") {
      const nodes = select(means, "ram:PayeePartyCreditorFinancialAccount/ram:IBANID");
      const iban = ibanOf(nodes);
      if (iban !== null && !ibanValid(iban)) {
        warning("BR-DE-19", iban === ""
          ? "Payment means 58 is a SEPA credit transfer, so the payment account (BT-84, ram:PayeePartyCreditorFinancialAccount/ram:IBANID) should be given as an IBAN; it is missing."
          : `Payment means 58 is a SEPA credit transfer, so the payment account (BT-84) should be a valid IBAN; ${q(norm(nodes[0]))} is not (wrong format or check digits).`, means);
      }
    }
    if (!has("ram:PayeePartyCreditorFinancialAccount")) fatal("BR-DE-23-a", `Payment means ${code} is a credit transfer, so the account to pay into (BG-17, ram:PayeePartyCreditorFinancialAccount) is required.`, means);
    if (has("ram:ApplicableTradeSettlementFinancialCard") || directDebit()) {
      fatal("BR-DE-23-b", `Payment means ${code} is a credit transfer, so it must not carry ${has("ram:ApplicableTradeSettlementFinancialCard") ? "payment card information (BG-18)" : "direct debit information (BG-19: mandate reference, creditor identifier or debited account)"}.`, means);
    }
  } else if (code === "48" || code === "54" || code === "55") {
    if (!has("ram:ApplicableTradeSettlementFinancialCard")) fatal("BR-DE-24-a", `Payment means ${code} is a card payment, so the payment card information (BG-18, ram:ApplicableTradeSettlementFinancialCard) is required.`, means);
    if (has("ram:PayeePartyCreditorFinancialAccount") || directDebit()) {
      fatal("BR-DE-24-b", `Payment means ${code} is a card payment, so it must not carry ${has("ram:PayeePartyCreditorFinancialAccount") ? "a credit transfer account (BG-17)" : "direct debit information (BG-19: mandate reference, creditor identifier or debited account)"}.`, means);
    }
  } else if (code === "59") {
    const nodes = select(means, "ram:PayerPartyDebtorFinancialAccount/ram:IBANID");
    const iban = ibanOf(nodes);
    if (iban !== null && !ibanValid(iban)) {
      warning("BR-DE-20", iban === ""
        ? "Payment means 59 is a SEPA direct debit, so the debited account (BT-91, ram:PayerPartyDebtorFinancialAccount/ram:IBANID) should be given as an IBAN; it is missing."
        : `Payment means 59 is a SEPA direct debit, so the debited account (BT-91) should be a valid IBAN; ${q(norm(nodes[0]))} is not (wrong format or check digits).`, means);
    }
    if (!directDebit()) fatal("BR-DE-25-a", "Payment means 59 is a direct debit, so the direct debit information (BG-19: mandate reference BT-89, creditor identifier BT-90, debited account BT-91) is required.", means);
    const forbidden = ["ram:PayeePartyCreditorFinancialAccount", "ram:PayeeSpecifiedCreditorFinancialInstitution", "ram:PayerSpecifiedDebtorFinancialInstitution", "ram:ApplicableTradeSettlementFinancialCard"].filter(has);
    if (forbidden.length > 0) {
      fatal("BR-DE-25-b", `Payment means 59 is a direct debit, so it must not carry ${forbidden[0] === "ram:ApplicableTradeSettlementFinancialCard" ? "payment card information (BG-18)" : `credit transfer information (BG-17, ${forbidden[0]})`}.`, means);
    }
  }
}

/** BR-TMP-3: a base quantity in both the gross and the net price is the same, with the same unit (compared as text). */
function basisQuantityRule(line: DocumentNode, fatal: Report): void {
  const gross = select(line, "ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:BasisQuantity");
  const net = select(line, "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity");
  if (gross.length === 0 || net.length === 0) return;
  const same = gross.some((g) => net.some((n) => stringValue(g) === stringValue(n)));
  const netUnits = net.map((n) => n.attrs.unitCode).filter((u) => u !== undefined), grossUnits = gross.map((g) => g.attrs.unitCode).filter((u) => u !== undefined);
  const unitsOk = netUnits.length === 0 || grossUnits.length === 0 || grossUnits.some((u) => netUnits.includes(u));
  if (!same || !unitsOk) {
    fatal("BR-TMP-3", !same
      ? `The price base quantity (BT-149) differs between the gross price (${q(stringValue(gross[0]))}) and the net price (${q(stringValue(net[0]))}); give the same in both.`
      : `The price base quantity's unit (BT-150) differs between the gross price (${q(grossUnits[0])}) and the net price (${q(netUnits[0])}); give the same in both.`, line);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Pattern cii-extension-pattern: BR-DEX-01, 04..08, 15, only for the XRechnung extension's guideline id

const DEX_MIME_CODES = [
  "application/pdf", "image/png", "image/jpeg", "text/csv",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.oasis.opendocument.spreadsheet", "application/xml",
];
const ICD_EXT = DIGA_CODES + ISO6523_ICD_CODES; // $ISO-6523-ICD-EXT-CODES
const EAS_EXT = DIGA_CODES + CEF_EAS_CODES; // $CEF-EAS-EXT-CODES

/** `ram:ID[text() = id]` at BT-24's place: the guideline id's own text equals `id`, untrimmed. */
const guidelineTextIs = (root: DocumentNode, id: string): boolean => select(root, GUIDELINE).some((node) => node.text === id);

export const xrechnungCiiExtensionRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  if (!isCiiRoot(root) || !guidelineTextIs(root, XR_EXTENSION_ID)) return;
  const fatal: Report = ctx.fatal;
  const subLines = all(root, "ram:ParentLineID").length > 0;
  const scheme = (rule: string, id: DocumentNode, list: string, what: string) => {
    const raw = id.attrs.schemeID!;
    if (!inCodeList(list, normalizeSpace(raw))) {
      fatal(rule, `The scheme ${q(raw)} of the ${what} ${q(norm(id))} is not in the ${list === EAS_EXT ? "electronic address scheme (EAS)" : "ISO 6523 ICD"} code list (with XRechnung's XR01, XR02, XR03).`, id);
    }
  };
  walk(root, (node) => {
    const withScheme = node.attrs.schemeID !== undefined;
    switch (node.qname) {
      case "ram:AssociatedDocumentLineDocument":
        if (subLines && atPath(node, LINE, TX)) {
          ctx.report("BR-DEX-15", "warning", "The invoice uses sub invoice lines (ram:ParentLineID), which XRechnung does not support in CII.", node);
        }
        return;
      case "ram:GlobalID":
        if (!withScheme) return;
        if (!hasAncestor(node, "ram:SpecifiedTradeProduct") && !hasAncestor(node, "ram:ShipToTradeParty")) scheme("BR-DEX-04", node, ICD_EXT, "global identifier");
        else if (node.parent?.qname === "ram:SpecifiedTradeProduct") scheme("BR-DEX-06", node, ICD_EXT, "item's standard identifier");
        else if (hasParents(node, "ram:ShipToTradeParty", "ram:ApplicableHeaderTradeDelivery")) scheme("BR-DEX-08", node, ICD_EXT, "delivery location identifier");
        return;
      case "ram:ID":
        if (withScheme && !hasAncestor(node, "ram:SpecifiedTaxRegistration")) scheme("BR-DEX-05", node, ICD_EXT, "identifier");
        return;
      case "ram:URIID":
        if (withScheme && node.parent?.qname === "ram:URIUniversalCommunication") scheme("BR-DEX-07", node, EAS_EXT, "electronic address");
        return;
      case "ram:AttachmentBinaryObject": {
        const mime = node.attrs.mimeCode;
        if (mime === undefined || !DEX_MIME_CODES.includes(mime)) {
          fatal("BR-DEX-01", `The attached document (BT-125) has MIME code ${q(mime)}; allowed are application/pdf, image/png, image/jpeg, text/csv, the Excel and OpenDocument spreadsheet types and, in the extension, application/xml.`, node);
        }
        return;
      }
      default:
        return;
    }
  });
};

// ---------------------------------------------------------------------------------------------------------
// Pattern cii-cvd-pattern: BR-DE-CVD-01..06, BR-TMP-CVD-01, only for XRechnung CVD's guideline id

const CVD_LIST_IDS = CVD_CODE + UNTDID7143_CODES; // $UNTDID-7143-CVD-CODES

export const xrechnungCiiCvdRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  if (!isCiiRoot(root) || !guidelineTextIs(root, XR_CVD_ID)) return;
  const fatal: Report = ctx.fatal;
  const isCva = (characteristic: DocumentNode) => someEquals(children(characteristic, "ram:Description"), ["cva"]);
  const cvdCodes = (product: DocumentNode) => select(product, "ram:DesignatedProductClassification/ram:ClassCode").filter((c) => c.attrs.listID === "CVD");
  for (const tx of children(root, TX)) {
    const products = select(tx, `${LINE}/ram:SpecifiedTradeProduct`);
    if (!products.some((p) => cvdCodes(p).length > 0 && children(p, "ram:ApplicableProductCharacteristic").some(isCva))) {
      fatal("BR-DE-CVD-03", "A clean vehicles (CVD) invoice needs at least one line whose item has a classification with scheme 'CVD' (BT-158) and an attribute named 'cva' (BT-160).", tx);
    }
    for (const product of products) {
      const cva = children(product, "ram:ApplicableProductCharacteristic").filter(isCva);
      const codes = cvdCodes(product);
      if (cva.length > 0 && codes.length !== 1) fatal("BR-DE-CVD-06-b", `The item has an attribute 'cva', so it needs exactly one classification with scheme 'CVD' (BT-158); it has ${codes.length}.`, product);
      if (codes.length > 0 && cva.length !== 1) fatal("BR-DE-CVD-06-a", `The item has a CVD vehicle category, so it needs exactly one attribute named 'cva' (BT-160); it has ${cva.length}.`, product);
      for (const code of select(product, "ram:DesignatedProductClassification/ram:ClassCode")) {
        const listId = normalizeSpace(code.attrs.listID ?? "");
        if (!inCodeList(CVD_LIST_IDS, listId)) fatal("BR-TMP-CVD-01", `The item classification scheme (BT-158-1) ${q(code.attrs.listID)} is not in UNTDID 7143 (or 'CVD').`, code);
        if (listId === "CVD" && !CVD_VEHICLE_CATEGORIES.includes(norm(code))) {
          fatal("BR-DE-CVD-04", `The CVD vehicle category ${q(norm(code))} is not one of ${CVD_VEHICLE_CATEGORIES.join(", ")}.`, code);
        }
      }
      for (const characteristic of cva) {
        const values = children(characteristic, "ram:Value");
        if (values.length <= 1 && !CVA_CODES.includes(norm(values[0]))) {
          fatal("BR-DE-CVD-05", `The 'cva' attribute value (BT-161) ${q(norm(values[0]))} is not one of ${CVA_CODES.join(", ")}.`, characteristic);
        }
      }
    }
  }
  for (const agreement of select(root, AGREEMENT)) {
    if (!select(agreement, "ram:ContractReferencedDocument/ram:IssuerAssignedID").some(filled)) {
      fatal("BR-DE-CVD-01", "A clean vehicles (CVD) invoice needs the contract reference (BT-12).", agreement);
    }
    if (!children(agreement, "ram:AdditionalReferencedDocument").some((d) => children(d, "ram:TypeCode").length <= 1 && norm(child(d, "ram:TypeCode")) === "50" && children(d, "ram:IssuerAssignedID").length <= 1 && filled(child(d, "ram:IssuerAssignedID")))) {
      fatal("BR-DE-CVD-02", "A clean vehicles (CVD) invoice needs the tender or lot reference (BT-17: an additional referenced document with type code 50).", agreement);
    }
  }
};

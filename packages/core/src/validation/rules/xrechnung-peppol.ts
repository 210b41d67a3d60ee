// Rule family: the 21 Peppol BIS Billing 3.0 rules XRechnung 3.0.2 takes over (KoSIT XRechnung Schematron 2.5.0,
// src/xsl/rule-list.xml: R001, R005, R008, R010, R020, R040-R044, R046, R053-R055, R061, R101, R110, R111, R120,
// R121, R130), with the contexts and flags they have in the XRechnung rules — not those of the Peppol release we
// run for Peppol documents (rules/peppol.ts): there R120 is a warning here too, but R041/R042 stop R040/R043 on the
// same allowance, R010/R020 apply to any party, and R002-R004, R007 and the code list rules are not taken over.
// Within the pattern an element is checked by the first (highest-priority) rule whose context matches it.
import Big from "big.js";
import { dec, round2, sum, type Decimal } from "../decimal.js";
import { child, children, exists, isBlankText, norm, normalizeSpace, select, stringValue, type RuleContext, type RuleFamily, type DocumentNode } from "../../document/model.js";
import { isUblRoot } from "./cen-common.js";
import { q, xsDate } from "./peppol-support.js";

type Report = (rule: string, message: string, node: DocumentNode | null) => void;

export const xrechnungPeppolRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  const fatal: Report = ctx.fatal;
  const env: Env = {
    ctx, root, fatal,
    isInvoice: isUblRoot(root) && root.name === "Invoice",
    // $slackValue: if ($documentCurrencyCode = 'HUF') then 0.5 else 0.02
    slack: new Big(children(root, "cbc:DocumentCurrencyCode").some((documentCurrencyCode) => stringValue(documentCurrencyCode) === "HUF") ? "0.5" : "0.02"),
  };
  visit(env, root);
};

interface Env {
  readonly ctx: RuleContext;
  readonly root: DocumentNode;
  readonly fatal: Report;
  readonly isInvoice: boolean;
  readonly slack: Decimal;
}

function visit(env: Env, node: DocumentNode): void {
  // Pattern 1: R008, every element without child elements and without text.
  if (node.children.length === 0 && isBlankText(node.text)) {
    env.fatal("PEPPOL-EN16931-R008", `The element ${node.qname} is empty; leave it out instead of sending it without a value.`, node);
  }
  mainPattern(env, node);
  for (const element of node.children) visit(env, element);
}

/** u:slack($exp, $val, $slack): $exp within $slack of $val. */
function withinSlack(exp: Decimal, val: Decimal, slack: Decimal): boolean {
  return exp.plus(slack).gte(val) && exp.minus(slack).lte(val);
}

const isRootLine = (env: Env, node: DocumentNode | null): boolean =>
  node !== null && node.parent === env.root && isUblRoot(env.root) && node.qname === (env.isInvoice ? "cac:InvoiceLine" : "cac:CreditNoteLine");

function mainPattern(env: Env, node: DocumentNode): void {
  const { root, fatal } = env;
  const parent = node.parent;
  if (node === root && isUblRoot(root)) return documentRules(env);
  switch (node.qname) {
    case "cbc:TaxCurrencyCode": {
      const own = normalizeSpace(node.text), invoice = normalizeSpace(child(parent, "cbc:DocumentCurrencyCode")?.text ?? "");
      if (own === invoice) fatal("PEPPOL-EN16931-R005", `The VAT accounting currency ${q(own)} is the invoice currency; give it only when it differs.`, node);
      return;
    }
    case "cac:Party":
      if (parent?.qname === "cac:AccountingCustomerParty" && !child(node, "cbc:EndpointID")) {
        fatal("PEPPOL-EN16931-R010", "The buyer has no electronic address (BT-49, cbc:EndpointID); it is required.", node);
      } else if (parent?.qname === "cac:AccountingSupplierParty" && !child(node, "cbc:EndpointID")) {
        fatal("PEPPOL-EN16931-R020", "The seller has no electronic address (BT-34, cbc:EndpointID); it is required.", node);
      }
      return;
    case "cac:AllowanceCharge":
      if ((parent === root && isUblRoot(root)) || isRootLine(env, parent)) return allowanceChargeRules(env, node);
      if (parent?.qname === "cac:Price") return priceAllowanceRules(env, node);
      return;
    case "cac:PaymentMeans": {
      const code = normalizeSpace(stringValue(child(node, "cbc:PaymentMeansCode")));
      if ((code === "49" || code === "59") && !exists(node, "cac:PaymentMandate/cbc:ID")) {
        fatal("PEPPOL-EN16931-R061", `Payment means ${code} is a direct debit, so the mandate reference (BT-89, cac:PaymentMandate/cbc:ID) is required.`, child(node, "cac:PaymentMandate") ?? node);
      }
      return;
    }
    case "cbc:StartDate": case "cbc:EndDate":
      return linePeriodRule(env, node);
    case "cac:InvoiceLine": case "cac:CreditNoteLine":
      return lineRules(env, node);
    case "cbc:BaseQuantity":
      if (parent?.qname === "cac:Price" && node.attrs.unitCode !== undefined) baseQuantityRule(env, node);
      return;
  }
}

function documentRules(env: Env): void {
  const { root, fatal } = env;
  const doc = root.name === "CreditNote" ? "credit note" : "invoice";
  if (!child(root, "cbc:ProfileID")) fatal("PEPPOL-EN16931-R001", `The ${doc} has no business process (BT-23, cbc:ProfileID); give 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0'.`, root);
  const totals = children(root, "cac:TaxTotal");
  const withBreakdown = totals.filter((taxTotal) => child(taxTotal, "cac:TaxSubtotal")).length;
  if (withBreakdown !== 1) fatal("PEPPOL-EN16931-R053", `The ${doc} has ${withBreakdown} VAT totals with a VAT breakdown; exactly one is required.`, root);
  const taxCurrency = child(root, "cbc:TaxCurrencyCode");
  const without = totals.length - withBreakdown;
  if (without !== (taxCurrency ? 1 : 0)) {
    fatal("PEPPOL-EN16931-R054", taxCurrency
      ? `The ${doc} gives a VAT accounting currency, so it needs exactly one VAT total without breakdown (the VAT in that currency); it has ${without}.`
      : `The ${doc} has ${without} VAT total${without === 1 ? "" : "s"} without breakdown but no VAT accounting currency (cbc:TaxCurrencyCode); leave ${without === 1 ? "it" : "them"} out.`, root);
  }
  if (taxCurrency) {
    const amountsIn = (currency: string) => totals.flatMap((taxTotal) => children(taxTotal, "cbc:TaxAmount")).filter((taxAmount) => taxAmount.attrs.currencyID === currency).map((taxAmount) => dec(stringValue(taxAmount)));
    const inTax = amountsIn(norm(taxCurrency)), inDoc = amountsIn(norm(child(root, "cbc:DocumentCurrencyCode")));
    const some = (values: (Decimal | null)[], test: (amount: Decimal) => boolean) => values.some((value) => value !== null && test(value));
    const sameSign = (some(inTax, (amount) => amount.lte(0)) && some(inDoc, (amount) => amount.lte(0))) || (some(inTax, (amount) => amount.gte(0)) && some(inDoc, (amount) => amount.gte(0)));
    if (!sameSign) fatal("PEPPOL-EN16931-R055", `The total VAT in the invoice currency and the total VAT in the accounting currency (${norm(taxCurrency)}) must have the same sign.`, root);
  }
}

function allowanceChargeRules(env: Env, node: DocumentNode): void {
  const factor = child(node, "cbc:MultiplierFactorNumeric"), base = child(node, "cbc:BaseAmount");
  const kind = normalizeSpace(child(node, "cbc:ChargeIndicator")?.text ?? "") === "true" ? "charge" : "allowance";
  if (factor && !base) {
    env.fatal("PEPPOL-EN16931-R041", `The ${kind} gives a percentage (${q(norm(factor))}) but no base amount (cbc:BaseAmount); give the amount the percentage applies to.`, node);
    return;
  }
  if (!factor && base) {
    env.fatal("PEPPOL-EN16931-R042", `The ${kind} gives a base amount (${q(norm(base))}) but no percentage (cbc:MultiplierFactorNumeric); give the percentage or leave the base amount out.`, node);
    return;
  }
  if (factor && base) {
    const amountNode = child(node, "cbc:Amount");
    const amount = amountNode ? dec(stringValue(amountNode)) : new Big(0);
    const baseAmount = dec(stringValue(base)), factorAmount = dec(stringValue(factor));
    if (!(amount && baseAmount && factorAmount && withinSlack(amount, baseAmount.times(factorAmount).div(100), env.slack))) {
      env.fatal("PEPPOL-EN16931-R040", `The ${kind} amount ${q(norm(amountNode))} must be the base amount ${q(norm(base))} times the percentage ${q(norm(factor))} / 100${baseAmount && factorAmount ? ` = ${baseAmount.times(factorAmount).div(100).toFixed()}` : ""}.`, node);
    }
  }
  const indicators = children(node, "cbc:ChargeIndicator");
  const indicator = indicators.length === 1 ? normalizeSpace(indicators[0]!.text) : null;
  if (indicator !== "true" && indicator !== "false") {
    env.fatal("PEPPOL-EN16931-R043", `The allowance or charge indicator (cbc:ChargeIndicator) is ${q(norm(indicators[0]))}; it must be 'true' (a charge) or 'false' (an allowance).`, indicators[0] ?? node);
  }
}

function priceAllowanceRules(env: Env, node: DocumentNode): void {
  if (normalizeSpace(stringValue(child(node, "cbc:ChargeIndicator"))) !== "false") {
    env.fatal("PEPPOL-EN16931-R044", `A charge on the item price is not allowed (charge indicator ${q(norm(child(node, "cbc:ChargeIndicator")))}); only a price discount with indicator 'false'.`, node);
  }
  const base = child(node, "cbc:BaseAmount");
  if (base) {
    const price = dec(stringValue(child(node.parent, "cbc:PriceAmount"))), gross = dec(stringValue(base)), discount = dec(stringValue(child(node, "cbc:Amount")));
    if (!(price && gross && discount && price.eq(gross.minus(discount)))) {
      env.fatal("PEPPOL-EN16931-R046", `The net price ${q(norm(child(node.parent, "cbc:PriceAmount")))} must equal the gross price ${q(norm(base))} minus the price discount ${q(norm(child(node, "cbc:Amount")))}.`, node);
    }
  }
}

/** R110 / R111: a line's period lies within the invoice period (when the invoice gives that date). */
function linePeriodRule(env: Env, node: DocumentNode): void {
  const { root } = env;
  const period = node.parent, line = period?.parent ?? null;
  if (period?.qname !== "cac:InvoicePeriod" || !isRootLine(env, line)) return;
  const invoiceDates = select(root, `cac:InvoicePeriod/${node.qname}`);
  if (invoiceDates.length === 0) return;
  const own = xsDate(node.text), invoice = invoiceDates.length === 1 ? xsDate(stringValue(invoiceDates[0])) : null;
  if (own === null || invoice === null) return; // not a date: a dynamic error in the official rules, no verdict
  const start = node.qname === "cbc:StartDate";
  if (start ? own < invoice : own > invoice) {
    env.fatal(start ? "PEPPOL-EN16931-R110" : "PEPPOL-EN16931-R111",
      `The line's period ${start ? "starts" : "ends"} on ${q(norm(node))}, ${start ? "before the invoicing period starts" : "after the invoicing period ends"} (${q(norm(invoiceDates[0]))}); a line's period must lie within the invoice's.`, node);
  }
}

function lineRules(env: Env, line: DocumentNode): void {
  const decOr = (node: DocumentNode | null, fallback: string): Decimal | null => (node ? dec(stringValue(node)) : new Big(fallback));
  const lineAmount = decOr(child(line, "cbc:LineExtensionAmount"), "0");
  const quantity = decOr(child(line, env.isInvoice ? "cbc:InvoicedQuantity" : "cbc:CreditedQuantity"), "1");
  const price = decOr(first(line, "cac:Price/cbc:PriceAmount"), "0");
  const baseNode = first(line, "cac:Price/cbc:BaseQuantity");
  const baseValue = baseNode ? dec(stringValue(baseNode)) : null;
  const baseQuantity = baseNode && baseValue && !baseValue.eq(0) ? baseValue : baseNode && !baseValue ? null : new Big(1);
  const total = (indicator: string): Decimal | null => {
    const acs = children(line, "cac:AllowanceCharge").filter((allowanceCharge) => normalizeSpace(stringValue(child(allowanceCharge, "cbc:ChargeIndicator"))) === indicator);
    const amounts = acs.flatMap((allowanceCharge) => children(allowanceCharge, "cbc:Amount")).map((amount) => dec(stringValue(amount)));
    return amounts.every((amount) => amount !== null) ? round2(sum(amounts as Decimal[])) : null;
  };
  const allowances = total("false"), charges = total("true");
  if (lineAmount && quantity && price && baseQuantity && allowances && charges) {
    const expected = quantity.times(price.div(baseQuantity)).plus(charges).minus(allowances);
    if (!withinSlack(lineAmount, expected, env.slack)) {
      env.ctx.report("PEPPOL-EN16931-R120", "warning", `The line net amount ${q(norm(child(line, "cbc:LineExtensionAmount")))} should be quantity × (price / base quantity) + charges − allowances = ${expected.round(2).toFixed(2)}.`, line);
    }
  }
  if (baseNode && !(baseValue && baseValue.gt(0))) {
    env.fatal("PEPPOL-EN16931-R121", `The price base quantity (BT-149) ${q(norm(baseNode))} must be greater than zero.`, baseNode);
  }
  const refs = children(line, "cac:DocumentReference");
  if (refs.length > 0 && !refs.some((documentReference) => children(documentReference, "cbc:DocumentTypeCode").some((documentTypeCode) => stringValue(documentTypeCode) === "130"))) {
    env.fatal("PEPPOL-EN16931-R101", "A line's document reference (cac:DocumentReference) must be an invoiced object identifier, with document type code '130'.", refs[0]!);
  }
}

function first(node: DocumentNode | null, path: string): DocumentNode | null {
  return select(node, path)[0] ?? null;
}

/** R130: the price base quantity's unit is the invoiced quantity's. */
function baseQuantityRule(env: Env, node: DocumentNode): void {
  const line = node.parent?.parent ?? null;
  const has = child(line, "cbc:InvoicedQuantity") || child(line, "cbc:CreditedQuantity");
  if (!has) return;
  const quantities = children(line, env.isInvoice ? "cbc:InvoicedQuantity" : "cbc:CreditedQuantity");
  if (!quantities.some((qn) => qn.attrs.unitCode !== undefined && qn.attrs.unitCode === node.attrs.unitCode)) {
    env.fatal("PEPPOL-EN16931-R130", `The price base quantity's unit ${q(node.attrs.unitCode)} must be the unit of the invoiced quantity ${q(quantities[0]?.attrs.unitCode)}.`, node);
  }
}

// Rule family: BR-01..BR-65 and BR-B-*, BR-CO-*, BR-DEC-* of the CEN EN 16931 UBL rules (validation
// artefacts 1.3.16, ubl/schematron/preprocessed/EN16931-UBL-validation-preprocessed.sch, pattern UBL-model).
// Grouped by Schematron context; each assertion is reproduced as the XPath reads (normalize-space, exists,
// xs:decimal arithmetic with round(x * 100) div 100), and reported at the context node. Within the pattern an
// element is checked by the first rule whose context matches it, as Schematron does (a line's InvoicePeriod
// gets BR-30/BR-CO-20, not BR-29/BR-CO-19).
import { HUNDRED, ONE, round2, sum, ZERO, type Decimal } from "../decimal.js";
import { child, children, deepestOf, exists, first, norm, select, stringValue, textAt, type RuleContext, type RuleFamily, type DocumentNode } from "../../document/model.js";
import { VAT_PREFIXES } from "../codelists/cen.js";
import {
  all, allLines, chargeIndicator, codePointPrefix, codepoints, decAt, decOf, eq, fractionDigits, hasParents, isLine, isUblRoot, isVat,
  money, quote, round0, show,
} from "./cen-common.js";

type Report = (rule: string, message: string, node: DocumentNode | null) => void;

export const cenBusinessRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  const report: Report = ctx.fatal;
  if (isUblRoot(root)) documentRules(ctx, report);
  for (const additionalDocumentReference of all(root, "cac:AdditionalDocumentReference")) {
    if (norm(child(additionalDocumentReference, "cbc:ID")) === "") report("BR-52", "An additional supporting document (BG-24) has no document reference (BT-122).", additionalDocumentReference);
  }
  endpointAndAddressRules(root, report, ctx);
  allowanceChargeRules(root, report);
  for (const legalMonetaryTotal of all(root, "cac:LegalMonetaryTotal")) totalsRules(legalMonetaryTotal, report);
  for (const line of allLines(root)) lineRules(line, report);
  periodRules(root, report);
  itemRules(root, report);
  paymentRules(root, report);
  for (const billingReference of all(root, "cac:BillingReference")) {
    if (!exists(billingReference, "cac:InvoiceDocumentReference/cbc:ID")) report("BR-55", "A preceding invoice reference (BG-3) has no preceding invoice number (BT-25).", billingReference);
  }
  partyRules(root, report);
  taxTotalRules(root, report);
};

// ---------------------------------------------------------------------------------------------------------
// Context /ubl:Invoice | /cn:CreditNote
function documentRules(ctx: RuleContext, report: Report): void {
  const rootNode = ctx.root;
  reportMissing(report, rootNode, "BR-01", textAt(rootNode, "cbc:CustomizationID") !== "", "The invoice has no specification identifier (BT-24, cbc:CustomizationID).");
  reportMissing(report, rootNode, "BR-02", textAt(rootNode, "cbc:ID") !== "", "The invoice has no invoice number (BT-1, cbc:ID).");
  reportMissing(report, rootNode, "BR-03", textAt(rootNode, "cbc:IssueDate") !== "", "The invoice has no issue date (BT-2, cbc:IssueDate).");
  reportMissing(report, rootNode, "BR-04", textAt(rootNode, "cbc:InvoiceTypeCode") !== "" || textAt(rootNode, "cbc:CreditNoteTypeCode") !== "",
    "The invoice has no invoice type code (BT-3, cbc:InvoiceTypeCode or cbc:CreditNoteTypeCode).");
  reportMissing(report, rootNode, "BR-05", textAt(rootNode, "cbc:DocumentCurrencyCode") !== "", "The invoice has no currency code (BT-5, cbc:DocumentCurrencyCode).");
  const sellerName = "cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName";
  const buyerName = "cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName";
  reportMissing(report, rootNode, "BR-06", textAt(rootNode, sellerName) !== "", "The seller's name (BT-27, PartyLegalEntity/RegistrationName) is missing.", sellerName);
  reportMissing(report, rootNode, "BR-07", textAt(rootNode, buyerName) !== "", "The buyer's name (BT-44, PartyLegalEntity/RegistrationName) is missing.", buyerName);
  reportMissing(report, rootNode, "BR-08", exists(rootNode, "cac:AccountingSupplierParty/cac:Party/cac:PostalAddress"), "The seller's postal address (BG-5) is missing.", "cac:AccountingSupplierParty/cac:Party/cac:PostalAddress");
  reportMissing(report, rootNode, "BR-10", exists(rootNode, "cac:AccountingCustomerParty/cac:Party/cac:PostalAddress"), "The buyer's postal address (BG-8) is missing.", "cac:AccountingCustomerParty/cac:Party/cac:PostalAddress");
  reportMissing(report, rootNode, "BR-16", exists(rootNode, "cac:InvoiceLine") || exists(rootNode, "cac:CreditNoteLine"), "The invoice has no invoice lines (BG-25); it needs at least one.");

  // BR-53: every $taxcurrency in cbc:TaxCurrencyCode satisfies exists(//cac:TaxTotal/cbc:TaxAmount[@currencyID=$taxcurrency])
  // (the currencies read once: a document repeating the code and the totals costs n + n, not n × n)
  const taxAmountCurrencies = new Set(all(rootNode, "cac:TaxTotal").flatMap((taxTotal) => children(taxTotal, "cbc:TaxAmount")).map((taxAmount) => taxAmount.attrs.currencyID));
  for (const tc of children(rootNode, "cbc:TaxCurrencyCode")) {
    const cur = stringValue(tc);
    if (!taxAmountCurrencies.has(cur)) {
      report("BR-53", `The VAT accounting currency (BT-6) is ${quote(tc)}, but no VAT total amount is given in that currency (BT-111).`, rootNode);
    }
  }

  // BR-CO-03: a VAT point date (BT-7) and a VAT point date code (BT-8) exclude each other.
  if (exists(rootNode, "cbc:TaxPointDate") && exists(rootNode, "cac:InvoicePeriod/cbc:DescriptionCode")) {
    report("BR-CO-03", `The invoice has both a VAT point date (BT-7, ${quote(child(rootNode, "cbc:TaxPointDate"))}) and a VAT point date code (BT-8, ${quote(first(rootNode, "cac:InvoicePeriod/cbc:DescriptionCode"))}); only one is allowed.`, rootNode);
  }

  // BR-CO-15: every $Currency in cbc:DocumentCurrencyCode satisfies exactly one VAT total in that currency and
  // TaxInclusiveAmount = round((TaxExclusiveAmount + that VAT total) * 100) div 100.
  const rootTaxAmounts = new Map<string | undefined, DocumentNode[]>();
  for (const taxTotal of children(rootNode, "cac:TaxTotal")) {
    for (const taxAmount of children(taxTotal, "cbc:TaxAmount")) {
      const list = rootTaxAmounts.get(taxAmount.attrs.currencyID);
      if (list) list.push(taxAmount);
      else rootTaxAmounts.set(taxAmount.attrs.currencyID, [taxAmount]);
    }
  }
  for (const cc of children(rootNode, "cbc:DocumentCurrencyCode")) {
    const cur = stringValue(cc);
    const inCurrency = rootTaxAmounts.get(cur) ?? [];
    const lmt = child(rootNode, "cac:LegalMonetaryTotal");
    const incl = decAt(lmt, "cbc:TaxInclusiveAmount"), excl = decAt(lmt, "cbc:TaxExclusiveAmount");
    const vat = inCurrency.length === 1 ? decOf(inCurrency[0]) : null;
    const ok = inCurrency.length === 1 && incl !== null && excl !== null && vat !== null && incl.eq(round2(excl.plus(vat)));
    if (!ok) {
      const msg = inCurrency.length !== 1
        ? `The invoice must give its total VAT amount (BT-110) exactly once in the invoice currency ${quote(cc)}; it gives it ${inCurrency.length} times.`
        : `The total with VAT (BT-112) is ${money(incl)}, but the total without VAT (BT-109) ${money(excl)} plus the VAT total (BT-110) ${money(vat)} is ${excl && vat ? money(round2(excl.plus(vat))) : "not computable"}.`;
      report("BR-CO-15", msg, rootNode);
    }
  }

  if (!exists(rootNode, "cac:TaxTotal/cac:TaxSubtotal")) report("BR-CO-18", "The invoice has no VAT breakdown (BG-23, cac:TaxTotal/cac:TaxSubtotal); it needs at least one.", rootNode);

  // BR-DEC-13 and BR-DEC-15 test //cac:TaxTotal/cbc:TaxAmount[@currencyID = cbc:DocumentCurrencyCode]: inside
  // the predicate cbc:DocumentCurrencyCode is a child of the TaxAmount, which never exists, so as published both
  // assertions always hold. Reproduced as such: they never fire.

  // BR-B-01: split payment (B) only in Italian invoices: no country code other than IT anywhere.
  const usesB = all(rootNode, "cac:TaxCategory").some((taxCategory) => idIs(taxCategory, "B")) || all(rootNode, "cac:ClassifiedTaxCategory").some((classifiedTaxCategory) => idIs(classifiedTaxCategory, "B"));
  if (usesB) {
    const notIt = all(rootNode, "cbc:IdentificationCode").find((identificationCode) => stringValue(identificationCode) !== "IT");
    if (notIt) report("BR-B-01", `Split payment (VAT category B) is only for Italian domestic invoices, but the invoice has the country code '${stringValue(notIt)}'.`, rootNode);
  }
  // BR-B-02: split payment (B) and standard rate (S) exclude each other.
  if (docUses(rootNode, "B") && docUses(rootNode, "S")) {
    report("BR-B-02", "An invoice with split payment (VAT category B) cannot also have standard rated (S) lines, allowances, charges or VAT breakdowns.", rootNode);
  }
}

/** A missing element is reported at the deepest element of its path that exists: where it belongs. */
function reportMissing(report: Report, rootNode: DocumentNode, rule: string, ok: boolean, what: string, path?: string): void {
  if (!ok) report(rule, what, path ? deepestOf(rootNode, path) : rootNode);
}

/** The document uses VAT category `code` in its breakdown, an allowance or charge, or a line. */
function docUses(rootNode: DocumentNode, code: string): boolean {
  return (
    select(rootNode, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory").some((taxCategory) => idIs(taxCategory, code)) ||
    select(rootNode, "cac:AllowanceCharge/cac:TaxCategory").some((taxCategory) => idIs(taxCategory, code)) ||
    all(rootNode, "cac:ClassifiedTaxCategory").some((classifiedTaxCategory) => idIs(classifiedTaxCategory, code))
  );
}

/** `cac:X/cbc:ID = 'code'` (general comparison on the text as written, not normalised). */
const idIs = (category: DocumentNode, code: string) => children(category, "cbc:ID").some((i) => stringValue(i) === code);

// ---------------------------------------------------------------------------------------------------------
// Parties' electronic addresses and postal addresses.
function endpointAndAddressRules(root: DocumentNode, report: Report, _ctx: RuleContext): void {
  for (const endpointId of all(root, "cbc:EndpointID")) {
    if (endpointId.attrs.schemeID !== undefined) continue;
    if (hasParents(endpointId, "cac:Party", "cac:AccountingCustomerParty")) report("BR-63", `The buyer's electronic address (BT-49) ${quote(endpointId)} has no scheme identifier (schemeID).`, endpointId);
    else if (hasParents(endpointId, "cac:Party", "cac:AccountingSupplierParty")) report("BR-62", `The seller's electronic address (BT-34) ${quote(endpointId)} has no scheme identifier (schemeID).`, endpointId);
  }
  for (const postalAddress of all(root, "cac:PostalAddress")) {
    const country = norm(first(postalAddress, "cac:Country/cbc:IdentificationCode"));
    if (country !== "") continue;
    if (hasParents(postalAddress, "cac:Party", "cac:AccountingCustomerParty")) report("BR-11", "The buyer's postal address (BG-8) has no country code (BT-55).", postalAddress);
    else if (hasParents(postalAddress, "cac:Party", "cac:AccountingSupplierParty")) report("BR-09", "The seller's postal address (BG-5) has no country code (BT-40).", postalAddress);
    else if (hasParents(postalAddress, "cac:TaxRepresentativeParty")) report("BR-20", "The seller's tax representative's postal address (BG-12) has no country code (BT-69).", postalAddress);
  }
  for (const address of all(root, "cac:Address")) {
    if (hasParents(address, "cac:DeliveryLocation", "cac:Delivery") && !exists(address, "cac:Country/cbc:IdentificationCode")) {
      report("BR-57", "The deliver-to address (BG-15) has no country code (BT-80).", address);
    }
  }
  for (const primaryAccountNumberId of all(root, "cbc:PrimaryAccountNumberID")) {
    if (hasParents(primaryAccountNumberId, "cac:CardAccount", "cac:PaymentMeans") && codepoints(norm(primaryAccountNumberId)) > 10) {
      ctxWarning(_ctx, "BR-51", `The card number (BT-87) shows ${codepoints(norm(primaryAccountNumberId))} characters; for card security an invoice should show at most the first 6 and last 4 digits.`, primaryAccountNumberId);
    }
  }
}

function ctxWarning(ctx: RuleContext, rule: string, message: string, node: DocumentNode): void {
  ctx.report(rule, "warning", message, node);
}

// ---------------------------------------------------------------------------------------------------------
// Allowances and charges: document level (children of the root) and line level.
function allowanceChargeRules(root: DocumentNode, report: Report): void {
  for (const ac of all(root, "cac:AllowanceCharge")) {
    const parent = ac.parent!;
    const charge = chargeIndicator(ac);
    if (charge === null) continue;
    const hasReason = exists(ac, "cbc:AllowanceChargeReason") || exists(ac, "cbc:AllowanceChargeReasonCode");
    const amount = child(ac, "cbc:Amount"), base = child(ac, "cbc:BaseAmount");
    if (isUblRoot(parent)) {
      const what = charge ? "document level charge (BG-21)" : "document level allowance (BG-20)";
      const [rAmount, rCat, rReason, rCoReason, rDecAmount, rDecBase] = charge
        ? ["BR-36", "BR-37", "BR-38", "BR-CO-22", "BR-DEC-05", "BR-DEC-06"]
        : ["BR-31", "BR-32", "BR-33", "BR-CO-21", "BR-DEC-01", "BR-DEC-02"];
      if (!amount) report(rAmount!, `A ${what} has no amount (${charge ? "BT-99" : "BT-92"}).`, ac);
      if (!children(ac, "cac:TaxCategory").some((taxCategory) => isVat(taxCategory) && exists(taxCategory, "cbc:ID"))) {
        report(rCat!, `A ${what} has no VAT category code (${charge ? "BT-102" : "BT-95"}).`, ac);
      }
      // BR-CO-05 / BR-CO-06 assert true() in 1.3.16: nothing to check.
      reasonAndDecimalRules(ac, report, {
        what: `A ${what}`,
        rules: [rReason!, rCoReason!, rDecAmount!, rDecBase!],
        terms: charge ? ["BT-104", "BT-105"] : ["BT-97", "BT-98"],
        amount,
        base,
        hasReason,
      });
    } else if (isLine(parent)) {
      const what = charge ? "invoice line charge (BG-28)" : "invoice line allowance (BG-27)";
      if (!amount) report(charge ? "BR-43" : "BR-41", `An ${what} has no amount (${charge ? "BT-141" : "BT-136"}).`, ac);
      // BR-CO-07 / BR-CO-08 assert true() in 1.3.16: nothing to check.
      reasonAndDecimalRules(ac, report, {
        what: `An ${what}`,
        rules: charge ? ["BR-44", "BR-CO-24", "BR-DEC-27", "BR-DEC-28"] : ["BR-42", "BR-CO-23", "BR-DEC-24", "BR-DEC-25"],
        terms: charge ? ["BT-144", "BT-145"] : ["BT-139", "BT-140"],
        amount,
        base,
        hasReason,
      });
    }
  }
}

/**
 * The rules an allowance or charge has at either level after its amount: a reason or a reason code (the BR
 * and the BR-CO rule of the level both fire), at most 2 decimals in the amount and in the base amount.
 * `rules`: [reason, co-reason, decimals of the amount, decimals of the base]; `terms`: the BTs of the
 * reason and of the reason code.
 */
function reasonAndDecimalRules(
  ac: DocumentNode,
  report: Report,
  c: { what: string; rules: readonly string[]; terms: readonly string[]; amount: DocumentNode | null; base: DocumentNode | null; hasReason: boolean },
): void {
  const [rReason, rCoReason, rDecAmount, rDecBase] = c.rules as [string, string, string, string];
  if (!c.hasReason) {
    const message = `${c.what} has neither a reason (${c.terms[0]}) nor a reason code (${c.terms[1]}).`;
    report(rReason, message, ac);
    report(rCoReason, message, ac);
  }
  // The name without its article is made only for a message.
  if (fractionDigits(c.amount) > 2) report(rDecAmount, `The ${withoutArticle(c.what)} amount ${quote(c.amount)} has more than 2 decimals.`, ac);
  if (fractionDigits(c.base) > 2) report(rDecBase, `The ${withoutArticle(c.what)} base amount ${quote(c.base)} has more than 2 decimals.`, ac);
}

/** "An allowance" → "allowance". */
function withoutArticle(what: string): string {
  return what.replace(/^An? /, "");
}

/** The totals whose decimals BR-DEC-09..18 bound: rule, element, what it is. */
const TOTALS_DECIMALS: readonly (readonly [string, string, string])[] = [
  ["BR-DEC-09", "cbc:LineExtensionAmount", "sum of invoice line net amounts (BT-106)"],
  ["BR-DEC-10", "cbc:AllowanceTotalAmount", "sum of allowances on document level (BT-107)"],
  ["BR-DEC-11", "cbc:ChargeTotalAmount", "sum of charges on document level (BT-108)"],
  ["BR-DEC-12", "cbc:TaxExclusiveAmount", "total without VAT (BT-109)"],
  ["BR-DEC-14", "cbc:TaxInclusiveAmount", "total with VAT (BT-112)"],
  ["BR-DEC-16", "cbc:PrepaidAmount", "paid amount (BT-113)"],
  ["BR-DEC-17", "cbc:PayableRoundingAmount", "rounding amount (BT-114)"],
  ["BR-DEC-18", "cbc:PayableAmount", "amount due for payment (BT-115)"],
];

// ---------------------------------------------------------------------------------------------------------
// Context cac:LegalMonetaryTotal: the document totals (BG-22).
function totalsRules(node: DocumentNode, report: Report): void {
  if (child(node, "cbc:LineExtensionAmount") === null) report("BR-12", "The invoice has no sum of invoice line net amounts (BT-106, LineExtensionAmount).", node);
  if (child(node, "cbc:TaxExclusiveAmount") === null) report("BR-13", "The invoice has no total amount without VAT (BT-109, TaxExclusiveAmount).", node);
  if (child(node, "cbc:TaxInclusiveAmount") === null) report("BR-14", "The invoice has no total amount with VAT (BT-112, TaxInclusiveAmount).", node);
  if (child(node, "cbc:PayableAmount") === null) report("BR-15", "The invoice has no amount due for payment (BT-115, PayableAmount).", node);

  const lineTotal = decAt(node, "cbc:LineExtensionAmount");
  const root = node.parent;
  // BR-CO-10: BT-106 = round(Σ BT-131 * 100) div 100 over every line of the document.
  if (root) {
    const lines = allLines(root);
    const amount = round2(sum(lines.map((line) => decAt(line, "cbc:LineExtensionAmount")).filter(notNull)));
    if (!eq(lineTotal, amount)) {
      report("BR-CO-10", `The sum of the invoice lines' net amounts (BT-131) is ${money(amount)}, but the document's line total (BT-106) says ${money(lineTotal)}.`, node);
    }
    // BR-CO-11 / BR-CO-12: BT-107 / BT-108 = rounded sum of the document level allowances / charges.
    for (const charge of [false, true]) {
      const acs = children(root, "cac:AllowanceCharge").filter((allowanceCharge) => chargeIndicator(allowanceCharge) === charge);
      const totalQ = charge ? "cbc:ChargeTotalAmount" : "cbc:AllowanceTotalAmount";
      const total = decAt(node, totalQ);
      const s2 = round2(sum(acs.map((allowanceCharge) => decAt(allowanceCharge, "cbc:Amount")).filter(notNull)));
      const ok = eq(total, s2) || (child(node, totalQ) === null && acs.length === 0);
      if (!ok) {
        const [rule, bt, what] = charge ? ["BR-CO-12", "BT-108", "charges"] : ["BR-CO-11", "BT-107", "allowances"];
        report(rule, `The document level ${what} add up to ${money(s2)}, but the sum of ${what} on document level (${bt}) says ${child(node, totalQ) !== null ? money(total) : "nothing (it is missing)"}.`, node);
      }
    }
  }

  // BR-CO-13: BT-109 = BT-106 - BT-107 + BT-108 (rounded to 2 decimals), each term only when present.
  const excl = decAt(node, "cbc:TaxExclusiveAmount");
  const hasCharges = child(node, "cbc:ChargeTotalAmount") !== null, hasAllowances = child(node, "cbc:AllowanceTotalAmount") !== null;
  const charges = decAt(node, "cbc:ChargeTotalAmount"), allowances = decAt(node, "cbc:AllowanceTotalAmount");
  let expected: Decimal | null = null;
  if (lineTotal !== null && (!hasCharges || charges !== null) && (!hasAllowances || allowances !== null)) {
    const raw = lineTotal.plus(hasCharges ? charges! : ZERO).minus(hasAllowances ? allowances! : ZERO);
    expected = hasCharges || hasAllowances ? round2(raw) : raw;
  }
  if (!eq(excl, expected)) {
    report("BR-CO-13", `The total without VAT (BT-109) is ${money(excl)}, but the line total (BT-106) ${money(lineTotal)} minus allowances (BT-107) ${hasAllowances ? money(allowances) : "0"} plus charges (BT-108) ${hasCharges ? money(charges) : "0"} is ${money(expected)}.`, node);
  }

  // BR-CO-16: BT-115 = BT-112 - BT-113 + BT-114.
  const payable = decAt(node, "cbc:PayableAmount"), incl = decAt(node, "cbc:TaxInclusiveAmount");
  const hasPrepaid = child(node, "cbc:PrepaidAmount") !== null, hasRounding = child(node, "cbc:PayableRoundingAmount") !== null;
  const prepaid = decAt(node, "cbc:PrepaidAmount"), rounding = decAt(node, "cbc:PayableRoundingAmount");
  const due = hasPrepaid ? (incl && prepaid ? round2(incl.minus(prepaid)) : null) : incl;
  const paid = hasRounding ? (payable && rounding ? round2(payable.minus(rounding)) : null) : payable;
  if (!eq(paid, due)) {
    const expectedDue = due && hasRounding && rounding ? due.plus(rounding) : due;
    const missing = [payable ? "" : "amount due (BT-115)", incl ? "" : "total with VAT (BT-112)",
      !hasPrepaid || prepaid ? "" : "paid amount (BT-113)", !hasRounding || rounding ? "" : "rounding amount (BT-114)"].filter(Boolean);
    report("BR-CO-16", missing.length
      ? `The amount due cannot be checked: the ${missing.join(" and the ")} ${missing.length > 1 ? "are" : "is"} missing or not a number.`
      : `The amount due (BT-115) is ${money(payable)}, but the total with VAT (BT-112) ${money(incl)} minus the paid amount (BT-113) ${hasPrepaid ? money(prepaid) : "0"} plus rounding (BT-114) ${hasRounding ? money(rounding) : "0"} is ${money(expectedDue)}.`, node);
  }

  for (const [rule, value, what] of TOTALS_DECIMALS) {
    if (fractionDigits(child(node, value)) > 2) report(rule, `The ${what} ${quote(child(node, value))} has more than 2 decimals.`, node);
  }
}

const notNull = <T>(value: T | null): value is T => value !== null;

// ---------------------------------------------------------------------------------------------------------
// Context cac:InvoiceLine | cac:CreditNoteLine.
function lineRules(line: DocumentNode, report: Report): void {
  const id = textAt(line, "cbc:ID");
  const which = id === "" ? "An invoice line" : `Invoice line ${id}`;
  if (id === "") report("BR-21", "An invoice line has no line identifier (BT-126).", line);
  const qty = child(line, "cbc:InvoicedQuantity") ?? child(line, "cbc:CreditedQuantity");
  if (!qty) report("BR-22", `${which} has no invoiced quantity (BT-129).`, line);
  const hasUnit = children(line, "cbc:InvoicedQuantity").some((invoicedQuantity) => invoicedQuantity.attrs.unitCode !== undefined) ||
    children(line, "cbc:CreditedQuantity").some((creditedQuantity) => creditedQuantity.attrs.unitCode !== undefined);
  if (!hasUnit) report("BR-23", `${which} has no unit of measure (BT-130, the quantity's unitCode).`, line);
  if (!exists(line, "cbc:LineExtensionAmount")) report("BR-24", `${which} has no net amount (BT-131).`, line);
  if (textAt(line, "cac:Item/cbc:Name") === "") report("BR-25", `${which} has no item name (BT-153).`, line);
  const prices = select(line, "cac:Price/cbc:PriceAmount");
  if (prices.length === 0) report("BR-26", `${which} has no item net price (BT-146).`, line);
  if (!prices.some((priceAmount) => nonNegative(priceAmount))) {
    report("BR-27", prices.length === 0
      ? `${which} has no item net price (BT-146); it must be given, and be 0 or more.`
      : `${which} has the item net price (BT-146) ${quote(prices[0])}; it cannot be negative.`, line);
  }
  const bases = select(line, "cac:Price/cac:AllowanceCharge/cbc:BaseAmount");
  if (bases.length > 0 && !bases.some((baseAmount) => nonNegative(baseAmount))) {
    report("BR-28", `${which} has the item gross price (BT-148) ${quote(bases[0])}; it cannot be negative.`, line);
  }
  if (!select(line, "cac:Item/cac:ClassifiedTaxCategory").some((classifiedTaxCategory) => isVat(classifiedTaxCategory) && exists(classifiedTaxCategory, "cbc:ID"))) {
    report("BR-CO-04", `${which} has no VAT category code (BT-151, Item/ClassifiedTaxCategory with the VAT scheme).`, line);
  }
  const lea = child(line, "cbc:LineExtensionAmount");
  if (fractionDigits(lea) > 2) report("BR-DEC-23", `${which} has the net amount (BT-131) ${quote(lea)}, with more than 2 decimals.`, line);
}

/** `(path) >= 0`: the value compared as a number (absent is false). */
function nonNegative(node: DocumentNode): boolean {
  const amount = decOf(node);
  return amount !== null && amount.gte(ZERO);
}

// ---------------------------------------------------------------------------------------------------------
// Contexts cac:InvoiceLine/cac:InvoicePeriod | cac:CreditNoteLine/cac:InvoicePeriod, then cac:InvoicePeriod.
function periodRules(root: DocumentNode, report: Report): void {
  for (const invoicePeriod of all(root, "cac:InvoicePeriod")) {
    const start = child(invoicePeriod, "cbc:StartDate"), end = child(invoicePeriod, "cbc:EndDate");
    const line = isLine(invoicePeriod.parent);
    if (start && end) {
      const startValue = dateKey(stringValue(start)), endValue = dateKey(stringValue(end));
      if (startValue !== null && endValue !== null && endValue < startValue) {
        report(line ? "BR-30" : "BR-29", `The ${line ? "invoice line period" : "invoicing period"} ends (${quote(end)}) before it starts (${quote(start)}).`, invoicePeriod);
      }
    }
    if (line) {
      if (!start && !end) report("BR-CO-20", "An invoice line period (BG-26) has neither a start date (BT-134) nor an end date (BT-135).", invoicePeriod);
    } else if (!start && !end && !exists(invoicePeriod, "cbc:DescriptionCode")) {
      report("BR-CO-19", "The invoicing period (BG-14) has neither a start date (BT-73), an end date (BT-74) nor a VAT point date code (BT-8).", invoicePeriod);
    }
  }
}

/** xs:date as a comparable number (timezone ignored), or null when not a date (the official rules stop there). */
function dateKey(text: string): number | null {
  const match = /^[ \t\r\n]*(-?\d{4,})-(\d\d)-(\d\d)(Z|[+-]\d\d:\d\d)?[ \t\r\n]*$/.exec(text);
  if (!match) return null;
  return Number(match[1]) * 10000 + Number(match[2]) * 100 + Number(match[3]);
}

// ---------------------------------------------------------------------------------------------------------
// Item attributes, classification and standard identifiers.
function itemRules(root: DocumentNode, report: Report): void {
  for (const additionalItemProperty of all(root, "cac:AdditionalItemProperty")) {
    if (!exists(additionalItemProperty, "cbc:Name") || !exists(additionalItemProperty, "cbc:Value")) {
      report("BR-54", `An item attribute (BG-32) needs both a name (BT-160) and a value (BT-161); it has ${exists(additionalItemProperty, "cbc:Name") ? "no value" : "no name"}.`, additionalItemProperty);
    }
  }
  for (const itemClassificationCode of all(root, "cbc:ItemClassificationCode")) {
    if (itemClassificationCode.attrs.listID === undefined && hasParents(itemClassificationCode, "cac:CommodityClassification", "cac:Item") && isLine(itemClassificationCode.parent!.parent!.parent)) {
      report("BR-65", `The item classification ${quote(itemClassificationCode)} (BT-158) has no scheme identifier (listID).`, itemClassificationCode);
    }
  }
  for (const standardItemIdentification of all(root, "cac:StandardItemIdentification")) {
    if (!hasParents(standardItemIdentification, "cac:Item") || !isLine(standardItemIdentification.parent!.parent)) continue;
    for (const id of children(standardItemIdentification, "cbc:ID")) {
      if (id.attrs.schemeID === undefined) report("BR-64", `The item standard identifier ${quote(id)} (BT-157) has no scheme identifier (schemeID).`, id);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Payment: payee, payment means, payee account.
function paymentRules(root: DocumentNode, report: Report): void {
  for (const payee of all(root, "cac:PayeeParty")) {
    const names = select(payee, "cac:PartyName/cbc:Name").map(stringValue);
    const parent = payee.parent;
    const sellerNames = select(parent, "cac:AccountingSupplierParty/cac:Party/cac:PartyName/cbc:Name").map(stringValue);
    const ids = select(payee, "cac:PartyIdentification/cbc:ID").map(stringValue);
    const sellerIds = select(parent, "cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID").map(stringValue);
    if (names.length === 0) report("BR-17", "The payee (BG-10) has no name (BT-59).", payee);
    else if (names.some((name) => sellerNames.includes(name)) || ids.some((i) => sellerIds.includes(i))) {
      report("BR-17", "The payee (BG-10) is the seller (same name or identifier); give a payee only when it differs from the seller.", payee);
    }
  }
  for (const pm of all(root, "cac:PaymentMeans")) {
    const codeEl = child(pm, "cbc:PaymentMeansCode");
    if (!codeEl) report("BR-49", "A payment instruction (BG-16) has no payment means type code (BT-81).", pm);
    const code = norm(codeEl);
    if ((code === "30" || code === "58") && !exists(pm, "cac:PayeeFinancialAccount/cbc:ID")) {
      report("BR-61", `Payment means ${code} is a credit transfer, so the payment account identifier (BT-84) is required.`, pm);
    }
    if (children(pm, "cbc:PaymentMeansCode").some((paymentMeansCode) => stringValue(paymentMeansCode) === "30" || stringValue(paymentMeansCode) === "58")) {
      for (const acc of children(pm, "cac:PayeeFinancialAccount")) {
        if (norm(child(acc, "cbc:ID")) === "") report("BR-50", "The payment account identifier (BT-84) is empty; a credit transfer needs it.", acc);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Seller, tax representative, VAT identifiers.
function partyRules(root: DocumentNode, report: Report): void {
  for (const accountingSupplierParty of all(root, "cac:AccountingSupplierParty")) {
    const ok = select(accountingSupplierParty, "cac:Party/cac:PartyTaxScheme").some((partyTaxScheme) => isPtsVat(partyTaxScheme) && exists(partyTaxScheme, "cbc:CompanyID")) ||
      select(accountingSupplierParty, "cac:Party/cac:PartyIdentification/cbc:ID").some((i) => i.attrs.schemeID !== "SEPA") ||
      exists(accountingSupplierParty, "cac:Party/cac:PartyLegalEntity/cbc:CompanyID");
    if (!ok) report("BR-CO-26", "The seller has no identifier (BT-29), legal registration identifier (BT-30) or VAT identifier (BT-31); at least one is required.", accountingSupplierParty);
  }
  for (const taxRepresentativeParty of all(root, "cac:TaxRepresentativeParty")) {
    if (textAt(taxRepresentativeParty, "cac:PartyName/cbc:Name") === "") report("BR-18", "The seller's tax representative (BG-11) has no name (BT-62).", taxRepresentativeParty);
    if (!exists(taxRepresentativeParty, "cac:PostalAddress")) report("BR-19", "The seller's tax representative (BG-11) has no postal address (BG-12).", taxRepresentativeParty);
    if (!children(taxRepresentativeParty, "cac:PartyTaxScheme").some((partyTaxScheme) => isPtsVat(partyTaxScheme) && exists(partyTaxScheme, "cbc:CompanyID"))) {
      report("BR-56", "The seller's tax representative (BG-11) has no VAT identifier (BT-63).", taxRepresentativeParty);
    }
  }
  for (const partyTaxScheme of all(root, "cac:PartyTaxScheme")) {
    if (!isPtsVat(partyTaxScheme)) continue;
    const prefix = codePointPrefix(stringValue(child(partyTaxScheme, "cbc:CompanyID")), 2);
    if (!VAT_PREFIX_TEXT.includes(prefix)) {
      report("BR-CO-09", `The VAT identifier ${quote(child(partyTaxScheme, "cbc:CompanyID"))} must start with a country code (ISO 3166-1 alpha-2, or EL for Greece); '${prefix}' is not one.`, partyTaxScheme);
    }
  }
}

/** `cac:PartyTaxScheme[cac:TaxScheme/normalize-space(upper-case(cbc:ID))='VAT']`. */
const isPtsVat = isVat;

// BR-CO-09 tests contains(' 1A AD ... ZW ', substring(cbc:CompanyID, 1, 2)): a substring of the joined list.
const VAT_PREFIX_TEXT = ` ${VAT_PREFIXES.join(" ")} `;

// ---------------------------------------------------------------------------------------------------------
// Contexts /ubl:Invoice/cac:TaxTotal | /cn:CreditNote/cac:TaxTotal and cac:TaxTotal/cac:TaxSubtotal.
function taxTotalRules(root: DocumentNode, report: Report): void {
  if (isUblRoot(root)) {
    for (const tt of children(root, "cac:TaxTotal")) {
      const subs = children(tt, "cac:TaxSubtotal");
      if (subs.length === 0) continue;
      const total = decAt(tt, "cbc:TaxAmount");
      const amount = round2(sum(subs.map((st) => decAt(st, "cbc:TaxAmount")).filter(notNull)));
      if (!eq(total, amount)) report("BR-CO-14", `The VAT total (BT-110) is ${money(total)}, but the VAT breakdown's category amounts (BT-117) add up to ${money(amount)}.`, tt);
    }
  }
  for (const st of all(root, "cac:TaxSubtotal")) {
    if (st.parent?.qname !== "cac:TaxTotal") continue;
    const vatCats = children(st, "cac:TaxCategory").filter(isVat);
    const code = norm(child(vatCats[0], "cbc:ID"));
    const label = code ? `The VAT breakdown for category ${code}` : "A VAT breakdown";
    if (!exists(st, "cbc:TaxableAmount")) report("BR-45", `${label} has no taxable amount (BT-116).`, st);
    if (!exists(st, "cbc:TaxAmount")) report("BR-46", `${label} has no VAT amount (BT-117).`, st);
    if (!vatCats.some((taxCategory) => exists(taxCategory, "cbc:ID"))) report("BR-47", "A VAT breakdown (BG-23) has no VAT category code (BT-118).", st);
    if (!vatCats.some((taxCategory) => exists(taxCategory, "cbc:Percent")) && !vatCats.some((taxCategory) => norm(child(taxCategory, "cbc:ID")) === "O")) {
      report("BR-48", `${label} has no VAT rate (BT-119); only category O (not subject to VAT) may leave it out.`, st);
    }
    // BR-CO-17: BT-117 = BT-116 * BT-119 / 100, with a tolerance of 1 (and 0 at a zero rate).
    const rateCat = vatCats.find((taxCategory) => exists(taxCategory, "cbc:Percent"));
    const rate = rateCat ? decAt(rateCat, "cbc:Percent") : null;
    const taxAmount = decAt(st, "cbc:TaxAmount"), taxable = decAt(st, "cbc:TaxableAmount");
    const amountIsZero = taxAmount !== null && round0(taxAmount).eq(ZERO);
    let ok: boolean;
    let expected: Decimal | null = null;
    if (!rateCat) ok = amountIsZero;
    else if (rate === null) ok = false;
    else if (round0(rate).eq(ZERO)) ok = amountIsZero;
    else {
      expected = taxable === null ? null : round2(taxable.abs().times(rate.div(HUNDRED)));
      ok = taxAmount !== null && expected !== null && taxAmount.abs().minus(ONE).lt(expected) && taxAmount.abs().plus(ONE).gt(expected);
    }
    if (!ok) {
      const text = taxAmount === null
        ? `${label} has no VAT amount (BT-117), so it cannot be checked against the taxable amount and rate.`
        : expected !== null
        ? `${label}: the VAT amount (BT-117) is ${money(taxAmount)}, but the taxable amount (BT-116) ${money(taxable)} at ${show(rate)}% gives ${money(expected)}.`
        : rateCat && rate !== null && !round0(rate).eq(ZERO) && taxable === null
        ? `${label} has no taxable amount (BT-116), so its VAT amount cannot be checked.`
        : `${label}: the VAT amount (BT-117) is ${money(taxAmount)}, but with a VAT rate of ${rateCat ? show(rate) : "none"} it must be 0.`;
      report("BR-CO-17", text, st);
    }
    const taxableEl = child(st, "cbc:TaxableAmount"), amountEl = child(st, "cbc:TaxAmount");
    if (fractionDigits(taxableEl) > 2) report("BR-DEC-19", `${label}: the taxable amount (BT-116) ${quote(taxableEl)} has more than 2 decimals.`, st);
    if (fractionDigits(amountEl) > 2) report("BR-DEC-20", `${label}: the VAT amount (BT-117) ${quote(amountEl)} has more than 2 decimals.`, st);
  }
}

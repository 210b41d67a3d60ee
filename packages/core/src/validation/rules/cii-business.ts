// Rule family: BR-01..BR-65, BR-B-*, BR-CO-* and BR-DEC-* of the CEN EN 16931 CII rules 1.3.16 (pattern
// EN16931-CII-Model of cii/schematron/preprocessed/EN16931-CII-validation-preprocessed.sch), on the CII tree (prefixes
// rsm:, ram:, udt:, qdt:; document/model.ts). The VAT category rules of the same pattern are cii-vat.ts.
// Grouped by Schematron context and reported at the context node; each assertion is reproduced as the XPath reads
// (normalize-space, exists, string comparisons as written, xs:decimal where the rule casts, xs:double where it computes
// on untyped elements). Within the pattern an element is checked by the first rule whose context matches it (a header
// breakdown of category L, M or O belongs to its category's rule, never to BR-45 ... BR-CO-17; see cii-common.ts).
import { ONE, round2, ZERO, type Decimal } from "../decimal.js";
import { child, children, exists, first, norm, normalizeSpace, select, stringValue, textAt, type DocumentNode, type RuleContext, type RuleFamily } from "../../document/model.js";
import { all, codePointPrefix, codepoints, decOf, fractionDigits, money, quote, round0, show } from "./cen-common.js";
import {
  AHTA, AHTS, CII_VAT_PREFIX_LIST, LINE, SCTT, SLTS, STAC, doubleSum, doubleSumRounded, doubleToDecimal, fromRoot, headerTaxCategoryRule, indicatorIs,
  indicatorText, isCiiRoot, singleDec, someIs, someNumber, sv, typeIsVat, under, xsDouble,
} from "./cii-common.js";

type Report = (rule: string, message: string, node: DocumentNode | null) => void;

export const ciiBusinessRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  const report: Report = ctx.fatal;
  for (const classification of all(root, "ram:DesignatedProductClassification")) {
    // BR-65: normalize-space(ram:ClassCode/@listID) != '' or not(ram:ClassCode)
    // (the attributes of every ClassCode: one without a listID adds none)
    const codes = children(classification, "ram:ClassCode");
    const listIds = codes.map((c) => c.attrs.listID).filter((l): l is string => l !== undefined);
    if (codes.length > 0 && normalizeSpace(listIds[0] ?? "") === "") {
      report("BR-65", `The item classification identifier (BT-158) ${quote(codes[0])} has no scheme identifier (listID).`, classification);
    }
  }
  for (const document of all(root, "ram:AdditionalReferencedDocument")) {
    if (textAt(document, "ram:IssuerAssignedID") === "") report("BR-52", "An additional supporting document (BG-24) has no supporting document reference (BT-122).", document);
  }
  for (const card of all(root, "ram:ApplicableTradeSettlementFinancialCard")) {
    const length = codepoints(textAt(card, "ram:ID"));
    if (length > 10) report("BR-51", `The payment card primary account number (BT-87) shows ${length} characters; for card security an invoice shows at most the first 6 and the last 4 digits.`, card);
  }
  paymentRules(root, report);
  if (isCiiRoot(root)) {
    for (const delivery of select(root, `${SCTT}/ram:ApplicableHeaderTradeDelivery`)) {
      // BR-57: a deliver-to address needs a country code.
      if (exists(delivery, "ram:ShipToTradeParty/ram:PostalTradeAddress") && textAt(delivery, "ram:ShipToTradeParty/ram:PostalTradeAddress/ram:CountryID") === "") {
        report("BR-57", "The deliver-to address (BG-15) has no country code (BT-80).", delivery);
      }
    }
  }
  allowanceChargeRules(root, report);
  for (const summation of all(root, "ram:SpecifiedTradeSettlementHeaderMonetarySummation")) totalsRules(root, summation, report);
  if (isCiiRoot(root)) documentRules(root, report);
  // BR-CO-18 is asserted on each line: //rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax (read once).
  const hasBreakdown = all(root, "ram:ApplicableTradeTax").some((t) => under(t, AHTS, SCTT));
  for (const line of all(root, LINE)) lineRules(line, hasBreakdown, report);
  periodRules(root, report);
  for (const characteristic of all(root, "ram:ApplicableProductCharacteristic")) {
    const hasName = exists(characteristic, "ram:Description"), hasValue = exists(characteristic, "ram:Value");
    if (!hasName || !hasValue) report("BR-54", `An item attribute (BG-32) needs a name (BT-160) and a value (BT-161); it has ${hasName ? "no value" : hasValue ? "no name" : "neither"}.`, characteristic);
  }
  partyRules(root, report);
  for (const total of all(root, "ram:TaxTotalAmount")) {
    if (total.parent?.qname === "ram:SpecifiedTradeSettlementHeaderMonetarySummation") taxTotalRule(root, total, report);
  }
  for (const id of all(root, "ram:ID")) {
    // BR-CO-09: contains(' 1A AD ... ', concat(' ', substring(., 1, 2), ' ')) for a VAT identifier.
    if (id.parent?.qname !== "ram:SpecifiedTaxRegistration" || id.attrs.schemeID !== "VA") continue;
    const prefix = codePointPrefix(stringValue(id), 2);
    if (!CII_VAT_PREFIX_LIST.includes(` ${prefix} `)) {
      report("BR-CO-09", `The VAT identifier ${quote(id)} must start with a country code (ISO 3166-1 alpha-2, or EL for Greece, XI for Northern Ireland); '${prefix}' is not one.`, id);
    }
  }
  for (const tax of all(root, "ram:ApplicableTradeTax")) {
    if (tax.parent?.qname === AHTS && headerTaxCategoryRule(tax) === null) breakdownRules(root, tax, report);
  }
};

// ---------------------------------------------------------------------------------------------------------
// Payment instructions: credit transfer accounts (BR-50, BR-61), payment means (BR-49), payee (BR-17).
function paymentRules(root: DocumentNode, report: Report): void {
  for (const account of all(root, "ram:PayeePartyCreditorFinancialAccount")) {
    // Context: //ram:SpecifiedTradeSettlementPaymentMeans[ram:TypeCode='30' or ram:TypeCode='58']/ram:PayeePartyCreditorFinancialAccount
    const means = account.parent;
    if (means?.qname !== "ram:SpecifiedTradeSettlementPaymentMeans") continue;
    const codes = children(means, "ram:TypeCode");
    if (!someIs(codes, "30") && !someIs(codes, "58")) continue;
    const code = codes.find((c) => stringValue(c) === "30" || stringValue(c) === "58")!;
    if (textAt(account, "ram:IBANID") === "" && textAt(account, "ram:ProprietaryID") === "") {
      report("BR-50", `Payment means ${quote(code)} is a credit transfer, but the payment account identifier (BT-84, IBANID or ProprietaryID) is empty or missing.`, account);
    }
    if (!exists(account, "ram:IBANID") && !exists(account, "ram:ProprietaryID")) {
      report("BR-61", `Payment means ${quote(code)} is a credit transfer, so the payment account identifier (BT-84, IBANID or ProprietaryID) is required.`, account);
    }
  }
  for (const means of all(root, "ram:SpecifiedTradeSettlementPaymentMeans")) {
    if (!exists(means, "ram:TypeCode")) report("BR-49", "A payment instruction (BG-16) has no payment means type code (BT-81).", means);
  }
  for (const payee of all(root, "ram:PayeeTradeParty")) {
    // BR-17: (ram:Name) and the payee's name, identifier and legal registration identifier all differ from the seller's.
    const seller = select(payee.parent?.parent, `${AHTA}/ram:SellerTradeParty`);
    const same = (payeePath: string, sellerPath: string): boolean => {
      const theirs = new Set(seller.flatMap((s) => select(s, sellerPath)).map(stringValue));
      return select(payee, payeePath).some((n) => theirs.has(stringValue(n)));
    };
    if (!exists(payee, "ram:Name")) report("BR-17", "The payee (BG-10) has no name (BT-59).", payee);
    else if (same("ram:Name", "ram:Name") || same("ram:ID", "ram:ID") || same("ram:SpecifiedLegalOrganization/ram:ID", "ram:SpecifiedLegalOrganization/ram:ID")) {
      report("BR-17", `The payee (BG-10) ${quote(child(payee, "ram:Name"))} has the seller's name, identifier or legal registration identifier; give a payee only when it differs from the seller.`, payee);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Allowances and charges: the contexts are their ram:ChargeIndicator, with udt:Indicator written 'false' or 'true'
// (a string comparison: ' true' or '1' is neither, and such an allowance or charge is not checked here).
function allowanceChargeRules(root: DocumentNode, report: Report): void {
  for (const indicator of all(root, "ram:ChargeIndicator")) {
    const ac = indicator.parent;
    if (ac?.qname !== STAC) continue;
    const level = ac.parent?.qname === AHTS ? "document" : ac.parent?.qname === SLTS ? "line" : null;
    if (level === null) continue;
    const charge = indicatorText(indicator, "false") ? false : indicatorText(indicator, "true") ? true : null;
    if (charge === null) continue;
    const amount = children(ac, "ram:ActualAmount")[0] ?? null, base = children(ac, "ram:BasisAmount")[0] ?? null;
    const hasReason = exists(ac, "ram:Reason") || exists(ac, "ram:ReasonCode");
    const what = level === "document" ? (charge ? "A document level charge (BG-21)" : "A document level allowance (BG-20)") : charge ? "An invoice line charge (BG-28)" : "An invoice line allowance (BG-27)";
    // [amount, VAT category (document level only), reason, BR-CO reason, decimals of the amount, decimals of the base]
    const [rAmount, rCategory, rReason, rCoReason, rDecAmount, rDecBase] = level === "document"
      ? charge ? ["BR-36", "BR-37", "BR-38", "BR-CO-22", "BR-DEC-05", "BR-DEC-06"] : ["BR-31", "BR-32", "BR-33", "BR-CO-21", "BR-DEC-01", "BR-DEC-02"]
      : charge ? ["BR-43", null, "BR-44", "BR-CO-24", "BR-DEC-27", "BR-DEC-28"] : ["BR-41", null, "BR-42", "BR-CO-23", "BR-DEC-24", "BR-DEC-25"];
    const [btAmount, btBase, btCategory, btReason, btReasonCode] = level === "document"
      ? charge ? ["BT-99", "BT-100", "BT-102", "BT-104", "BT-105"] : ["BT-92", "BT-93", "BT-95", "BT-97", "BT-98"]
      : charge ? ["BT-141", "BT-142", "", "BT-144", "BT-145"] : ["BT-136", "BT-137", "", "BT-139", "BT-140"];
    if (!amount) report(rAmount!, `${what} has no amount (${btAmount}).`, indicator);
    if (rCategory && !children(ac, "ram:CategoryTradeTax").some((t) => typeIsVat(t) && exists(t, "ram:CategoryCode"))) {
      report(rCategory, `${what} has no VAT category code (${btCategory}, CategoryTradeTax with TypeCode VAT).`, indicator);
    }
    // BR-CO-05 ... BR-CO-08 assert true() in 1.3.16: nothing to check.
    if (!hasReason) {
      const text = `${what} has neither a reason (${btReason}) nor a reason code (${btReasonCode}); it needs at least one.`;
      report(rReason!, text, indicator);
      report(rCoReason!, text, indicator);
    }
    if (fractionDigits(amount) > 2) report(rDecAmount!, `${what} has the amount (${btAmount}) ${quote(amount)}, with more than 2 decimals.`, indicator);
    if (fractionDigits(base) > 2) report(rDecBase!, `${what} has the base amount (${btBase}) ${quote(base)}, with more than 2 decimals.`, indicator);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Context //ram:SpecifiedTradeSettlementHeaderMonetarySummation: the document totals (BG-22).
const TOTALS_DECIMALS: ReadonlyArray<readonly [string, string, string]> = [
  ["BR-DEC-09", "ram:LineTotalAmount", "sum of the invoice line net amounts (BT-106)"],
  ["BR-DEC-10", "ram:AllowanceTotalAmount", "sum of the document level allowances (BT-107)"],
  ["BR-DEC-11", "ram:ChargeTotalAmount", "sum of the document level charges (BT-108)"],
  ["BR-DEC-12", "ram:TaxBasisTotalAmount", "total without VAT (BT-109)"],
  ["BR-DEC-14", "ram:GrandTotalAmount", "total with VAT (BT-112)"],
  ["BR-DEC-16", "ram:TotalPrepaidAmount", "paid amount (BT-113)"],
  ["BR-DEC-17", "ram:RoundingAmount", "rounding amount (BT-114)"],
  ["BR-DEC-18", "ram:DuePayableAmount", "amount due for payment (BT-115)"],
];

function totalsRules(root: DocumentNode, node: DocumentNode, report: Report): void {
  const missing: Array<[string, string, string]> = [
    ["BR-12", "ram:LineTotalAmount", "the sum of the invoice line net amounts (BT-106)"],
    ["BR-13", "ram:TaxBasisTotalAmount", "the total without VAT (BT-109)"],
    ["BR-14", "ram:GrandTotalAmount", "the total with VAT (BT-112)"],
    ["BR-15", "ram:DuePayableAmount", "the amount due for payment (BT-115)"],
  ];
  for (const [rule, path, what] of missing) if (!exists(node, path)) report(rule, `The document totals (BG-22) have no ${what.replace(/^the /, "")}; it is required.`, node);

  const settlement = fromRoot(root, `${SCTT}/${AHTS}`);
  const taxCurrencies = settlement.flatMap((s) => children(s, "ram:TaxCurrencyCode"));
  const invoiceCurrencies = settlement.flatMap((s) => children(s, "ram:InvoiceCurrencyCode"));
  const totals = children(node, "ram:TaxTotalAmount");
  // BR-53: with a VAT accounting currency (BT-6), a VAT total in it (BT-111), and BT-6 other than the invoice currency.
  if (taxCurrencies.length > 0) {
    const inTaxCurrency = totals.some((t) => t.attrs.currencyID !== undefined && someIs(taxCurrencies, t.attrs.currencyID));
    const sameAsInvoice = taxCurrencies.some((t) => someIs(invoiceCurrencies, stringValue(t)));
    if (!inTaxCurrency || sameAsInvoice) {
      report("BR-53", sameAsInvoice
        ? `The VAT accounting currency (BT-6) ${quote(taxCurrencies[0])} is the invoice currency (BT-5); give it only when it differs, with the VAT total in that currency (BT-111).`
        : `The VAT accounting currency (BT-6) is ${quote(taxCurrencies[0])}, but no VAT total amount is given in that currency (BT-111, TaxTotalAmount with currencyID ${quote(taxCurrencies[0])}).`, node);
    }
  }

  // BR-CO-10: xs:decimal(ram:LineTotalAmount) = round(xs:decimal(sum(<the lines' net amounts>)) * 100) div 100; sum() adds
  // the untyped amounts as xs:double.
  const lineAmounts = select(node.parent?.parent, `${LINE}/${SLTS}/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount`);
  const lineTotal = singleDec(children(node, "ram:LineTotalAmount"));
  const linesDouble = doubleSum(lineAmounts);
  const linesSum = linesDouble === null ? null : doubleToDecimal(linesDouble);
  const expectedLines = linesSum === null ? null : round2(linesSum);
  if (lineTotal === null || expectedLines === null || !lineTotal.eq(expectedLines)) {
    report("BR-CO-10", `The sum of the invoice line net amounts (BT-106) is ${money(lineTotal)}, but the ${lineAmounts.length} lines' net amounts (BT-131) add up to ${money(expectedLines)}.`, node);
  }

  // BR-CO-11, BR-CO-12: the sums of document level allowances and charges, in xs:double arithmetic.
  for (const charge of [false, true]) {
    const [rule, path, term, each] = charge
      ? ["BR-CO-12", "ram:ChargeTotalAmount", "sum of charges on document level (BT-108)", "document level charges (BT-99)"]
      : ["BR-CO-11", "ram:AllowanceTotalAmount", "sum of allowances on document level (BT-107)", "document level allowances (BT-92)"];
    const acs = fromRoot(root, `${SCTT}/${AHTS}/${STAC}`).filter((ac) => indicatorIs(ac, charge));
    const stated = children(node, path);
    if (acs.length === 0 && stated.length === 0) continue;
    const expected = doubleSumRounded(acs.map((ac) => children(ac, "ram:ActualAmount")[0]).filter((n): n is DocumentNode => n !== undefined));
    if (expected === null || !someNumber(stated, (v) => v === expected)) {
      report(rule, stated.length === 0
        ? `The invoice has ${acs.length} ${each}, but no ${term}.`
        : `The ${term} is ${quote(stated[0])}, but the ${acs.length} ${each} add up to ${expected === null ? "a value that is not a number" : money(doubleToDecimal(expected))}.`, node);
    }
  }

  // BR-CO-13: BT-109 = BT-106 - BT-107 + BT-108 (each [1], as xs:decimal; a missing allowance or charge total counts
  // only in the alternative that leaves it out).
  const amountOf = (path: string) => decOf(children(node, path)[0]);
  const basis = amountOf("ram:TaxBasisTotalAmount"), lines = amountOf("ram:LineTotalAmount");
  const allowances = amountOf("ram:AllowanceTotalAmount"), charges = amountOf("ram:ChargeTotalAmount");
  const hasAllowances = exists(node, "ram:AllowanceTotalAmount"), hasCharges = exists(node, "ram:ChargeTotalAmount");
  const r = (x: Decimal | null) => (x === null ? null : round2(x));
  const equalsBasis = (x: Decimal | null) => basis !== null && x !== null && basis.eq(x);
  const co13 =
    equalsBasis(lines && allowances && charges ? r(lines.minus(allowances).plus(charges)) : null) ||
    (equalsBasis(lines && allowances ? r(lines.minus(allowances)) : null) && !hasCharges) ||
    (equalsBasis(lines && charges ? r(lines.plus(charges)) : null) && !hasAllowances) ||
    (equalsBasis(r(lines)) && !hasCharges && !hasAllowances);
  if (!co13) {
    const expected = lines === null ? null : lines.minus(allowances ?? ZERO).plus(charges ?? ZERO);
    report("BR-CO-13", `The total without VAT (BT-109) is ${money(basis)}, but the line total (BT-106) ${money(lines)} minus allowances (BT-107) ${hasAllowances ? money(allowances) : "0"} plus charges (BT-108) ${hasCharges ? money(charges) : "0"} is ${money(expected === null ? null : round2(expected))}.`, node);
  }

  // BR-CO-16: BT-115 = BT-112 - BT-113 + BT-114 (xs:decimal, no rounding).
  const due = amountOf("ram:DuePayableAmount"), grand = amountOf("ram:GrandTotalAmount");
  const prepaid = amountOf("ram:TotalPrepaidAmount"), rounding = amountOf("ram:RoundingAmount");
  const hasPrepaid = exists(node, "ram:TotalPrepaidAmount"), hasRounding = exists(node, "ram:RoundingAmount");
  const equalsDue = (x: Decimal | null) => due !== null && x !== null && due.eq(x);
  const co16 =
    equalsDue(grand && prepaid && rounding ? grand.minus(prepaid).plus(rounding) : null) ||
    (equalsDue(grand && rounding ? grand.plus(rounding) : null) && !hasPrepaid) ||
    (equalsDue(grand && prepaid ? grand.minus(prepaid) : null) && !hasRounding) ||
    (equalsDue(grand) && !hasPrepaid && !hasRounding);
  if (!co16) {
    const expected = grand === null ? null : grand.minus(prepaid ?? ZERO).plus(rounding ?? ZERO);
    report("BR-CO-16", `The amount due for payment (BT-115) is ${money(due)}, but the total with VAT (BT-112) ${money(grand)} minus the paid amount (BT-113) ${hasPrepaid ? money(prepaid) : "0"} plus rounding (BT-114) ${hasRounding ? money(rounding) : "0"} is ${money(expected)}.`, node);
  }

  for (const [rule, path, what] of TOTALS_DECIMALS) {
    const value = children(node, path)[0];
    if (fractionDigits(value) > 2) report(rule, `The ${what} ${quote(value)} has more than 2 decimals.`, node);
  }
  // BR-DEC-13: a VAT total (BT-110) in the invoice currency has at most 2 decimals (. = round(. * 100) div 100, as xs:double).
  const twoDecimals = (t: DocumentNode) => {
    const v = xsDouble(stringValue(t));
    return v !== null && v === Math.round(v * 100) / 100;
  };
  if (totals.length > 0) {
    const inInvoiceCurrency = (t: DocumentNode) => t.attrs.currencyID !== undefined && someIs(invoiceCurrencies, t.attrs.currencyID);
    if (!totals.some((t) => (inInvoiceCurrency(t) && twoDecimals(t)) || !inInvoiceCurrency(t))) {
      report("BR-DEC-13", `The invoice total VAT amount (BT-110) ${quote(totals.find(inInvoiceCurrency))} has more than 2 decimals.`, node);
    }
    const inTaxCurrency = (t: DocumentNode) => t.attrs.currencyID !== undefined && someIs(taxCurrencies, t.attrs.currencyID);
    if (!totals.some((t) => (inTaxCurrency(t) && twoDecimals(t)) || taxCurrencies.length === 0)) {
      const shown = totals.find(inTaxCurrency);
      report("BR-DEC-15", shown
        ? `The invoice total VAT amount in accounting currency (BT-111) ${quote(shown)} has more than 2 decimals.`
        : `The VAT accounting currency (BT-6) is ${quote(taxCurrencies[0])}, but no VAT total amount (BT-111) with at most 2 decimals is given in it.`, node);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Context /rsm:CrossIndustryInvoice: the document's mandatory elements and BR-CO-15, BR-B-01, BR-B-02.
function documentRules(root: DocumentNode, report: Report): void {
  const agreement = `${SCTT}/${AHTA}`;
  const required: Array<[string, string, string]> = [
    ["BR-01", "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID", "The invoice has no specification identifier (BT-24, GuidelineSpecifiedDocumentContextParameter/ID)."],
    ["BR-02", "rsm:ExchangedDocument/ram:ID", "The invoice has no invoice number (BT-1, ExchangedDocument/ID)."],
    ["BR-04", "rsm:ExchangedDocument/ram:TypeCode", "The invoice has no invoice type code (BT-3, ExchangedDocument/TypeCode)."],
    ["BR-05", `${SCTT}/${AHTS}/ram:InvoiceCurrencyCode`, "The invoice has no invoice currency code (BT-5, InvoiceCurrencyCode)."],
    ["BR-06", `${agreement}/ram:SellerTradeParty/ram:Name`, "The seller's name (BT-27, SellerTradeParty/Name) is missing."],
    ["BR-07", `${agreement}/ram:BuyerTradeParty/ram:Name`, "The buyer's name (BT-44, BuyerTradeParty/Name) is missing."],
  ];
  for (const [rule, path, message] of required) if (textAt(root, path) === "") report(rule, message, root);
  const issueDate = select(root, "rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString").filter((d) => d.attrs.format === "102");
  if (norm(issueDate[0]) === "") report("BR-03", "The invoice has no issue date (BT-2, IssueDateTime/DateTimeString with format 102).", root);
  if (!exists(root, `${agreement}/ram:SellerTradeParty/ram:PostalTradeAddress`)) report("BR-08", "The seller's postal address (BG-5) is missing.", root);
  if (textAt(root, `${agreement}/ram:SellerTradeParty/ram:PostalTradeAddress/ram:CountryID`) === "") report("BR-09", "The seller's postal address (BG-5) has no country code (BT-40).", root);
  if (!exists(root, `${agreement}/ram:BuyerTradeParty/ram:PostalTradeAddress`)) report("BR-10", "The buyer's postal address (BG-8) is missing.", root);
  if (textAt(root, `${agreement}/ram:BuyerTradeParty/ram:PostalTradeAddress/ram:CountryID`) === "") report("BR-11", "The buyer's postal address (BG-8) has no country code (BT-55).", root);
  if (all(root, LINE).length === 0) report("BR-16", "The invoice has no invoice lines (BG-25); it needs at least one.", root);
  for (const [rule, party, bt] of [["BR-62", "ram:SellerTradeParty", "the seller's electronic address (BT-34)"], ["BR-63", "ram:BuyerTradeParty", "the buyer's electronic address (BT-49)"]] as const) {
    // normalize-space(<party>/ram:URIUniversalCommunication[1]/ram:URIID/@schemeID) != '' or not(<party>/ram:URIUniversalCommunication)
    const parties = select(root, `${agreement}/${party}`);
    const communications = parties.flatMap((p) => children(p, "ram:URIUniversalCommunication"));
    if (communications.length === 0) continue;
    const firsts = parties.map((p) => child(p, "ram:URIUniversalCommunication")).filter((c): c is DocumentNode => c !== null);
    const scheme = firsts.flatMap((c) => children(c, "ram:URIID")).map((u) => u.attrs.schemeID).find((s) => s !== undefined);
    if (normalizeSpace(scheme ?? "") === "") report(rule, `${bt[0]!.toUpperCase()}${bt.slice(1)} ${quote(first(firsts[0], "ram:URIID"))} has no scheme identifier (schemeID).`, root);
  }

  // BR-CO-15: for each invoice currency, exactly one VAT total (BT-110) in it and BT-112 = round((BT-109 + BT-110) * 100) div 100,
  // or BT-112 = BT-109.
  const summation = `${SCTT}/${AHTS}/ram:SpecifiedTradeSettlementHeaderMonetarySummation`;
  const grand = decOf(select(root, `${summation}/ram:GrandTotalAmount`)[0]), basis = decOf(select(root, `${summation}/ram:TaxBasisTotalAmount`)[0]);
  const totals = select(root, `${summation}/ram:TaxTotalAmount`);
  for (const currency of select(root, `${SCTT}/${AHTS}/ram:InvoiceCurrencyCode`)) {
    const inCurrency = totals.filter((t) => t.attrs.currencyID === stringValue(currency));
    const vat = decOf(inCurrency[0]);
    const expected = basis !== null && vat !== null ? round2(basis.plus(vat)) : null;
    const ok = (inCurrency.length === 1 && grand !== null && expected !== null && grand.eq(expected)) || (grand !== null && basis !== null && grand.eq(basis));
    if (!ok) {
      report("BR-CO-15", inCurrency.length !== 1
        ? `The invoice must give its total VAT amount (BT-110) exactly once in the invoice currency ${quote(currency)}; it gives it ${inCurrency.length} times, and the total with VAT (BT-112) ${money(grand)} is not the total without VAT (BT-109) ${money(basis)}.`
        : `The total with VAT (BT-112) is ${money(grand)}, but the total without VAT (BT-109) ${money(basis)} plus the VAT total (BT-110) ${money(vat)} is ${money(expected)}.`, root);
    }
  }

  // BR-B-01: split payment (B) only when no country code anywhere is other than IT. BR-B-02: B and S exclude each other.
  const categories = all(root, "ram:CategoryCode");
  const usesB = someIs(categories, "B");
  if (usesB) {
    const foreign = all(root, "ram:CountryID").find((c) => stringValue(c) !== "IT");
    if (foreign) report("BR-B-01", `Split payment (VAT category B) is only for Italian domestic invoices, but the invoice has the country code ${quote(foreign)}.`, root);
    if (someIs(categories, "S")) report("BR-B-02", "An invoice with split payment (VAT category B) cannot also have standard rated (S) lines, allowances, charges or VAT breakdowns.", root);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Context //ram:IncludedSupplyChainTradeLineItem: an invoice line (BG-25).
function lineRules(line: DocumentNode, hasBreakdown: boolean, report: Report): void {
  const id = textAt(line, "ram:AssociatedDocumentLineDocument/ram:LineID");
  const which = id === "" ? "An invoice line" : `Invoice line ${id}`;
  if (id === "") report("BR-21", "An invoice line (BG-25) has no line identifier (BT-126).", line);
  const quantities = select(line, "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity");
  if (quantities.length === 0) report("BR-22", `${which} has no invoiced quantity (BT-129).`, line);
  if (!quantities.some((q) => q.attrs.unitCode !== undefined)) report("BR-23", `${which} has no unit of measure (BT-130, the BilledQuantity's unitCode).`, line);
  const net = select(line, `${SLTS}/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount`);
  if (net.length === 0) report("BR-24", `${which} has no net amount (BT-131).`, line);
  if (textAt(line, "ram:SpecifiedTradeProduct/ram:Name") === "") report("BR-25", `${which} has no item name (BT-153).`, line);
  const prices = select(line, "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount");
  if (prices.length === 0) report("BR-26", `${which} has no item net price (BT-146).`, line);
  if (!someNumber(prices, (v) => v >= 0)) {
    report("BR-27", prices.length === 0 ? `${which} has no item net price (BT-146); it must be given, and be 0 or more.` : `${which} has the item net price (BT-146) ${quote(prices[0])}; it cannot be negative.`, line);
  }
  const gross = select(line, "ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:ChargeAmount");
  if (gross.length > 0 && !someNumber(gross, (v) => v >= 0)) report("BR-28", `${which} has the item gross price (BT-148) ${quote(gross[0])}; it cannot be negative.`, line);
  const globalIds = select(line, "ram:SpecifiedTradeProduct/ram:GlobalID");
  const schemes = globalIds.map((g) => g.attrs.schemeID).filter((l): l is string => l !== undefined);
  if (globalIds.length > 0 && normalizeSpace(schemes[0] ?? "") === "") {
    report("BR-64", `${which} has the item standard identifier (BT-157) ${quote(globalIds[0])} without a scheme identifier (schemeID).`, line);
  }
  if (!select(line, `${SLTS}/ram:ApplicableTradeTax`).some((t) => typeIsVat(t) && exists(t, "ram:CategoryCode"))) {
    report("BR-CO-04", `${which} has no VAT category code (BT-151, ApplicableTradeTax with TypeCode VAT and a CategoryCode).`, line);
  }
  if (!hasBreakdown) {
    report("BR-CO-18", "The invoice has no VAT breakdown (BG-23, ApplicableHeaderTradeSettlement/ApplicableTradeTax); it needs at least one.", line);
  }
  if (fractionDigits(net[0]) > 2) report("BR-DEC-23", `${which} has the net amount (BT-131) ${quote(net[0])}, with more than 2 decimals.`, line);
}

// ---------------------------------------------------------------------------------------------------------
// Contexts //ram:SpecifiedLineTradeSettlement/ram:BillingSpecifiedPeriod and //ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod.
function periodRules(root: DocumentNode, report: Report): void {
  for (const period of all(root, "ram:BillingSpecifiedPeriod")) {
    const line = period.parent?.qname === SLTS;
    if (!line && period.parent?.qname !== AHTS) continue;
    const starts = children(period, "ram:StartDateTime"), ends = children(period, "ram:EndDateTime");
    if (starts.length > 0 && ends.length > 0) {
      // (End/DateTimeString[@format='102']) >= (Start/DateTimeString[@format='102']): untyped values compared as strings.
      const dates = (nodes: DocumentNode[]) => nodes.flatMap((n) => children(n, "udt:DateTimeString")).filter((d) => d.attrs.format === "102").map(stringValue);
      const startValues = dates(starts), endValues = dates(ends);
      if (!endValues.some((e) => startValues.some((s) => e >= s))) {
        const what = line ? "invoice line period (BG-26, BT-134/BT-135)" : "invoicing period (BG-14, BT-73/BT-74)";
        report(line ? "BR-30" : "BR-29", startValues.length && endValues.length
          ? `The ${what} ends ('${endValues[0]}') before it starts ('${startValues[0]}').`
          : `The ${what} has a start and an end date, but not both as format 102 dates (YYYYMMDD), so they cannot be compared.`, period);
      }
    }
    if (starts.length === 0 && ends.length === 0) {
      report(line ? "BR-CO-20" : "BR-CO-19", line
        ? "An invoice line period (BG-26) has neither a start date (BT-134) nor an end date (BT-135)."
        : "The invoicing period (BG-14) has neither a start date (BT-73) nor an end date (BT-74).", period);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Seller (BR-CO-26), seller's tax representative (BR-18, BR-19, BR-20, BR-56), preceding invoice (BR-55).
function partyRules(root: DocumentNode, report: Report): void {
  for (const seller of all(root, "ram:SellerTradeParty")) {
    const ok = exists(seller, "ram:ID") || exists(seller, "ram:GlobalID") || exists(seller, "ram:SpecifiedLegalOrganization/ram:ID") ||
      select(seller, "ram:SpecifiedTaxRegistration/ram:ID").some((i) => i.attrs.schemeID === "VA");
    if (!ok) report("BR-CO-26", "The seller has no identifier (BT-29), legal registration identifier (BT-30) or VAT identifier (BT-31, schemeID VA); at least one is required.", seller);
  }
  for (const representative of all(root, "ram:SellerTaxRepresentativeTradeParty")) {
    if (textAt(representative, "ram:Name") === "") report("BR-18", "The seller's tax representative (BG-11) has no name (BT-62).", representative);
    if (!exists(representative, "ram:PostalTradeAddress")) report("BR-19", "The seller's tax representative (BG-11) has no postal address (BG-12).", representative);
    if (textAt(representative, "ram:PostalTradeAddress/ram:CountryID") === "") report("BR-20", "The seller's tax representative's postal address (BG-12) has no country code (BT-69).", representative);
    const vatId = select(representative, "ram:SpecifiedTaxRegistration/ram:ID").find((i) => i.attrs.schemeID === "VA");
    if (norm(vatId) === "") report("BR-56", "The seller's tax representative (BG-11) has no VAT identifier (BT-63, SpecifiedTaxRegistration/ID with schemeID VA).", representative);
  }
  for (const reference of fromRoot(root, `${SCTT}/${AHTS}/ram:InvoiceReferencedDocument`)) {
    if (textAt(reference, "ram:IssuerAssignedID") === "") report("BR-55", "A preceding invoice reference (BG-3) has no preceding invoice number (BT-25).", reference);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Context //ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:TaxTotalAmount[@currencyID = <the invoice currency>]: BR-CO-14.
function taxTotalRule(root: DocumentNode, total: DocumentNode, report: Report): void {
  const currencies = fromRoot(root, `${SCTT}/${AHTS}/ram:InvoiceCurrencyCode`);
  if (total.attrs.currencyID === undefined || !someIs(currencies, total.attrs.currencyID)) return;
  // . = (round(sum(<the breakdowns' VAT amounts>) * 10 * 10) div 100), sum() and round() in xs:double.
  const amounts = fromRoot(root, `${SCTT}/${AHTS}/ram:ApplicableTradeTax/ram:CalculatedAmount`);
  const expected = doubleSumRounded(amounts);
  const value = xsDouble(stringValue(total));
  if (expected === null || value === null || value !== expected) {
    report("BR-CO-14", `The invoice total VAT amount (BT-110) is ${quote(total)}, but the VAT breakdown's category tax amounts (BT-117) add up to ${expected === null ? "a value that is not a number" : money(doubleToDecimal(expected))}.`, total);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Context //ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax (a VAT breakdown, BG-23), when no VAT category
// rule took it first (cii-common.ts headerTaxCategoryRule).
function breakdownRules(root: DocumentNode, tax: DocumentNode, report: Report): void {
  const vat = typeIsVat(tax);
  const code = vat ? sv(children(tax, "ram:CategoryCode")[0]) : "";
  const label = code ? `The VAT breakdown for category ${code}` : "A VAT breakdown (BG-23)";
  if (!exists(tax, "ram:BasisAmount")) report("BR-45", `${label} has no taxable amount (BT-116).`, tax);
  if (!exists(tax, "ram:CalculatedAmount")) report("BR-46", `${label} has no VAT amount (BT-117).`, tax);
  if (!vat || !exists(tax, "ram:CategoryCode")) report("BR-47", "A VAT breakdown (BG-23) has no VAT category code (BT-118, CategoryCode with TypeCode VAT).", tax);
  if (!(vat && (exists(tax, "ram:RateApplicablePercent") || someIs(children(tax, "ram:CategoryCode"), "O")))) {
    report("BR-48", `${label} has no VAT rate (BT-119); only category O (not subject to VAT) may leave it out.`, tax);
  }
  // BR-CO-03: a VAT point date (BT-7) and a VAT point date code (BT-8) exclude each other (anywhere in the document).
  if (all(root, "ram:TaxPointDate").length > 0 && all(root, "ram:DueDateTypeCode").length > 0) {
    report("BR-CO-03", `The invoice has both a VAT point date (BT-7) and a VAT point date code (BT-8, ${quote(all(root, "ram:DueDateTypeCode")[0])}); only one is allowed.`, tax);
  }
  // BR-CO-17: BT-117 = BT-116 * BT-119 / 100 within 1 (both bounds included), 0 at a zero or absent rate; xs:decimal throughout.
  const rate = typeIsVat(tax, true) ? singleDec(children(tax, "ram:RateApplicablePercent")) : null;
  const hasRate = typeIsVat(tax, true) && children(tax, "ram:RateApplicablePercent").length > 0;
  const amount = singleDec(children(tax, "ram:CalculatedAmount")), basis = singleDec(children(tax, "ram:BasisAmount"));
  const amountIsZero = amount !== null && round0(amount).eq(ZERO);
  let expected: Decimal | null = null;
  let ok: boolean;
  if (rate !== null && round0(rate).eq(ZERO)) ok = amountIsZero;
  else if (rate !== null) {
    expected = basis === null ? null : round2(basis.abs().times(rate.div(100)));
    ok = amount !== null && expected !== null && amount.abs().minus(ONE).lte(expected) && amount.abs().plus(ONE).gte(expected);
  } else ok = !hasRate && amountIsZero;
  if (!ok) {
    report("BR-CO-17", amount === null
      ? `${label} has no VAT amount (BT-117), so it cannot be checked against the taxable amount and rate.`
      : expected !== null
      ? `${label}: the VAT amount (BT-117) is ${money(amount)}, but the taxable amount (BT-116) ${money(basis)} at ${show(rate)}% gives ${money(expected)}.`
      : rate !== null && !round0(rate).eq(ZERO)
      ? `${label} has no taxable amount (BT-116), so its VAT amount cannot be checked.`
      : `${label}: the VAT amount (BT-117) is ${money(amount)}, but with a VAT rate of ${rate === null ? "none" : show(rate)} it must be 0.`, tax);
  }
  const basisNode = children(tax, "ram:BasisAmount")[0], amountNode = children(tax, "ram:CalculatedAmount")[0];
  if (fractionDigits(basisNode) > 2) report("BR-DEC-19", `${label}: the taxable amount (BT-116) ${quote(basisNode)} has more than 2 decimals.`, tax);
  if (fractionDigits(amountNode) > 2) report("BR-DEC-20", `${label}: the VAT amount (BT-117) ${quote(amountNode)} has more than 2 decimals.`, tax);
}

// Rule family: the VAT category rules of the CEN EN 16931 CII rules 1.3.16 (pattern EN16931-CII-Model of
// cii/schematron/preprocessed/EN16931-CII-validation-preprocessed.sch): BR-S-*, BR-Z-*, BR-E-*, BR-AE-*, BR-IC-* (K),
// BR-G-*, BR-O-*, BR-AF-* (L, IGIC) and BR-AG-* (M, IPSI), on the CII tree. The rest of the pattern is cii-business.ts.
//
// The contexts, in the pattern's order, decide which rule an element gets (first match):
// - a header breakdown: categories AE, E, G, K, S and Z take its ram:CategoryCode (AE/E/G/K only under
//   rsm:SupplyChainTradeTransaction and with TypeCode VAT; S and Z any), L, M and O the ram:ApplicableTradeTax itself
//   (which BR-45 ... BR-CO-17 then never see);
// - a document level allowance's or charge's ram:CategoryTradeTax with TypeCode VAT: AE, L, M, E, G, K, O, S, Z, the
//   allowance (indicator false()) before the charge (true()) of each;
// - a line's ram:ApplicableTradeTax with TypeCode VAT: AE, L, M, E, G, K, O, S, Z.
// Sums follow the XPath: xs:decimal where it casts, xs:double where it computes on an untyped element (BasisAmount - 1,
// BasisAmount * RateApplicablePercent), compared as the official engine compares.
import { type Decimal } from "../decimal.js";
import { children, exists, norm, stringValue, type DocumentNode, type RuleFamily } from "../../document/model.js";
import { all, decOf, money, quote, show } from "./cen-common.js";
import {
  AHTA, AHTS, LINE, SCTT, SLTS, STAC, anyPartyTaxId, categoryIs, categorySum, fromRoot, headerTaxCategoryRule, indicatorIs, isCiiRoot, roundDouble,
  sellerVatOrTaxRegistration, singleDec, someNumber, toDouble, typeIsVat, under, xsDouble, type IndicatorStyle,
} from "./cii-common.js";

type Report = (rule: string, message: string, node: DocumentNode | null) => void;
type Code = "S" | "Z" | "E" | "AE" | "K" | "G" | "O" | "L" | "M";

interface Category {
  /** The rule id prefix: BR-S, BR-IC for K, BR-AF for L, BR-AG for M. */
  prefix: string;
  /** For messages: "standard rated (S)". */
  name: string;
  /** BR-xx-02/03/04: the parties' identifiers the category needs (or, for O, must not have); a message when they fail. */
  parties: (root: DocumentNode) => string | null;
  /** BR-xx-05/06/07 on the category's line, allowance or charge tax element; a message when it fails. */
  rate: (tax: DocumentNode) => string | null;
}

const CONTEXT_ORDER: readonly Code[] = ["AE", "L", "M", "E", "G", "K", "O", "S", "Z"];
/** The categories of BR-xx-01, in the order they are reported. */
const DOCUMENT_CODES = ["S", "Z", "E", "AE", "K", "G", "O", "L", "M"] as const;

const rateText = (tax: DocumentNode) => (exists(tax, "ram:RateApplicablePercent") ? quote(children(tax, "ram:RateApplicablePercent")[0]) : "missing");
const rateMustBe = (test: (v: number) => boolean, wanted: string) => (tax: DocumentNode) =>
  someNumber(children(tax, "ram:RateApplicablePercent"), test) ? null : `the VAT rate is ${rateText(tax)}, but it must be ${wanted}`;

/** "x is required" or "x and y are required". */
const required = (what: string[]): string => {
  const named = what.filter(Boolean);
  return `${named.join(" and ")} ${named.length > 1 ? "are" : "is"} required`;
};
const sellerNeeds = (root: DocumentNode) =>
  sellerVatOrTaxRegistration(root) ? null : "the seller's VAT identifier (BT-31, schemeID VA), tax registration identifier (BT-32, schemeID FC) or tax representative's VAT identifier (BT-63) is required";
const sellerVatAnywhere = (root: DocumentNode) => anyPartyTaxId(root, "ram:SellerTradeParty", "VA") || anyPartyTaxId(root, "ram:SellerTaxRepresentativeTradeParty", "VA");

const CATEGORIES: Record<Code, Category> = {
  S: { prefix: "BR-S", name: "standard rated (S)", parties: sellerNeeds, rate: rateMustBe((v) => v > 0, "more than 0") },
  Z: { prefix: "BR-Z", name: "zero rated (Z)", parties: sellerNeeds, rate: rateMustBe((v) => v === 0, "0") },
  E: { prefix: "BR-E", name: "exempt from VAT (E)", parties: sellerNeeds, rate: rateMustBe((v) => v === 0, "0") },
  L: { prefix: "BR-AF", name: "IGIC, Canary Islands (L)", parties: sellerNeeds, rate: rateMustBe((v) => v > 0, "more than 0") },
  M: { prefix: "BR-AG", name: "IPSI, Ceuta and Melilla (M)", parties: sellerNeeds, rate: rateMustBe((v) => v >= 0, "0 or more") },
  AE: {
    prefix: "BR-AE",
    name: "reverse charge (AE)",
    parties: (root) => {
      const seller = anyPartyTaxId(root, "ram:SellerTradeParty", "VA", "FC") || anyPartyTaxId(root, "ram:SellerTaxRepresentativeTradeParty", "VA");
      const buyer = anyPartyTaxId(root, "ram:BuyerTradeParty", "VA") || all(root, "ram:BuyerTradeParty").some((b) => exists(b, "ram:SpecifiedLegalOrganization/ram:ID"));
      if (seller && buyer) return null;
      return required([seller ? "" : "the seller's VAT identifier (BT-31), tax registration identifier (BT-32) or tax representative's VAT identifier (BT-63)",
        buyer ? "" : "the buyer's VAT identifier (BT-48) or legal registration identifier (BT-47)"]);
    },
    rate: rateMustBe((v) => v === 0, "0"),
  },
  K: {
    prefix: "BR-IC",
    name: "intra-community supply (K)",
    parties: (root) => {
      const seller = sellerVatAnywhere(root), buyer = anyPartyTaxId(root, "ram:BuyerTradeParty", "VA");
      if (seller && buyer) return null;
      return required([seller ? "" : "the seller's VAT identifier (BT-31) or tax representative's VAT identifier (BT-63)", buyer ? "" : "the buyer's VAT identifier (BT-48)"]);
    },
    rate: rateMustBe((v) => v === 0, "0"),
  },
  G: {
    prefix: "BR-G",
    name: "export outside the EU (G)",
    parties: (root) => (sellerVatAnywhere(root) ? null : "the seller's VAT identifier (BT-31) or tax representative's VAT identifier (BT-63) is required"),
    rate: rateMustBe((v) => v === 0, "0"),
  },
  O: {
    prefix: "BR-O",
    name: "not subject to VAT (O)",
    parties: (root) => {
      const seller = fromRoot(root, `${SCTT}/${AHTA}/ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID`).some((i) => i.attrs.schemeID === "VA");
      const representative = fromRoot(root, `${SCTT}/${AHTA}/ram:SellerTaxRepresentativeTradeParty/ram:SpecifiedTaxRegistration/ram:ID`).some((i) => i.attrs.schemeID === "VA");
      const buyer = anyPartyTaxId(root, "ram:BuyerTradeParty", "VA");
      if (!seller && !representative && !buyer) return null;
      return `the invoice must not give a VAT identifier (it has the ${[seller ? "seller's (BT-31)" : "", representative ? "tax representative's (BT-63)" : "", buyer ? "buyer's (BT-48)" : ""].filter(Boolean).join(" and ")})`;
    },
    rate: (tax) => (exists(tax, "ram:RateApplicablePercent") ? `it must have no VAT rate, but has ${rateText(tax)}` : null),
  },
};

export const ciiVatRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  const report: Report = ctx.fatal;
  if (isCiiRoot(root)) documentRules(root, report);
  for (const code of all(root, "ram:CategoryCode")) {
    const tax = code.parent!;
    if (tax.qname !== "ram:ApplicableTradeTax" || tax.parent?.qname !== AHTS) continue;
    const value = stringValue(code);
    if (value === "S" || value === "Z") headerCodeRules(root, value, code, report);
    else if ((value === "AE" || value === "E" || value === "G" || value === "K") && under(tax, AHTS, SCTT) && typeIsVat(tax)) headerCodeRules(root, value, code, report);
  }
  const partiesOf = partiesReader(root);
  for (const tax of all(root, "ram:ApplicableTradeTax")) {
    if (tax.parent?.qname === AHTS) {
      const code = headerTaxCategoryRule(tax);
      if (code !== null) headerTaxRules(root, code, tax, report);
    } else if (tax.parent?.qname === SLTS && under(tax, SLTS, LINE, SCTT) && typeIsVat(tax)) {
      const code = CONTEXT_ORDER.find((c) => categoryIs(tax, c));
      if (code) partRules(root, code, tax, 0, report, partiesOf);
    }
  }
  for (const tax of all(root, "ram:CategoryTradeTax")) {
    const ac = tax.parent;
    if (ac?.qname !== STAC || !typeIsVat(tax)) continue;
    for (const code of CONTEXT_ORDER) {
      if (!categoryIs(tax, code)) continue;
      const charge = indicatorIs(ac, false) ? false : indicatorIs(ac, true) ? true : null;
      if (charge === null) continue;
      partRules(root, code, tax, charge ? 2 : 1, report, partiesOf);
      break;
    }
  }
};

// ---------------------------------------------------------------------------------------------------------
// Context /rsm:CrossIndustryInvoice: BR-xx-01, a category used by a line, allowance or charge has its breakdown.
function documentRules(root: DocumentNode, report: Report): void {
  // The tax elements of each category, counted in one pass over them (not one a category): a tax element counts once
  // for each category its ram:CategoryCode children name (`ram:CategoryCode = 'code'`).
  const counts = new Map<string, { header: number; lines: number; parts: number }>();
  for (const code of DOCUMENT_CODES) counts.set(code, { header: 0, lines: 0, parts: 0 });
  const tally = (tax: DocumentNode, field: "header" | "lines" | "parts"): void => {
    const codes = children(tax, "ram:CategoryCode");
    for (let i = 0; i < codes.length; i++) {
      const value = stringValue(codes[i]);
      let repeated = false;
      for (let k = 0; k < i; k++) if (stringValue(codes[k]) === value) repeated = true;
      const c = repeated ? undefined : counts.get(value);
      if (c !== undefined) c[field]++;
    }
  };
  for (const t of all(root, "ram:ApplicableTradeTax")) {
    const parent = t.parent?.qname;
    if (parent === AHTS) tally(t, "header");
    else if (parent === SLTS) tally(t, "lines");
  }
  for (const t of all(root, "ram:CategoryTradeTax")) tally(t, "parts");
  for (const code of DOCUMENT_CODES) {
    const { header, lines, parts } = counts.get(code)!;
    const c = CATEGORIES[code];
    let ok: boolean;
    if (code === "S" || code === "L" || code === "M") {
      // At least one breakdown: (lines + breakdowns >= 2 or no line) and (allowances/charges + breakdowns >= 2 or none).
      ok = (lines + header >= 2 || lines === 0) && (parts + header >= 2 || parts === 0);
    } else if (code === "O") {
      ok = header === 0 || (header === 1 && (lines > 0 || parts > 0));
    } else {
      ok = (header === 0 && lines === 0 && parts === 0) || (header === 1 && (lines > 0 || parts > 0));
    }
    if (!ok) {
      const used = `${lines} line${lines === 1 ? "" : "s"} and ${parts} allowance${parts === 1 ? "" : "s"} or charge${parts === 1 ? "" : "s"}`;
      const need = code === "S" || code === "L" || code === "M" ? "at least one VAT breakdown (BG-23)" : "exactly one VAT breakdown (BG-23)";
      report(`${c.prefix}-01`, header > 1 && need.startsWith("exactly")
        ? `The invoice has ${header} VAT breakdowns (BG-23) of category ${c.name}; it must have exactly one.`
        : header > 0 && lines === 0 && parts === 0
        ? `The invoice has a VAT breakdown (BG-23) of category ${c.name}, but no line, allowance or charge of that category.`
        : `The invoice has ${used} of VAT category ${c.name} (BT-151, BT-95, BT-102), so it needs ${need} with category code ${code} (BT-118); it has ${header}.`, root);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// A line's (part 0), document level allowance's (1) or charge's (2) tax element of a category: BR-xx-02 ... -07.
function partRules(root: DocumentNode, code: Code, tax: DocumentNode, part: 0 | 1 | 2, report: Report, partiesOf: PartiesOf): void {
  const c = CATEGORIES[code];
  const parties = partiesOf(code);
  if (parties !== null) report(`${c.prefix}-0${2 + part}`, `${partWhat(c, tax, part)}: ${parties}.`, tax);
  const rate = c.rate(tax);
  if (rate !== null) report(`${c.prefix}-0${5 + part}`, `${partWhat(c, tax, part)}: ${rate} (${["BT-152", "BT-96", "BT-103"][part]}).`, tax);
}

/** What partRules' messages call the line, allowance or charge (made only for a message). */
function partWhat(c: Category, tax: DocumentNode, part: 0 | 1 | 2): string {
  // (the allowance and charge contexts take any ram:SpecifiedTradeAllowanceCharge, also one of a line)
  const onLine = part !== 0 && tax.parent?.parent?.qname === SLTS;
  return part === 0 ? `An invoice line (BG-25) of VAT category ${c.name}`
    : part === 1 ? `${onLine ? "An invoice line allowance (BG-27)" : "A document level allowance (BG-20)"} of VAT category ${c.name}`
    : `${onLine ? "An invoice line charge (BG-28)" : "A document level charge (BG-21)"} of VAT category ${c.name}`;
}

/** A category's BR-xx-02/03/04 message (`Category.parties`), read once per document: it reads the document, not the line. */
type PartiesOf = (code: Code) => string | null;

function partiesReader(root: DocumentNode): PartiesOf {
  const known = new Map<Code, string | null>();
  return (code) => {
    let m = known.get(code);
    if (m === undefined) known.set(code, (m = CATEGORIES[code].parties(root)));
    return m;
  };
}

// ---------------------------------------------------------------------------------------------------------
// Context //ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode[. = code]: S, Z, E, AE, G, K.
function headerCodeRules(root: DocumentNode, code: "S" | "Z" | "E" | "AE" | "G" | "K", categoryCode: DocumentNode, report: Report): void {
  const c = CATEGORIES[code];
  const tax = categoryCode.parent!;
  const label = `The VAT breakdown (BG-23) of category ${c.name}`;
  const basisNodes = children(tax, "ram:BasisAmount"), amountNodes = children(tax, "ram:CalculatedAmount");
  if (code === "S") {
    everyRateSum(root, "S", tax, tax, report, categoryCode);
    // BR-S-09: abs(BT-117) - 1 < round(abs(BT-116) * BT-119) div 100 < abs(BT-117) + 1; the product is xs:double.
    const amount = singleDec(amountNodes), basis = singleDec(basisNodes);
    const rates = children(tax, "ram:RateApplicablePercent");
    const rate = rates.length === 1 ? xsDouble(stringValue(rates[0])) : null;
    const bound = basis !== null && rate !== null ? roundDouble(toDouble(basis.abs()) * rate) / 100 : null;
    const ok = amount !== null && bound !== null && toDouble(amount.abs().minus(1)) < bound && toDouble(amount.abs().plus(1)) > bound;
    if (!ok) {
      report("BR-S-09", amount === null
        ? `${label} has no VAT amount (BT-117), so it cannot be checked against the taxable amount (BT-116) and rate (BT-119).`
        : bound === null
        ? `${label}: its VAT amount (BT-117) ${money(amount)} cannot be checked, the taxable amount (BT-116) ${quote(basisNodes[0])} or the rate (BT-119) ${quote(rates[0])} is missing or not a number.`
        : `${label}: the VAT amount (BT-117) is ${money(amount)}, but the taxable amount (BT-116) ${money(basis)} at ${norm(rates[0])}% (BT-119) gives ${bound.toFixed(2)} (a difference of 1 or more).`, categoryCode);
    }
  } else {
    // BR-xx-08: BasisAmount - 1 < lines + charges - allowances < BasisAmount + 1 (BasisAmount -/+ 1 in xs:double).
    const { total, parts: partsOf } = categorySum(root, code, code === "Z" ? "cast" : "compare");
    const basis = basisNodes.length === 1 ? xsDouble(stringValue(basisNodes[0])) : null;
    const expected = toDouble(total);
    if (basis === null || !(basis - 1 < expected && basis + 1 > expected)) {
      report(`${c.prefix}-08`, basis === null
        ? `${label} has no taxable amount (BT-116) to compare with the lines, allowances and charges of that category, which add up to ${money(total)}${partsOf()}.`
        : `${label}: the taxable amount (BT-116) is ${quote(basisNodes[0])}, but the lines (BT-131), charges (BT-99) and allowances (BT-92) of that category add up to ${money(total)}${partsOf()}.`, categoryCode);
    }
    // BR-xx-09: ../ram:CalculatedAmount = 0.
    if (!someNumber(amountNodes, (v) => v === 0)) report(`${c.prefix}-09`, `${label}: the VAT amount (BT-117) is ${quote(amountNodes[0])}, but it must be 0.`, categoryCode);
  }
  exemptionRule(tax, code, categoryCode, report);
  if (code === "K") {
    // BR-IC-11: an actual delivery date (BT-72) or an invoicing period (BG-14, its start or end date).
    const delivered = fromRoot(root, `${SCTT}/ram:ApplicableHeaderTradeDelivery/ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime/udt:DateTimeString`).length > 0;
    const settlement = tax.parent;
    if (!delivered && !exists(settlement, "ram:BillingSpecifiedPeriod/ram:StartDateTime") && !exists(settlement, "ram:BillingSpecifiedPeriod/ram:EndDateTime")) {
      report("BR-IC-11", `${label} needs the actual delivery date (BT-72) or an invoicing period (BG-14) with a start (BT-73) or end date (BT-74); the invoice has neither.`, categoryCode);
    }
    if (fromRoot(root, `${SCTT}/ram:ApplicableHeaderTradeDelivery/ram:ShipToTradeParty/ram:PostalTradeAddress/ram:CountryID`).length === 0) {
      report("BR-IC-12", `${label} needs the deliver-to country code (BT-80).`, categoryCode);
    }
  }
}

/** BR-xx-10: the exemption reason (BT-120) or code (BT-121), required for E, AE, G, K, O and forbidden for S, Z, L, M. */
function exemptionRule(tax: DocumentNode, code: Code, context: DocumentNode, report: Report): void {
  const c = CATEGORIES[code];
  const reason = children(tax, "ram:ExemptionReason")[0], reasonCode = children(tax, "ram:ExemptionReasonCode")[0];
  const required = code === "E" || code === "AE" || code === "G" || code === "K" || code === "O";
  const label = `The VAT breakdown (BG-23) of category ${c.name}`;
  if (required && !reason && !reasonCode) report(`${c.prefix}-10`, `${label} needs a VAT exemption reason (BT-120) or reason code (BT-121).`, context);
  if (!required && (reason || reasonCode)) {
    report(`${c.prefix}-10`, `${label} cannot have a VAT exemption reason (BT-120) or reason code (BT-121), but has ${reason ? quote(reason) : quote(reasonCode)}.`, context);
  }
}

/**
 * `every $rate in <rateHolder>/ram:RateApplicablePercent/xs:decimal(.) satisfies (<basisHolder>/ram:BasisAmount = lines + charges - allowances
 * of that category and rate)` (BR-S-08, BR-AF-08, BR-AG-08): the sums in xs:decimal, compared with the untyped BasisAmount as xs:double.
 */
function everyRateSum(root: DocumentNode, code: "S" | "L" | "M", rateHolder: DocumentNode, basisHolder: DocumentNode, report: Report, context: DocumentNode): void {
  const c = CATEGORIES[code];
  const basisNodes = children(basisHolder, "ram:BasisAmount");
  for (const rateNode of children(rateHolder, "ram:RateApplicablePercent")) {
    const rate: Decimal | null = decOf(rateNode);
    if (rate === null) continue;
    const { total, parts: partsOf } = categorySum(root, code, "compare", rate);
    const expected = toDouble(total);
    if (!basisNodes.some((b) => xsDouble(stringValue(b)) === expected)) {
      report(`${c.prefix}-08`, `The VAT breakdown (BG-23) of category ${c.name} at ${show(rate)}%: the taxable amount (BT-116) is ${quote(basisNodes[0])}, but the lines (BT-131), charges (BT-99) and allowances (BT-92) of that category and rate add up to ${money(total)}${partsOf()}.`, context);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Context //rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax[ram:CategoryCode = code][upper-case(ram:TypeCode) = 'VAT']: L, M, O.
function headerTaxRules(root: DocumentNode, code: "L" | "M" | "O", tax: DocumentNode, report: Report): void {
  const c = CATEGORIES[code];
  const label = `The VAT breakdown (BG-23) of category ${c.name}`;
  if (code === "O") {
    // BR-O-08: ram:BasisAmount = lines + charges - allowances of category O (the indicator cast as xs:boolean).
    const { total, parts: partsOf } = categorySum(root, "O", "cast" as IndicatorStyle);
    const basisNodes = children(tax, "ram:BasisAmount");
    if (!basisNodes.some((b) => xsDouble(stringValue(b)) === toDouble(total))) {
      report("BR-O-08", `${label}: the taxable amount (BT-116) is ${quote(basisNodes[0])}, but the lines (BT-131), charges (BT-99) and allowances (BT-92) of that category add up to ${money(total)}${partsOf()}.`, tax);
    }
    const amounts = children(tax, "ram:CalculatedAmount");
    if (!someNumber(amounts, (v) => v === 0)) report("BR-O-09", `${label}: the VAT amount (BT-117) is ${quote(amounts[0])}, but it must be 0.`, tax);
    exemptionRule(tax, "O", tax, report);
    // BR-O-11 ... BR-O-14: no other category anywhere (BR-O-11 and -12 read the same, as do -13 and -14).
    const otherTax = all(root, "ram:ApplicableTradeTax").find((t) => children(t, "ram:CategoryCode").some((cc) => stringValue(cc) !== "O"));
    if (otherTax) {
      const other = quote(children(otherTax, "ram:CategoryCode").find((cc) => stringValue(cc) !== "O"));
      const text = `An invoice with a VAT breakdown of category ${c.name} cannot have another VAT category, but a ${otherTax.parent?.qname === SLTS ? "line" : "VAT breakdown"} has ${other}.`;
      report("BR-O-11", text, tax);
      report("BR-O-12", text, tax);
    }
    const otherPart = all(root, "ram:CategoryTradeTax").find((t) => children(t, "ram:CategoryCode").some((cc) => stringValue(cc) !== "O"));
    if (otherPart) {
      const text = `An invoice with a VAT breakdown of category ${c.name} cannot have another VAT category, but a document level allowance or charge has ${quote(children(otherPart, "ram:CategoryCode").find((cc) => stringValue(cc) !== "O"))}.`;
      report("BR-O-13", text, tax);
      report("BR-O-14", text, tax);
    }
    return;
  }
  // BR-AF-08 / BR-AG-08 read ../ram:RateApplicablePercent and ../ram:BasisAmount from the tax element's parent (the
  // header settlement), where CII has neither: as published they hold. BR-AF-09 / BR-AG-09 assert true().
  everyRateSum(root, code, tax.parent!, tax.parent!, report, tax);
  exemptionRule(tax, code, tax, report);
}

// Rule family: the VAT category families of the CEN EN 16931 UBL rules (validation artefacts 1.3.16):
// BR-S-* (standard rate), BR-Z-* (zero rated), BR-E-* (exempt), BR-AE-* (reverse charge), BR-IC-* (intra-community,
// code K), BR-G-* (export outside the EU), BR-O-* (not subject to VAT), BR-AF-* (IGIC, code L), BR-AG-* (IPSI,
// code M). Each family has the same shape, by Schematron context:
//   /ubl:Invoice | /cn:CreditNote                         -01 breakdown present, -02..-04 who must have a VAT id
//   cac:InvoiceLine/cac:Item/cac:ClassifiedTaxCategory     -05 the line's VAT rate
//   cac:AllowanceCharge[false|true]/cac:TaxCategory        -06 / -07 the allowance's / charge's VAT rate
//   /*/cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory        -08 taxable amount, -09 VAT amount, -10 exemption reason
// The published tests differ in small ways from family to family (whether the VAT scheme is required, whether the
// ID is normalised); each difference is kept and commented where it is.
import { HUNDRED, ONE, round2, sum, ZERO, type Decimal } from "../decimal.js";
import { child, children, exists, memoOn, norm, select, stringValue, type RuleContext, type RuleFamily, type DocumentNode } from "../../document/model.js";
import {
  all, categoryCode, chargeIndicator, decAt, eq, hasParents, isLine, isUblRoot, isVat, codepoints, money, show, xpathDoubleShift,
} from "./cen-common.js";

type Report = (rule: string, message: string, node: DocumentNode | null) => void;

/** The nine VAT categories: code, rule prefix, and a name for messages. */
const CATEGORIES = [
  { code: "S", prefix: "BR-S", name: "S (standard rated)" },
  { code: "Z", prefix: "BR-Z", name: "Z (zero rated)" },
  { code: "E", prefix: "BR-E", name: "E (exempt from VAT)" },
  { code: "AE", prefix: "BR-AE", name: "AE (reverse charge)" },
  { code: "K", prefix: "BR-IC", name: "K (intra-community supply)" },
  { code: "G", prefix: "BR-G", name: "G (export outside the EU)" },
  { code: "O", prefix: "BR-O", name: "O (not subject to VAT)" },
  { code: "L", prefix: "BR-AF", name: "L (IGIC, Canary Islands)" },
  { code: "M", prefix: "BR-AG", name: "M (IPSI, Ceuta and Melilla)" },
] as const;
type Category = (typeof CATEGORIES)[number];

export const cenVatRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  const report: Report = ctx.fatal;
  if (isUblRoot(root)) documentRules(ctx, report);
  lineAndAllowanceRates(root, report);
  breakdownRules(root, report);
};

// ---------------------------------------------------------------------------------------------------------
// The document's facts the -01..-04 rules look at, read once for the nine categories.
interface Cat {
  node: DocumentNode;
  code: string; // normalize-space(cbc:ID)
  vat: boolean; // cac:TaxScheme/normalize-space(upper-case(cbc:ID)) = 'VAT'
}
interface AcCat extends Cat {
  charge: boolean | null; // the allowance/charge's indicator
  doc: boolean; // the allowance/charge is a child of the root
}
interface Facts {
  taxCategories: Cat[]; // //cac:TaxCategory
  classified: Cat[]; // //cac:ClassifiedTaxCategory
  breakdown: Cat[]; // cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory of the root
  acs: AcCat[]; // //cac:AllowanceCharge/cac:TaxCategory
  sellerAnyId: boolean; // //cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID (any scheme)
  sellerVatId: boolean; // the same with the VAT scheme
  taxRepVatId: boolean; // //cac:TaxRepresentativeParty/cac:PartyTaxScheme[VAT]/cbc:CompanyID
  buyerVatId: boolean; // //cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme[VAT]/cbc:CompanyID
  buyerLegalId: boolean; // //cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID
}

const cat = (node: DocumentNode): Cat => ({ node, code: categoryCode(node), vat: isVat(node) });

/** //party/cac:Party/cac:PartyTaxScheme */
function partyTaxSchemes(root: DocumentNode, party: string): DocumentNode[] {
  return all(root, party).flatMap((node) => select(node, "cac:Party/cac:PartyTaxScheme"));
}

/** One of the PartyTaxSchemes (of the VAT scheme, when `vat`) has a cbc:CompanyID. */
function withId(list: DocumentNode[], vat: boolean): boolean {
  return list.some((node) => (!vat || isVat(node)) && exists(node, "cbc:CompanyID"));
}

function facts(root: DocumentNode): Facts {
  const sellerPts = partyTaxSchemes(root, "cac:AccountingSupplierParty"), buyerPts = partyTaxSchemes(root, "cac:AccountingCustomerParty");
  const taxRepPts = all(root, "cac:TaxRepresentativeParty").flatMap((taxRepresentativeParty) => children(taxRepresentativeParty, "cac:PartyTaxScheme"));
  const acs: AcCat[] = [];
  for (const ac of all(root, "cac:AllowanceCharge")) {
    const tcs = children(ac, "cac:TaxCategory");
    if (tcs.length === 0) continue;
    const charge = chargeIndicator(ac), doc = ac.parent === root;
    for (const tc of tcs) acs.push({ node: tc, code: categoryCode(tc), vat: isVat(tc), charge, doc });
  }
  return {
    taxCategories: all(root, "cac:TaxCategory").map(cat),
    classified: all(root, "cac:ClassifiedTaxCategory").map(cat),
    breakdown: select(root, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory").map(cat),
    acs,
    sellerAnyId: withId(sellerPts, false),
    sellerVatId: withId(sellerPts, true),
    taxRepVatId: withId(taxRepPts, true),
    buyerVatId: withId(buyerPts, true),
    buyerLegalId: all(root, "cac:AccountingCustomerParty").some((accountingCustomerParty) => exists(accountingCustomerParty, "cac:Party/cac:PartyLegalEntity/cbc:CompanyID")),
  };
}

/** //cac:AllowanceCharge[cbc:ChargeIndicator = charge]/cac:TaxCategory (null: any); `docOnly`: the root's own. */
const acCategories = (facts: Facts, charge: boolean | null, docOnly = false): Cat[] => facts.acs.filter((c) => isAc(c, charge, docOnly));
const isAc = (c: AcCat, charge: boolean | null, docOnly: boolean): boolean => (!docOnly || c.doc) && (charge === null || c.charge === charge);

/** How many of `list` are `X[normalize-space(cbc:ID) = code]` (optionally `[cac:TaxScheme ... = 'VAT']`). */
function coded(list: readonly Cat[], code: string, vat: boolean): number {
  let n = 0;
  for (const category of list) if (category.code === code && (!vat || category.vat)) n++;
  return n;
}

/** How many of `list` are `X[cbc:ID = code]`: the ID as written, not normalised. */
function codedRaw(list: readonly Cat[], code: string, vat: boolean): number {
  let n = 0;
  for (const category of list) if ((!vat || category.vat) && children(category.node, "cbc:ID").some((i) => stringValue(i) === code)) n++;
  return n;
}

/** `coded` on the allowance and charge categories (see acCategories), without making the list. */
function codedAc(facts: Facts, charge: boolean | null, docOnly: boolean, code: string, vat: boolean): number {
  let n = 0;
  for (const c of facts.acs) if (isAc(c, charge, docOnly) && c.code === code && (!vat || c.vat)) n++;
  return n;
}

// ---------------------------------------------------------------------------------------------------------
// Context /ubl:Invoice | /cn:CreditNote: -01 (the breakdown has the category), -02..-04 (VAT identifiers).
function documentRules(ctx: RuleContext, report: Report): void {
  const rootNode = ctx.root;
  const documentFacts = facts(rootNode);
  for (const cat of CATEGORIES) {
    presenceRule(cat, documentFacts, rootNode, report);
    identifierRules(cat, documentFacts, rootNode, report);
  }

  // BR-IC-11 / BR-IC-12: an intra-community supply needs the delivery date or invoicing period, and the
  // deliver-to country.
  if (coded(documentFacts.breakdown, "K", true) > 0) {
    const actual = stringValue(select(rootNode, "cac:Delivery/cbc:ActualDeliveryDate")[0] ?? null);
    const periodHasChild = select(rootNode, "cac:InvoicePeriod").some((invoicePeriod) => invoicePeriod.children.length > 0);
    if (!(codepoints(actual) > 1 || periodHasChild)) {
      report("BR-IC-11", "An intra-community supply (VAT category K) needs the actual delivery date (BT-72) or the invoicing period (BG-14).", rootNode);
    }
    const country = stringValue(select(rootNode, "cac:Delivery/cac:DeliveryLocation/cac:Address/cac:Country/cbc:IdentificationCode")[0] ?? null);
    if (!(codepoints(country) > 1)) {
      report("BR-IC-12", "An intra-community supply (VAT category K) needs the deliver-to country code (BT-80).", rootNode);
    }
  }

  // BR-O-11..14: a "not subject to VAT" breakdown excludes every other VAT category in the invoice.
  if (coded(documentFacts.breakdown, "O", true) > 0) {
    const others = (list: readonly Cat[]) => list.filter((category) => category.code !== "O" && category.vat);
    const o11 = others(documentFacts.breakdown), o12 = others(documentFacts.classified), o13 = others(acCategories(documentFacts, false)), o14 = others(acCategories(documentFacts, true));
    const codes = (items: Cat[]) => [...new Set(items.map((item) => item.code || "(none)"))].join(", ");
    if (o11.length) report("BR-O-11", `The VAT breakdown has category O (not subject to VAT), so it cannot have other categories, but it also has ${codes(o11)}.`, rootNode);
    if (o12.length) report("BR-O-12", `The VAT breakdown has category O (not subject to VAT), so every line must be O, but lines have ${codes(o12)}.`, rootNode);
    if (o13.length) report("BR-O-13", `The VAT breakdown has category O (not subject to VAT), so every document level allowance must be O, but one has ${codes(o13)}.`, rootNode);
    if (o14.length) report("BR-O-14", `The VAT breakdown has category O (not subject to VAT), so every document level charge must be O, but one has ${codes(o14)}.`, rootNode);
  }
}

/** BR-x-01: a category used on a line, allowance or charge appears in the VAT breakdown (exactly once for most). */
function presenceRule(cat: Category, facts: Facts, node: DocumentNode, report: Report): void {
  const { code } = cat;
  let ok: boolean;
  let inBreakdown: number;
  if (code === "S" || code === "L" || code === "M") {
    // count(//cac:AllowanceCharge/cac:TaxCategory[S]) + count(//cac:ClassifiedTaxCategory[S]) > 0 and the
    // breakdown has it, or neither; S requires no VAT scheme, L and M do (and test the breakdown's ID
    // unnormalised in the first branch).
    const vat = code !== "S";
    const used = codedAc(facts, null, false, code, vat) + coded(facts.classified, code, vat);
    const first = code === "S" ? coded(facts.breakdown, code, false) : codedRaw(facts.breakdown, code, code === "M");
    inBreakdown = code === "S" ? first : coded(facts.breakdown, code, true);
    ok = (used > 0 && first > 0) || (used === 0 && inBreakdown === 0);
    if (!ok) {
      report(`${cat.prefix}-01`, used > 0
        ? `The invoice has lines, allowances or charges of VAT category ${cat.name}, but the VAT breakdown (BG-23) has no ${code} category.`
        : `The VAT breakdown (BG-23) has VAT category ${cat.name}, but no line, allowance or charge has it.`, node);
    }
    return;
  }
  // Exactly one breakdown of the category when any (VAT) tax category of the document has it.
  const used = coded(facts.taxCategories, code, true) + coded(facts.classified, code, true) > 0;
  inBreakdown = coded(facts.breakdown, code, true);
  if (used && inBreakdown !== 1) {
    report(`${cat.prefix}-01`, `The invoice uses VAT category ${cat.name}, so the VAT breakdown (BG-23) must have exactly one ${code} category; it has ${inBreakdown}.`, node);
  }
}

/** BR-x-02 (lines), -03 (document allowances), -04 (document charges): the VAT identifiers the category needs. */
function identifierRules(cat: Category, facts: Facts, node: DocumentNode, report: Report): void {
  const { code } = cat;
  let idsOk: boolean, need: string;
  switch (code) {
    case "S": case "Z": case "E": case "L": case "M":
      idsOk = facts.sellerAnyId || facts.taxRepVatId;
      need = "the seller's VAT identifier (BT-31) or the tax representative's VAT identifier (BT-63)";
      break;
    case "AE":
      idsOk = (facts.sellerAnyId || facts.taxRepVatId) && (facts.buyerVatId || facts.buyerLegalId);
      need = "the seller's VAT identifier (BT-31) or the tax representative's (BT-63), and the buyer's VAT identifier (BT-48) or legal registration identifier (BT-47)";
      break;
    case "G":
      idsOk = facts.sellerVatId || facts.taxRepVatId;
      need = "the seller's VAT identifier (BT-31) or the tax representative's VAT identifier (BT-63)";
      break;
    case "K":
      idsOk = (facts.sellerVatId || facts.taxRepVatId) && facts.buyerVatId;
      need = "the seller's VAT identifier (BT-31) or the tax representative's (BT-63), and the buyer's VAT identifier (BT-48)";
      break;
    case "O":
      idsOk = !facts.sellerVatId && !facts.taxRepVatId && !facts.buyerVatId;
      need = "";
      break;
  }
  // -02: //cac:ClassifiedTaxCategory[code][VAT]; S's closing not(exists(...)) omits the VAT scheme.
  identifierRule(cat, idsOk, need, 0, coded(facts.classified, code, true) > 0, coded(facts.classified, code, code !== "S") > 0, node, report);
  // -03 / -04: //cac:AllowanceCharge[false / true]/cac:TaxCategory[code][VAT] (for O: the root's own only).
  // G tests the first exists() without the VAT scheme; AF-04 tests its closing not(exists()) on the raw ID.
  const docOnly = code === "O", firstVat = code !== "G";
  for (const charge of ALLOWANCE_THEN_CHARGE) {
    const guard = code === "L" && charge ? codedRaw(acCategories(facts, charge, docOnly), code, true) : codedAc(facts, charge, docOnly, code, true);
    identifierRule(cat, idsOk, need, charge ? 2 : 1, codedAc(facts, charge, docOnly, code, firstVat) > 0, guard > 0, node, report);
  }
}

/** BR-x-02 (i = 0), -03 (1), -04 (2): broken when the category is used (`guard`) without the identifiers it needs. */
function identifierRule(cat: Category, idsOk: boolean, need: string, i: number, first: boolean, guard: boolean, node: DocumentNode, report: Report): void {
  if ((first && idsOk) || !guard) return;
  report(`${cat.prefix}-0${i + 2}`, cat.code === "O"
    ? `The invoice has ${WHAT[i]} of VAT category O (not subject to VAT), so it cannot have a VAT identifier for the seller (BT-31), the tax representative (BT-63) or the buyer (BT-48).`
    : `The invoice has ${WHAT[i]} of VAT category ${cat.name}, so it needs ${need}.`, node);
}

const ALLOWANCE_THEN_CHARGE = [false, true] as const;

/** What BR-x-02, -03 and -04 are about, in their order. */
const WHAT = ["lines (BG-25)", "document level allowances (BG-20)", "document level charges (BG-21)"] as const;

// ---------------------------------------------------------------------------------------------------------
// Contexts cac:InvoiceLine/cac:Item/cac:ClassifiedTaxCategory (-05) and
// cac:AllowanceCharge[cbc:ChargeIndicator=false()|true()]/cac:TaxCategory (-06 / -07), with the VAT scheme.
function lineAndAllowanceRates(root: DocumentNode, report: Report): void {
  for (const classifiedTaxCategory of all(root, "cac:ClassifiedTaxCategory")) {
    if (!hasParents(classifiedTaxCategory, "cac:Item") || !isLine(classifiedTaxCategory.parent!.parent) || !isVat(classifiedTaxCategory)) continue;
    const cat = byCode.get(categoryCode(classifiedTaxCategory));
    if (cat) rateRule(cat, "-05", classifiedTaxCategory, `an invoice line's item (BT-152)`, report);
  }
  for (const taxCategory of all(root, "cac:TaxCategory")) {
    const ac = taxCategory.parent;
    if (!ac || ac.qname !== "cac:AllowanceCharge" || !isVat(taxCategory)) continue;
    const charge = chargeIndicator(ac);
    if (charge === null) continue;
    const cat = byCode.get(categoryCode(taxCategory));
    if (cat) rateRule(cat, charge ? "-07" : "-06", taxCategory, charge ? "a document level charge (BT-103)" : "a document level allowance (BT-96)", report);
  }
}

const byCode = new Map<string, Category>(CATEGORIES.map((category) => [category.code, category]));

function rateRule(cat: Category, suffix: string, node: DocumentNode, where: string, report: Report): void {
  const percentEl = child(node, "cbc:Percent");
  const rate = decAt(node, "cbc:Percent");
  const rule = cat.prefix + suffix;
  switch (cat.code) {
    case "S": // (cbc:Percent) > 0
      if (!(rate !== null && rate.gt(ZERO))) report(rule, `The VAT rate of ${where}, of VAT category S (standard rated), must be more than 0; ${percentEl ? `it is ${show(rate)}` : "it has none"}.`, node);
      break;
    case "L": case "M": // (cbc:Percent) >= 0
      if (!(rate !== null && rate.gte(ZERO))) report(rule, `The VAT rate of ${where}, of VAT category ${cat.name}, must be 0 or more; ${percentEl ? `it is ${show(rate)}` : "it has none"}.`, node);
      break;
    case "O": // not(cbc:Percent)
      if (percentEl) report(rule, `The VAT rate of ${where} must not be given for VAT category O (not subject to VAT); it is ${show(rate)}.`, node);
      break;
    default: // xs:decimal(cbc:Percent) = 0
      if (!(rate !== null && rate.eq(ZERO))) report(rule, `The VAT rate of ${where}, of VAT category ${cat.name}, must be 0; ${percentEl ? `it is ${show(rate)}` : "it has none"}.`, node);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Context /*/cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory[code][VAT]: -08, -09, -10.
/** TaxableAmount - 1 < amount < TaxableAmount + 1, in the official rules' xs:double arithmetic (see xpathDoubleShift). */
function near(taxable: Decimal | null, amount: Decimal): boolean {
  return taxable !== null && xpathDoubleShift(taxable, -1).lt(amount) && xpathDoubleShift(taxable, 1).gt(amount);
}

function breakdownRules(root: DocumentNode, report: Report): void {
  for (const taxCategory of select(root, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory")) {
    if (!isVat(taxCategory)) continue;
    const cat = byCode.get(categoryCode(taxCategory));
    if (!cat) continue;
    const sub = taxCategory.parent!;
    const taxable = decAt(sub, "cbc:TaxableAmount"), taxAmount = decAt(sub, "cbc:TaxAmount");
    const tolerant = cat.code === "S" || cat.code === "L" || cat.code === "M";

    if (tolerant) {
      // -08: every $rate in xs:decimal(cbc:Percent) satisfies TaxableAmount - 1 < Σ < TaxableAmount + 1, with Σ over
      // the lines, charges and allowances of the category at that rate (for S, one of them must exist).
      const rate = decAt(taxCategory, "cbc:Percent");
      if (child(taxCategory, "cbc:Percent") && rate !== null) {
        const inv = categorySum(root, "cac:InvoiceLine", cat.code, rate), cn = categorySum(root, "cac:CreditNoteLine", cat.code, rate);
        let ok: boolean;
        if (cat.code === "S") {
          // //cac:AllowanceCharge / //cac:InvoiceLine / //cac:CreditNoteLine of category S at the rate, from the per-document index.
          const index = categorySums(root), key = rateKey(rate);
          const acAtRate = index.sAllowanceRates.has(key);
          const invoiceLineAtRate = index.sLineRates.get("cac:InvoiceLine")!.has(key), creditNoteLineAtRate = index.sLineRates.get("cac:CreditNoteLine")!.has(key);
          ok = ((invoiceLineAtRate || acAtRate) && near(taxable, inv)) || ((creditNoteLineAtRate || acAtRate) && near(taxable, cn));
        } else {
          ok = (all(root, "cac:InvoiceLine").length > 0 && near(taxable, inv)) || (all(root, "cac:CreditNoteLine").length > 0 && near(taxable, cn));
        }
        if (!ok) {
          const creditNote = all(root, "cac:CreditNoteLine").length > 0 && all(root, "cac:InvoiceLine").length === 0;
          const amount = creditNote ? cn : inv;
          const made = partsOf(root, creditNote ? "cac:CreditNoteLine" : "cac:InvoiceLine", cat.code, rate);
          report(`${cat.prefix}-08`, `The VAT breakdown of category ${cat.name} at ${show(rate)}% has ${taxable ? `the taxable amount (BT-116) ${money(taxable)}` : "no taxable amount (BT-116)"}, but the lines, charges and allowances at that category and rate add up to ${money(amount)}${made}.`, taxCategory);
        }
      }
      // -09: |TaxAmount| - 1 < round(|TaxableAmount| * Percent / 100, 2) < |TaxAmount| + 1
      const pct = decAt(taxCategory, "cbc:Percent");
      const expected = taxable !== null && pct !== null ? round2(taxable.abs().times(pct.div(HUNDRED))) : null;
      const ok9 = taxAmount !== null && expected !== null && taxAmount.abs().minus(ONE).lt(expected) && taxAmount.abs().plus(ONE).gt(expected);
      if (!ok9) {
        const missing = [taxAmount ? "" : "VAT amount (BT-117)", taxable ? "" : "taxable amount (BT-116)", pct ? "" : "VAT rate (BT-119)"].filter(Boolean);
        report(`${cat.prefix}-09`, missing.length
          ? `The VAT breakdown of category ${cat.name} has no ${missing.join(", no ")}, so its VAT amount cannot be checked.`
          : `The VAT breakdown of category ${cat.name} has the VAT amount (BT-117) ${money(taxAmount)}, but the taxable amount (BT-116) ${money(taxable)} at ${show(pct)}% gives ${money(expected)}.`, taxCategory);
      }
      // -10: no exemption reason.
      if (exists(taxCategory, "cbc:TaxExemptionReason") || exists(taxCategory, "cbc:TaxExemptionReasonCode")) {
        report(`${cat.prefix}-10`, `The VAT breakdown of category ${cat.name} cannot have a VAT exemption reason (BT-120) or reason code (BT-121).`, taxCategory);
      }
      continue;
    }

    // -08: (exists(//cac:InvoiceLine) and TaxableAmount = Σ) or (exists(//cac:CreditNoteLine) and TaxableAmount = Σ),
    // Σ over the lines, charges and allowances of the category (any rate).
    const inv = categorySum(root, "cac:InvoiceLine", cat.code, null), cn = categorySum(root, "cac:CreditNoteLine", cat.code, null);
    const ok8 = (all(root, "cac:InvoiceLine").length > 0 && eq(taxable, inv)) || (all(root, "cac:CreditNoteLine").length > 0 && eq(taxable, cn));
    if (!ok8) {
      const creditNote = all(root, "cac:CreditNoteLine").length > 0 && all(root, "cac:InvoiceLine").length === 0;
      const amount = creditNote ? cn : inv;
      const made = partsOf(root, creditNote ? "cac:CreditNoteLine" : "cac:InvoiceLine", cat.code, null);
      report(`${cat.prefix}-08`, `The VAT breakdown of category ${cat.name} has ${taxable ? `the taxable amount (BT-116) ${money(taxable)}` : "no taxable amount (BT-116)"}, but the lines, charges and allowances of that category add up to ${money(amount)}${made}.`, taxCategory);
    }
    // -09: the VAT amount is 0.
    if (!eq(taxAmount, ZERO)) report(`${cat.prefix}-09`, `The VAT breakdown of category ${cat.name} must have the VAT amount (BT-117) 0; ${taxAmount ? `it is ${money(taxAmount)}` : "it has none"}.`, taxCategory);
    // -10: Z must not have an exemption reason; AE, E, G, K and O must have one.
    const hasReason = exists(taxCategory, "cbc:TaxExemptionReason") || exists(taxCategory, "cbc:TaxExemptionReasonCode");
    if (cat.code === "Z" ? hasReason : !hasReason) {
      report(`${cat.prefix}-10`, cat.code === "Z"
        ? `The VAT breakdown of category ${cat.name} cannot have a VAT exemption reason (BT-120) or reason code (BT-121).`
        : `The VAT breakdown of category ${cat.name} needs a VAT exemption reason (BT-120) or reason code (BT-121).`, taxCategory);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// The -08 sums, computed once per document: one pass over the lines, allowances and charges files each amount
// under every (category code, rate) it matches, so that n breakdowns over n lines cost n + n, not n × n.

/**
 * What one line, allowance or charge matches: its category codes and its rates (as `rateKey`s). The Schematron
 * tests them independently: some category is `code` and some category has the rate.
 */
interface Matched { codes: Set<string>; rates: Set<string> }

interface CategorySums {
  /** Σ by kind ("cac:InvoiceLine", "cac:CreditNoteLine") and `code` or `code rate`. */
  sums: Map<string, Decimal>;
  /**
   * What makes up each Σ, for the message: the first PARTS_SHOWN parts and how many there are. A part is
   * put into words ("line 3: 100.00") only when a message names it (see partsOf), not for every line.
   */
  parts: Map<string, { shown: Part[]; count: number }>;
  /** The `S rate` keys some //cac:AllowanceCharge matches, and those some line of each kind matches (any depth). */
  sAllowanceRates: Set<string>;
  sLineRates: Map<string, Set<string>>;
}

/** Equal decimals get the same key (5, 5.00 and +5 are "5"; -0 is "0"). */
const rateKey = (amount: Decimal): string => (amount.eq(ZERO) ? "0" : amount.toFixed());

const matchedOf = (categories: DocumentNode[]): Matched => {
  const codes = new Set<string>(), rates = new Set<string>();
  for (const category of categories) {
    codes.add(categoryCode(category));
    const amount = decAt(category, "cbc:Percent");
    if (amount !== null) rates.add(rateKey(amount));
  }
  return { codes, rates };
};

const SUMS = Symbol("VAT category sums");

function categorySums(root: DocumentNode): CategorySums {
  return memoOn(root, SUMS, computeCategorySums);
}

type Parts = Map<string, { shown: Part[]; count: number }>;

/** Adds an amount (a line's, or an allowance's or charge's) to the sums of each category (and rate) it matched, of one kind of line. */
function fileAmount(sums: Map<string, Decimal>, parts: Parts, kind: string, matched: Matched, amount: Decimal, negate: boolean, node: DocumentNode, charge: boolean | null): void {
  for (const code of matched.codes) {
    if (!byCode.has(code)) continue;
    const keys = [code];
    for (const rate of matched.rates) keys.push(`${code} ${rate}`);
    for (const k of keys) {
      const key = `${kind}|${k}`;
      const value = sums.get(key) ?? ZERO;
      sums.set(key, negate ? value.minus(amount) : value.plus(amount));
      let found = parts.get(key);
      if (!found) parts.set(key, (found = { shown: [], count: 0 }));
      if (found.count++ < PARTS_SHOWN) found.shown.push({ node, charge, amount, negate });
    }
  }
}

/** The S rates of the categories of `list`'s elements. */
function sRates(list: readonly DocumentNode[], categoriesOf: (node: DocumentNode) => DocumentNode[]): Set<string> {
  const out = new Set<string>();
  for (const node of list) {
    const matched = matchedOf(categoriesOf(node));
    if (matched.codes.has("S")) for (const text of matched.rates) out.add(text);
  }
  return out;
}

function lineCategories(node: DocumentNode): DocumentNode[] {
  return select(node, "cac:Item/cac:ClassifiedTaxCategory");
}

function acCategoriesOf(ac: DocumentNode): DocumentNode[] {
  return children(ac, "cac:TaxCategory");
}

function computeCategorySums(root: DocumentNode): CategorySums {
  const sums = new Map<string, Decimal>();
  const parts: Parts = new Map();
  // Only the nine category codes are ever asked for (fileAmount).
  for (const kind of LINE_KINDS) {
    for (const node of children(root, kind)) {
      const amount = decAt(node, "cbc:LineExtensionAmount");
      if (amount !== null) fileAmount(sums, parts, kind, matchedOf(select(node, "cac:Item/cac:ClassifiedTaxCategory")), amount, false, node, null);
    }
  }
  for (const ac of children(root, "cac:AllowanceCharge")) {
    const charge = chargeIndicator(ac), amount = decAt(ac, "cbc:Amount");
    if (charge === null || amount === null) continue;
    const matched = matchedOf(children(ac, "cac:TaxCategory"));
    for (const kind of LINE_KINDS) fileAmount(sums, parts, kind, matched, amount, !charge, ac, charge);
  }
  const result: CategorySums = {
    sums,
    parts,
    sAllowanceRates: sRates(all(root, "cac:AllowanceCharge"), acCategoriesOf),
    sLineRates: new Map(LINE_KINDS.map((kind) => [kind, sRates(all(root, kind), lineCategories)])),
  };
  return result;
}

const LINE_KINDS = ["cac:InvoiceLine", "cac:CreditNoteLine"] as const;

/** At most this many parts of a sum are named in a message. */
const PARTS_SHOWN = 10;

/** " (line 1: 100.00, line 3: 50.00, document allowance 1: -10.00)", or the note that nothing has the category. */
function partsOf(root: DocumentNode, lineQ: (typeof LINE_KINDS)[number], code: string, rate: Decimal | null): string {
  const found = categorySums(root).parts.get(`${lineQ}|${rate === null ? code : `${code} ${rateKey(rate)}`}`);
  if (!found) return " (no line, document allowance or charge has that category" + (rate === null ? "" : " and rate") + ")";
  return ` (${found.shown.map(partText).join(", ")}${found.count > found.shown.length ? `, and ${found.count - found.shown.length} more` : ""})`;
}

/** One part of a Σ: a line's net amount (charge null), or a document allowance or charge. */
interface Part {
  node: DocumentNode;
  charge: boolean | null;
  amount: Decimal;
  negate: boolean;
}

/** "line 3: 100.00", "document allowance 1: -10.00". */
function partText({ node, charge, amount, negate }: Part): string {
  let label: string;
  if (charge === null) {
    const id = norm(child(node, "cbc:ID"));
    label = `line ${id === "" ? `#${node.index}` : id}`;
  } else label = `document ${charge ? "charge" : "allowance"} ${node.index}`;
  return `${label}: ${negate ? "-" : ""}${money(amount)}`;
}

/**
 * Σ line net amounts (lines of kind `lineQ`, children of the root) + Σ document charges - Σ document allowances
 * whose category is `code` (and whose rate is `rate`, when given). No VAT scheme test, as published.
 */
function categorySum(root: DocumentNode, lineQ: (typeof LINE_KINDS)[number], code: string, rate: Decimal | null): Decimal {
  return categorySums(root).sums.get(`${lineQ}|${rate === null ? code : `${code} ${rateKey(rate)}`}`) ?? ZERO;
}

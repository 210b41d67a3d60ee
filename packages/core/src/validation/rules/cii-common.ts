// Shared reading helpers of the CEN CII model families (cii-business, cii-vat): the XPath idioms of the official CII
// Schematron 1.3.16 (cii/schematron/preprocessed/EN16931-CII-validation-preprocessed.sch, pattern EN16931-CII-Model),
// written once so each rule reads like its assertion: string and numeric general comparisons, the charge indicator
// read three ways, the VAT type test, and the xs:double arithmetic the rules do on untyped elements.
import { lit, round2, sum, type Decimal } from "../decimal.js";
import { NS, children, memoOn, select, stringValue, xmlTrim, type DocumentNode } from "../../document/model.js";
import { all, decOf } from "./cen-common.js";

export const SCTT = "rsm:SupplyChainTradeTransaction";
export const AHTS = "ram:ApplicableHeaderTradeSettlement";
export const AHTA = "ram:ApplicableHeaderTradeAgreement";
export const SLTS = "ram:SpecifiedLineTradeSettlement";
export const LINE = "ram:IncludedSupplyChainTradeLineItem";
export const STAC = "ram:SpecifiedTradeAllowanceCharge";

/** The Schematron context `/rsm:CrossIndustryInvoice`: the root in the CII namespace. */
export function isCiiRoot(node: DocumentNode): boolean {
  return node.parent === null && node.ns === NS.rsm && node.name === "CrossIndustryInvoice";
}

/** `/rsm:CrossIndustryInvoice/<path>`: the nodes at a path from the root, none when the root is not CII's. */
export function fromRoot(root: DocumentNode, path: string): DocumentNode[] {
  return isCiiRoot(root) ? select(root, path) : [];
}

/** The parent, grandparent, ... have these qnames (`hasParents(n, "ram:X", "ram:Y")`: n is a child of ram:X, a child of ram:Y). */
export function under(node: DocumentNode, ...qnames: string[]): boolean {
  let element = node.parent;
  for (const q of qnames) {
    if (!element || element.qname !== q) return false;
    element = element.parent;
  }
  return true;
}

/** `string(node)`: the string value as written (not normalised), "" for none. */
export const sv = (node: DocumentNode | null | undefined): string => (node ? stringValue(node) : "");

/** `path = 'value'` on untyped nodes: some node's string value is exactly `value` (no whitespace normalised). */
export const someIs = (nodes: readonly DocumentNode[], value: string): boolean => nodes.some((n) => stringValue(n) === value);

/** `ram:CategoryCode = 'code'` on a tax element: some CategoryCode child is exactly the code. */
export const categoryIs = (tax: DocumentNode, code: string): boolean => someIs(children(tax, "ram:CategoryCode"), code);

/**
 * `upper-case(ram:TypeCode) = 'VAT'` (in a context predicate): exactly one TypeCode whose upper-cased value is VAT
 * (none gives '', two are a type error, which in a match pattern is no match). `normalized` adds normalize-space.
 */
export function typeIsVat(tax: DocumentNode, normalized = false): boolean {
  const codes = children(tax, "ram:TypeCode");
  if (codes.length !== 1) return false;
  const text = stringValue(codes[0]).toUpperCase();
  return (normalized ? xmlTrim(text).replace(/[ \t\r\n]+/g, " ") : text) === "VAT";
}

// xs:double lexical form (XML Schema): a decimal with an optional exponent, INF, -INF, +INF, NaN.
const DOUBLE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** An untyped value cast to xs:double (XML whitespace trimmed), or null when it is not one (an XPath dynamic error). */
export function xsDouble(text: string): number | null {
  const t = xmlTrim(text);
  if (DOUBLE.test(t)) return Number(t);
  if (t === "INF" || t === "+INF") return Infinity;
  if (t === "-INF") return -Infinity;
  if (t === "NaN") return NaN;
  return null;
}

/** An xs:decimal promoted to xs:double (the nearest double), for a comparison with a double. */
export const toDouble = (d: Decimal): number => Number(d.toString());

/** `nodes op number` (general comparison of untyped nodes with a number): some node cast to xs:double satisfies it. */
export function someNumber(nodes: readonly DocumentNode[], test: (value: number) => boolean): boolean {
  return nodes.some((n) => {
    const d = xsDouble(stringValue(n));
    return d !== null && test(d);
  });
}

/** XPath round() on an xs:double: the nearest integer, halves towards positive infinity (as Math.round). */
export const roundDouble = (x: number): number => Math.round(x);

/**
 * `sum(nodes)` of untyped nodes: each cast to xs:double and added in document order (xs:double arithmetic), 0 for
 * none; null when one is not a number (the official rules stop there).
 */
export function doubleSum(nodes: readonly DocumentNode[]): number | null {
  let s = 0;
  for (const n of nodes) {
    const d = xsDouble(stringValue(n));
    if (d === null) return null;
    s += d;
  }
  return s;
}

/** `round(sum(nodes) * 10 * 10) div 100` in xs:double arithmetic, as BR-CO-11, BR-CO-12 and BR-CO-14 compute. */
export function doubleSumRounded(nodes: readonly DocumentNode[]): number | null {
  const s = doubleSum(nodes);
  return s === null ? null : roundDouble(s * 10 * 10) / 100;
}

/** An xs:double cast to xs:decimal, by its shortest decimal form (as the official engine casts); null for INF and NaN. */
export const doubleToDecimal = (x: number): Decimal | null => (Number.isFinite(x) ? lit(String(x)) : null);

/** `xs:decimal(node)` when exactly one node; null for none, two or more, or a non-decimal (empty, or a dynamic error). */
export function singleDec(nodes: readonly DocumentNode[]): Decimal | null {
  return nodes.length === 1 ? decOf(nodes[0]) : null;
}

/** `xs:boolean` cast of an untyped value: "true"/"1", "false"/"0" (whitespace collapsed), else null (an error). */
export function xsBoolean(text: string): boolean | null {
  const t = xmlTrim(text);
  if (t === "true" || t === "1") return true;
  if (t === "false" || t === "0") return false;
  return null;
}

/** `ram:ChargeIndicator[udt:Indicator = 'text']`-style string test on one ChargeIndicator element. */
export const indicatorText = (chargeIndicator: DocumentNode, text: "true" | "false"): boolean =>
  someIs(children(chargeIndicator, "udt:Indicator"), text);

/**
 * `ram:ChargeIndicator/udt:Indicator = true()` / `= false()` on an allowance or charge: some indicator cast to
 * xs:boolean equals `value` (one that is not a boolean is an error: taken as no match).
 */
export function indicatorIs(allowanceCharge: DocumentNode, value: boolean): boolean {
  return select(allowanceCharge, "ram:ChargeIndicator/udt:Indicator").some((i) => xsBoolean(stringValue(i)) === value);
}

/** `(ram:ChargeIndicator/udt:Indicator cast as xs:boolean) = value`: exactly one indicator, a boolean equal to `value`. */
export function indicatorCastIs(allowanceCharge: DocumentNode, value: boolean): boolean {
  const indicators = select(allowanceCharge, "ram:ChargeIndicator/udt:Indicator");
  return indicators.length === 1 && xsBoolean(stringValue(indicators[0])) === value;
}

/** How a VAT sum reads the charge indicator: `= true()` (most) or `cast as xs:boolean` (BR-Z-08, BR-O-08). */
export type IndicatorStyle = "compare" | "cast";

/** Every document level allowance or charge: `/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradeAllowanceCharge`. */
export const documentAllowanceCharges = (root: DocumentNode): DocumentNode[] => fromRoot(root, `${SCTT}/${AHTS}/${STAC}`);

/** `xs:decimal(ram:RateApplicablePercent) = $rate` on some of the tax elements (each with exactly one rate). */
function someRate(taxes: readonly DocumentNode[], rate: Decimal): boolean {
  return taxes.some((t) => {
    const r = singleDec(children(t, "ram:RateApplicablePercent"));
    return r !== null && r.eq(rate);
  });
}

/** One part of a VAT category's sum: the amounts added up, with what they are for a message. */
export interface SumPart {
  total: Decimal;
  items: SumItem[];
}

/** One amount of a sum; its label ("line 7", "charge") is made only for a message (`labelOf`). */
export interface SumItem {
  amount: Decimal;
  /** The line's ram:IncludedSupplyChainTradeLineItem, or null for a document level allowance or charge. */
  line: DocumentNode | null;
  kind: "line" | "charge" | "allowance";
}

/** What a message calls an amount of a sum: the line by its id (BT-126), or the allowance or charge. */
export function labelOf(item: SumItem): string {
  if (item.kind !== "line") return item.kind;
  const id = xmlTrim(sv(select(item.line, "ram:AssociatedDocumentLineDocument/ram:LineID")[0]));
  return id ? `line ${id}` : "a line";
}

/**
 * `round(sum(<lines of the category [and rate]>/ram:SpecifiedTradeSettlementLineMonetarySummation/xs:decimal(ram:LineTotalAmount)) * 10 * 10) div 100`
 * over `/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeSettlement`.
 */
export function lineSum(root: DocumentNode, code: string, rate?: Decimal): SumPart {
  const items: SumPart["items"] = [];
  for (const l of lineTaxes(root)) {
    if (!l.codes.includes(code)) continue;
    if (rate !== undefined && !l.rates.some((r) => r.eq(rate))) continue;
    for (const item of l.items) items.push(item);
  }
  return { total: round2(sum(items.map((i) => i.amount))), items };
}

/** What lineSum reads of one line's settlement, read once per document (a sum is asked for each category and rate). */
interface LineTaxes {
  /** The string values of every ram:ApplicableTradeTax/ram:CategoryCode (`categoryIs` on some tax element). */
  readonly codes: readonly string[];
  /** `xs:decimal(ram:RateApplicablePercent)` of each tax element with exactly one rate (`someRate`). */
  readonly rates: readonly Decimal[];
  /** Each ram:SpecifiedTradeSettlementLineMonetarySummation's single ram:LineTotalAmount that is a decimal. */
  readonly items: readonly SumItem[];
}

const LINE_TAXES = Symbol("the CII lines' VAT sums");

function lineTaxes(root: DocumentNode): readonly LineTaxes[] {
  return memoOn(root, LINE_TAXES, (r) =>
    fromRoot(r, `${SCTT}/${LINE}/${SLTS}`).map((settlement): LineTaxes => {
      const taxes = children(settlement, "ram:ApplicableTradeTax");
      const codes: string[] = [], rates: Decimal[] = [], items: SumItem[] = [];
      for (const t of taxes) {
        for (const c of children(t, "ram:CategoryCode")) codes.push(stringValue(c));
        const r = singleDec(children(t, "ram:RateApplicablePercent"));
        if (r !== null) rates.push(r);
      }
      for (const summation of children(settlement, "ram:SpecifiedTradeSettlementLineMonetarySummation")) {
        const amount = singleDec(children(summation, "ram:LineTotalAmount"));
        if (amount !== null) items.push({ amount, line: settlement.parent, kind: "line" });
      }
      return { codes, rates, items };
    }),
  );
}

/**
 * `round(sum(<document level allowances or charges of the category [and rate]>/xs:decimal(ram:ActualAmount[1])) * 10 * 10) div 100`:
 * charges when `charge`, allowances otherwise; the indicator read as `style` says.
 */
export function allowanceChargeSum(root: DocumentNode, code: string, charge: boolean, style: IndicatorStyle, rate?: Decimal): SumPart {
  const items: SumPart["items"] = [];
  for (const ac of documentAllowanceCharges(root)) {
    if (!(style === "cast" ? indicatorCastIs(ac, charge) : indicatorIs(ac, charge))) continue;
    const taxes = children(ac, "ram:CategoryTradeTax");
    if (!taxes.some((t) => categoryIs(t, code))) continue;
    if (rate !== undefined && !someRate(taxes, rate)) continue;
    const amount = decOf(children(ac, "ram:ActualAmount")[0]);
    if (amount !== null) items.push({ amount, line: null, kind: charge ? "charge" : "allowance" });
  }
  return { total: round2(sum(items.map((i) => i.amount))), items };
}

/**
 * What a VAT category's lines, charges and allowances add up to (lines + charges - allowances, each rounded), and the
 * parts for a message (`parts()`, made only when a rule reports: most sums agree).
 */
export function categorySum(root: DocumentNode, code: string, style: IndicatorStyle, rate?: Decimal): { total: Decimal; parts: () => string } {
  const lines = lineSum(root, code, rate), charges = allowanceChargeSum(root, code, true, style, rate), allowances = allowanceChargeSum(root, code, false, style, rate);
  const parts = (): string => {
    const items = [...lines.items, ...charges.items, ...allowances.items];
    const shown = items.slice(0, 10).map((i) => `${labelOf(i)}: ${(i.kind === "allowance" ? i.amount.neg() : i.amount).toFixed()}`);
    if (items.length > 10) shown.push(`and ${items.length - 10} more`);
    return shown.length ? ` (${shown.join(", ")})` : " (nothing of that category)";
  };
  return { total: lines.total.plus(charges.total).minus(allowances.total), parts };
}

/** The seller's VAT identifier (schemeID VA) or tax registration (FC), or the tax representative's VAT identifier, at the document's own paths. */
export function sellerVatOrTaxRegistration(root: DocumentNode): boolean {
  return fromRoot(root, `${SCTT}/${AHTA}/ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID`).some((i) => i.attrs.schemeID === "VA" || i.attrs.schemeID === "FC") ||
    fromRoot(root, `${SCTT}/${AHTA}/ram:SellerTaxRepresentativeTradeParty/ram:SpecifiedTaxRegistration/ram:ID`).some((i) => i.attrs.schemeID === "VA");
}

/** `//<party>/ram:SpecifiedTaxRegistration/ram:ID[@schemeID = one of schemes]`: any such party anywhere in the document. */
export function anyPartyTaxId(root: DocumentNode, party: string, ...schemes: string[]): boolean {
  return all(root, party).some((p) => select(p, "ram:SpecifiedTaxRegistration/ram:ID").some((i) => i.attrs.schemeID !== undefined && schemes.includes(i.attrs.schemeID)));
}

/**
 * BR-CO-09's list as the CII model writes it (cii/schematron/CII/EN16931-CII-model.sch 1.3.16): ISO 3166-1 alpha-2 codes,
 * EL and XI, tested as ` XX ` within it. It differs from the UBL model's list (AN here, no SS).
 */
export const CII_VAT_PREFIX_LIST =
  " 1A AD AE AF AG AI AL AM AN AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BL BJ" +
  " BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX" +
  " CY CZ DE DJ DK DM DO DZ EC EE EG EH EL ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG" +
  " GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS" +
  " IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA" +
  " MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI" +
  " NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA" +
  " SB SC SD SE SG SH SI SJ SK SL SM SN SO SR ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM" +
  " TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XI YE YT ZA ZM ZW ";

/**
 * Which rule of the VAT family a header `ram:ApplicableTradeTax` falls to before the generic breakdown rule (BR-45 ...):
 * the IGIC (L), IPSI (M) and not subject to VAT (O) rules take the tax element itself as their context, so in the
 * Schematron's first-match order such a breakdown never reaches BR-45, BR-46, BR-47, BR-48, BR-CO-03, BR-CO-17 or
 * BR-DEC-19/20. The other categories' rules take its ram:CategoryCode and leave the tax element to them.
 */
export function headerTaxCategoryRule(tax: DocumentNode): "L" | "M" | "O" | null {
  if (!under(tax, AHTS, SCTT) || !typeIsVat(tax)) return null;
  for (const code of ["L", "M", "O"] as const) if (categoryIs(tax, code)) return code;
  return null;
}

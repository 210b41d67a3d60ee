// The totals of an InvoiceData, ours: line net amounts (BT-131), document totals (BT-106..115) and the
// VAT breakdown (BG-23) in exact decimal arithmetic, rounded half away from zero to 2 decimals.
import Big from "big.js";
import type { InvoiceData, InvoiceLine, LineAllowanceCharge, VatCategory } from "./invoice-data.js";

/** Half away from zero to 2 decimals (EN 16931 amounts). Inputs are bounded by the schema (15 integer digits). */
export function round2(x: Big): Big {
  return x.round(2, Big.roundHalfUp);
}

/** The canonical text of an amount: exactly 2 decimals. */
export function money(x: Big): string {
  return round2(x).toFixed(2);
}

/** A rate or percentage in its shortest form ("21.00" -> "21"), for grouping. */
export function rateKey(rate: string | undefined): string {
  return rate === undefined ? "" : new Big(rate).toString();
}

export interface ComputedAllowanceCharge {
  /** The amount (given, or percent x baseAmount / 100 rounded). */
  amount: Big;
}

export interface ComputedLine {
  net: Big;
  allowances: Big[];
  charges: Big[];
  /** grossPrice - price, when a gross price is given. */
  priceDiscount: Big | null;
}

export interface VatGroup {
  category: VatCategory;
  /** The rate as written in the breakdown (shortest form); undefined for O. */
  rate: string | undefined;
  taxable: Big;
  tax: Big;
  /** The first line (index) or document allowance/charge carrying this category and rate, for error paths. */
  firstLine: number | null;
}

export interface ComputedTotals {
  lines: ComputedLine[];
  allowances: Big[];
  charges: Big[];
  lineTotal: Big;
  allowanceTotal: Big;
  chargeTotal: Big;
  taxExclusive: Big;
  vatTotal: Big;
  /** BT-111, when a VAT accounting currency is given. */
  vatTotalAccounting: Big | null;
  taxInclusive: Big;
  paid: Big | null;
  rounding: Big | null;
  payable: Big;
  vat: VatGroup[];
}

function acAmount(ac: { amount?: string | undefined; percent?: string | undefined; baseAmount?: string | undefined }): Big {
  if (ac.amount !== undefined) return new Big(ac.amount);
  return round2(new Big(ac.baseAmount!).times(ac.percent!).div(100));
}

function sum(values: readonly Big[]): Big {
  let s = new Big(0);
  for (const v of values) s = s.plus(v);
  return s;
}

/** One line's amounts (what computeTotals gives for it in `lines`), for a writer that needs only those of a line. */
export function lineNet(line: InvoiceLine): ComputedLine {
  const allowances = (line.allowances ?? []).map(acAmount);
  const charges = (line.charges ?? []).map(acAmount);
  const base = line.priceBaseQuantity === undefined ? null : new Big(line.priceBaseQuantity);
  let gross = new Big(line.quantity).times(line.price);
  if (base !== null) gross = gross.div(base);
  const net = round2(gross.plus(sum(charges)).minus(sum(allowances)));
  const priceDiscount = line.grossPrice === undefined ? null : new Big(line.grossPrice).minus(line.price);
  return { net, allowances, charges, priceDiscount };
}

// The totals of a parsed InvoiceData, computed once: the schema's check computes them, the writer reuses them.
// They are kept on the object itself, under a symbol and not enumerable (JSON and equality never see them): a
// WeakMap keyed by each request's data would keep every one alive through V8's young-generation collections.
const TOTALS = Symbol("computed totals");

/** Computes every amount the service writes. Pure; never a float. Computed once per parsed object. */
export function computeTotals(data: InvoiceData): ComputedTotals {
  const kept = (data as { [TOTALS]?: ComputedTotals })[TOTALS];
  if (kept !== undefined) return kept;
  const t = compute(data);
  if (Object.isExtensible(data)) Object.defineProperty(data, TOTALS, { value: t, enumerable: false });
  return t;
}

function compute(data: InvoiceData): ComputedTotals {
  const lines = data.lines.map(lineNet);
  const allowances = (data.allowances ?? []).map(acAmount);
  const charges = (data.charges ?? []).map(acAmount);
  const groups = new Map<string, VatGroup>();
  const group = (category: VatCategory, rate: string | undefined, line: number | null): VatGroup => {
    const key = `${category}|${rateKey(rate)}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { category, rate: rate === undefined ? undefined : rateKey(rate), taxable: new Big(0), tax: new Big(0), firstLine: line }));
    return g;
  };
  data.lines.forEach((l, i) => {
    const g = group(l.vat.category, l.vat.rate, i);
    g.taxable = g.taxable.plus(lines[i]!.net);
  });
  (data.allowances ?? []).forEach((a, i) => {
    const g = group(a.vat.category, a.vat.rate, null);
    g.taxable = g.taxable.minus(allowances[i]!);
  });
  (data.charges ?? []).forEach((c, i) => {
    const g = group(c.vat.category, c.vat.rate, null);
    g.taxable = g.taxable.plus(charges[i]!);
  });
  const vat = [...groups.values()];
  for (const g of vat) g.tax = g.rate === undefined ? new Big(0) : round2(g.taxable.times(g.rate).div(100));
  const lineTotal = sum(lines.map((l) => l.net));
  const allowanceTotal = sum(allowances);
  const chargeTotal = sum(charges);
  const taxExclusive = lineTotal.minus(allowanceTotal).plus(chargeTotal);
  const vatTotal = sum(vat.map((g) => g.tax));
  const acc = data.vatAccountingCurrency;
  const vatTotalAccounting = acc === undefined ? null : "rate" in acc ? round2(vatTotal.times(acc.rate)) : new Big(acc.vatTotal);
  const taxInclusive = taxExclusive.plus(vatTotal);
  const paid = data.paidAmount === undefined ? null : new Big(data.paidAmount);
  const rounding = data.roundingAmount === undefined ? null : new Big(data.roundingAmount);
  const payable = taxInclusive.minus(paid ?? 0).plus(rounding ?? 0);
  return { lines, allowances, charges, lineTotal, allowanceTotal, chargeTotal, taxExclusive, vatTotal, vatTotalAccounting, taxInclusive, paid, rounding, payable, vat };
}

/** A given value that differs from ours: where (relative to the InvoiceData) and what. */
export interface TotalsProblem {
  path: (string | number)[];
  message: string;
}

/**
 * Compares what the caller sent (`totals`, a line's `netAmount`, an allowance's `amount` beside its
 * percent) with what we computed; each difference names both values.
 */
export function givenTotalsProblems(data: InvoiceData, t: ComputedTotals): TotalsProblem[] {
  const problems: TotalsProblem[] = [];
  const cmp = (path: (string | number)[], given: string | undefined, ours: Big, what: string) => {
    if (given !== undefined && !new Big(given).eq(ours)) problems.push({ path, message: `is ${given}, but ${what} gives ${money(ours)}` });
  };
  const cmpAc = (path: (string | number)[], ac: LineAllowanceCharge) => {
    if (ac.amount !== undefined && ac.percent !== undefined && ac.baseAmount !== undefined)
      cmp([...path, "amount"], ac.amount, round2(new Big(ac.baseAmount).times(ac.percent).div(100)), "percent x baseAmount / 100");
  };
  data.lines.forEach((l, i) => {
    cmp(["lines", i, "netAmount"], l.netAmount, t.lines[i]!.net, "quantity x price / priceBaseQuantity + charges - allowances");
    (l.allowances ?? []).forEach((a, k) => cmpAc(["lines", i, "allowances", k], a));
    (l.charges ?? []).forEach((c, k) => cmpAc(["lines", i, "charges", k], c));
  });
  (data.allowances ?? []).forEach((a, k) => cmpAc(["allowances", k], a));
  (data.charges ?? []).forEach((c, k) => cmpAc(["charges", k], c));
  const g = data.totals;
  if (g) {
    cmp(["totals", "lineTotal"], g.lineTotal, t.lineTotal, "the sum of the line net amounts");
    cmp(["totals", "allowanceTotal"], g.allowanceTotal, t.allowanceTotal, "the sum of the document allowances");
    cmp(["totals", "chargeTotal"], g.chargeTotal, t.chargeTotal, "the sum of the document charges");
    cmp(["totals", "taxExclusive"], g.taxExclusive, t.taxExclusive, "lineTotal - allowanceTotal + chargeTotal");
    cmp(["totals", "vatTotal"], g.vatTotal, t.vatTotal, "the sum of the VAT breakdown");
    cmp(["totals", "taxInclusive"], g.taxInclusive, t.taxInclusive, "taxExclusive + vatTotal");
    cmp(["totals", "payable"], g.payable, t.payable, "taxInclusive - paidAmount + roundingAmount");
    if (g.vatBreakdown) {
      const ours = new Map(t.vat.map((v) => [`${v.category}|${rateKey(v.rate)}`, v]));
      g.vatBreakdown.forEach((b, i) => {
        const v = ours.get(`${b.category}|${rateKey(b.rate)}`);
        if (!v) {
          problems.push({ path: ["totals", "vatBreakdown", i], message: `category ${b.category}${b.rate === undefined ? "" : ` at ${b.rate}%`} is on no line, allowance or charge` });
          return;
        }
        cmp(["totals", "vatBreakdown", i, "taxableAmount"], b.taxableAmount, v.taxable, `the ${b.category} lines, allowances and charges`);
        cmp(["totals", "vatBreakdown", i, "taxAmount"], b.taxAmount, v.tax, "taxableAmount x rate / 100");
      });
      if (g.vatBreakdown.length !== t.vat.length)
        problems.push({ path: ["totals", "vatBreakdown"], message: `has ${g.vatBreakdown.length} entries, but the lines, allowances and charges give ${t.vat.length} (one per category and rate)` });
    }
  }
  return problems;
}

/**
 * The amounts of a document read from another syntax, as it wrote them: every amount the data carries (a line's
 * `netAmount`, an allowance's or charge's `amount`, `totals` and its VAT breakdown) in place of ours, ours only where
 * it carries none. What a conversion writes, so that every value the sender wrote is kept; the rules then judge them
 * (an inconsistent total breaks BR-CO-10 and its kind, not a check of ours). Not cached: `computeTotals` is what
 * data sent to be built gets.
 */
export function totalsAsWritten(data: InvoiceData): ComputedTotals {
  const t = compute(data);
  const given = (v: string | undefined, ours: Big): Big => (v === undefined ? ours : new Big(v));
  const acs = (list: readonly LineAllowanceCharge[] | undefined, ours: Big[]) => (list ?? []).map((ac, i) => given(ac.amount, ours[i]!));
  const lines = data.lines.map((l, i) => {
    const c = t.lines[i]!;
    return { ...c, net: given(l.netAmount, c.net), allowances: acs(l.allowances, c.allowances), charges: acs(l.charges, c.charges) };
  });
  const g = data.totals;
  const breakdown = g?.vatBreakdown;
  const vat: VatGroup[] = breakdown
    ? breakdown.map((b) => {
        const ours = t.vat.find((v) => v.category === b.category && rateKey(v.rate) === rateKey(b.rate));
        return { category: b.category, rate: b.rate === undefined ? undefined : rateKey(b.rate), taxable: new Big(b.taxableAmount), tax: new Big(b.taxAmount), firstLine: ours?.firstLine ?? null };
      })
    : t.vat;
  return {
    ...t,
    lines,
    allowances: acs(data.allowances, t.allowances),
    charges: acs(data.charges, t.charges),
    lineTotal: given(g?.lineTotal, t.lineTotal),
    allowanceTotal: given(g?.allowanceTotal, t.allowanceTotal),
    chargeTotal: given(g?.chargeTotal, t.chargeTotal),
    taxExclusive: given(g?.taxExclusive, t.taxExclusive),
    vatTotal: given(g?.vatTotal, t.vatTotal),
    taxInclusive: given(g?.taxInclusive, t.taxInclusive),
    payable: given(g?.payable, t.payable),
    vat,
  };
}

// The amounts the page shows where the invoice gives none, computed as the core computes them (EN 16931: a line's
// net is quantity x price / base quantity + charges - allowances; VAT per category and rate, rounded half away from
// zero to 2 decimals), in exact decimals (big.js), one line at a time: a 100,000-line invoice is never copied.
// The core's computeTotals is not public; when it is, this file gives way to it.
import Big from "big.js";
import type { InvoiceData } from "@einvoice/core";

type Line = InvoiceData["lines"][number];
type Ac = { amount?: string | undefined; percent?: string | undefined; baseAmount?: string | undefined };

const round2 = (x: Big): Big => x.round(2, Big.roundHalfUp);
const money = (x: Big): string => round2(x).toFixed(2);
const acAmount = (ac: Ac): Big => (ac.amount !== undefined ? new Big(ac.amount) : round2(new Big(ac.baseAmount!).times(ac.percent!).div(100)));

/** A line's net amount (as written when given) and its allowances' and charges' amounts. */
export function lineAmounts(line: Line): { net: string; allowances: string[]; charges: string[] } {
  const allowances = (line.allowances ?? []).map(acAmount);
  const charges = (line.charges ?? []).map(acAmount);
  let net: string;
  if (line.netAmount !== undefined) net = line.netAmount;
  else {
    let gross = new Big(line.quantity).times(line.price);
    if (line.priceBaseQuantity !== undefined) gross = gross.div(line.priceBaseQuantity);
    let x = gross;
    for (const c of charges) x = x.plus(c);
    for (const a of allowances) x = x.minus(a);
    net = money(x);
  }
  return { net, allowances: allowances.map((a) => a.toFixed(2)), charges: charges.map((c) => c.toFixed(2)) };
}

export interface PdfTotals {
  lineTotal: string;
  allowanceTotal: string;
  chargeTotal: string;
  taxExclusive: string;
  vatTotal: string;
  taxInclusive: string;
  payable: string;
  vatBreakdown: Array<{ category: string; rate?: string | undefined; taxableAmount: string; taxAmount: string }>;
  allowances: string[];
  charges: string[];
}

/** The document's totals and VAT breakdown: the invoice's own where it gives them, else computed (one pass over the lines). */
export function documentTotals(data: InvoiceData): PdfTotals {
  const groups = new Map<string, { category: string; rate: string | undefined; taxable: Big }>();
  const add = (category: string, rate: string | undefined, x: Big) => {
    const key = `${category}|${rate === undefined ? "" : new Big(rate).toString()}`;
    const g = groups.get(key);
    if (g) g.taxable = g.taxable.plus(x);
    else groups.set(key, { category, rate: rate === undefined ? undefined : new Big(rate).toString(), taxable: x });
  };
  let lineTotal = new Big(0);
  for (const line of data.lines) {
    const net = new Big(lineAmounts(line).net);
    lineTotal = lineTotal.plus(net);
    add(line.vat.category, line.vat.rate, net);
  }
  const allowances = (data.allowances ?? []).map(acAmount);
  const charges = (data.charges ?? []).map(acAmount);
  (data.allowances ?? []).forEach((a, i) => add(a.vat.category, a.vat.rate, allowances[i]!.times(-1)));
  (data.charges ?? []).forEach((c, i) => add(c.vat.category, c.vat.rate, charges[i]!));
  const vat = [...groups.values()].map((g) => ({ ...g, tax: g.rate === undefined ? new Big(0) : round2(g.taxable.times(g.rate).div(100)) }));
  const allowanceTotal = allowances.reduce((s, x) => s.plus(x), new Big(0));
  const chargeTotal = charges.reduce((s, x) => s.plus(x), new Big(0));
  const taxExclusive = lineTotal.minus(allowanceTotal).plus(chargeTotal);
  const vatTotal = vat.reduce((s, g) => s.plus(g.tax), new Big(0));
  const taxInclusive = taxExclusive.plus(vatTotal);
  const payable = taxInclusive.minus(data.paidAmount ?? 0).plus(data.roundingAmount ?? 0);
  const t = data.totals ?? {};
  return {
    lineTotal: t.lineTotal ?? money(lineTotal),
    allowanceTotal: t.allowanceTotal ?? money(allowanceTotal),
    chargeTotal: t.chargeTotal ?? money(chargeTotal),
    taxExclusive: t.taxExclusive ?? money(taxExclusive),
    vatTotal: t.vatTotal ?? money(vatTotal),
    taxInclusive: t.taxInclusive ?? money(taxInclusive),
    payable: t.payable ?? money(payable),
    vatBreakdown: t.vatBreakdown ?? vat.map((g) => ({ category: g.category, rate: g.rate, taxableAmount: money(g.taxable), taxAmount: money(g.tax) })),
    allowances: allowances.map((a) => a.toFixed(2)),
    charges: charges.map((c) => c.toFixed(2)),
  };
}

// normaliseInvoiceData: the InvoiceData a caller sent, with everything the service computes or defaults
// filled in, in the form readInvoiceData gives back for the built document.
import Big from "big.js";
import { PEPPOL_BIS3_PROFILE, writtenNotes } from "./build.js";
import type { InvoiceData, LineAllowanceCharge } from "../../domain/invoice-data.js";
import { computeTotals, money } from "../../domain/invoice-totals.js";

/** Invoice type codes (UNCL 1001) of a credit note: with one of them the document is a UBL CreditNote. */
export const CREDIT_NOTE_TYPE_CODES: readonly string[] = ["81", "83", "261", "262", "296", "308", "381", "396", "420", "458", "532"];

const fix2 = (s: string | undefined) => (s === undefined ? undefined : money(new Big(s)));

function prune<T>(v: T): T {
  if (Array.isArray(v)) return v.map(prune) as T;
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined || (Array.isArray(x) && x.length === 0)) continue;
      out[k] = prune(x);
    }
    return out as T;
  }
  return v;
}

/**
 * The normal form of a parsed InvoiceData: type code defaulted, notes as Peppol writes them, every
 * amount with 2 decimals, computed amounts (line net amounts, allowance and charge amounts, totals, VAT
 * breakdown, BT-111) filled in, empty lists dropped. `readInvoiceData(buildUbl(x))` equals it.
 */
export function normaliseInvoiceData(data: InvoiceData, rootElement: "Invoice" | "CreditNote" = "Invoice"): InvoiceData {
  const t = computeTotals(data);
  const ac = (a: LineAllowanceCharge, amount: Big) => ({ ...a, amount: money(amount), baseAmount: fix2(a.baseAmount) });
  const isCredit = rootElement === "CreditNote";
  const notes = writtenNotes(data);
  const payment =
    data.payment !== undefined
      ? { ...data.payment, card: data.payment.card ? { ...data.payment.card, network: data.payment.card.network ?? "NA" } : undefined }
      : isCredit && data.dueDate !== undefined
        ? { meansCode: "1" }
        : undefined;
  const out: InvoiceData = {
    ...data,
    typeCode: data.typeCode ?? (isCredit ? "381" : "380"),
    specification: data.specification ?? "peppol",
    profileId: data.profileId ?? PEPPOL_BIS3_PROFILE,
    notes,
    orderReference: data.orderReference ?? (data.salesOrderReference !== undefined ? "NA" : undefined),
    vatAccountingCurrency: data.vatAccountingCurrency ? { code: data.vatAccountingCurrency.code, vatTotal: money(t.vatTotalAccounting!) } : undefined,
    payment,
    allowances: data.allowances?.map((a, i) => ac(a, t.allowances[i]!) as typeof a),
    charges: data.charges?.map((c, i) => ac(c, t.charges[i]!) as typeof c),
    lines: data.lines.map((l, i) => ({
      ...l,
      netAmount: money(t.lines[i]!.net),
      allowances: l.allowances?.map((a, k) => ac(a, t.lines[i]!.allowances[k]!)),
      charges: l.charges?.map((c, k) => ac(c, t.lines[i]!.charges[k]!)),
      priceBaseUnitCode: l.priceBaseUnitCode === l.unitCode ? undefined : l.priceBaseUnitCode,
    })),
    paidAmount: fix2(data.paidAmount),
    roundingAmount: fix2(data.roundingAmount),
    totals: {
      lineTotal: money(t.lineTotal),
      allowanceTotal: data.allowances && data.allowances.length > 0 ? money(t.allowanceTotal) : undefined,
      chargeTotal: data.charges && data.charges.length > 0 ? money(t.chargeTotal) : undefined,
      taxExclusive: money(t.taxExclusive),
      vatTotal: money(t.vatTotal),
      taxInclusive: money(t.taxInclusive),
      payable: money(t.payable),
      vatBreakdown: t.vat.map((v) => ({ category: v.category, rate: v.rate, taxableAmount: money(v.taxable), taxAmount: money(v.tax) })),
    },
  };
  // Exemption reasons are written only for categories that have a VAT breakdown.
  if (out.vatExemptions) {
    const used = new Set(t.vat.map((v) => v.category));
    const kept = Object.fromEntries(Object.entries(out.vatExemptions).filter(([k, v]) => used.has(k as never) && v && (v.reason !== undefined || v.code !== undefined)));
    out.vatExemptions = Object.keys(kept).length > 0 ? kept : undefined;
  }
  return prune(out);
}

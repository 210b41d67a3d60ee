// VAT in FA(3): the rate code (P_12) of each UBL VAT category and rate, the per-rate totals
// (P_13_x, P_14_x, P_14_xW, P_15) from the VAT breakdown (BG-23), and the annotations (Adnotacje)
// that follow from it and from the invoice's notes.
import Big from "big.js";
import type { Fa3Node } from "../model.js";
import { childOf, childrenOf, firstAt, text } from "../model.js";
import { amount, DECIMAL, EU_COUNTRIES, Fa3MappingError, sum, times } from "./values.js";
import type { Xml } from "./xml.js";

/** The FA(3) rate code (P_12) and the totals field pair it is summed into. */
export interface RateSlot {
  code: string;
  /** The suffix of P_13_x / P_14_x. */
  slot: "1" | "2" | "3" | "4" | "6_1" | "6_2" | "6_3" | "7" | "8" | "9" | "10" | "11";
  /** For margin lines: which P_PMarzy_* flag. */
  margin?: "P_PMarzy_3_1" | "P_PMarzy_3_2" | "P_PMarzy_3_3";
}

const SLOTS_WITH_VAT = new Set(["1", "2", "3", "4"]);
const SLOT_ORDER = ["1", "2", "3", "4", "6_1", "6_2", "6_3", "7", "8", "9", "10", "11"] as const;

const STANDARD_RATES: Record<string, RateSlot> = {
  "23": { code: "23", slot: "1" },
  "22": { code: "22", slot: "1" },
  "8": { code: "8", slot: "2" },
  "7": { code: "7", slot: "2" },
  "5": { code: "5", slot: "3" },
  "4": { code: "4", slot: "4" },
  "3": { code: "3", slot: "4" },
};

// Margin schemes (VAT Act art. 120) named by the VATEX exemption reason codes of an E category.
const MARGIN_VATEX: Record<string, RateSlot["margin"]> = {
  "VATEX-EU-D": "P_PMarzy_3_1", // second-hand means of transport: second-hand goods
  "VATEX-EU-F": "P_PMarzy_3_1", // second-hand goods
  "VATEX-EU-I": "P_PMarzy_3_2", // works of art
  "VATEX-EU-J": "P_PMarzy_3_3", // collectors' items and antiques
};

/** A UBL VAT category (BT-118/151/95, BT-119/152/96, BT-121, BT-120). */
export interface Category {
  id: string;
  percent: string;
  exemptionCode: string;
  exemptionReason: string;
}

/** The VAT category of a cac:TaxCategory / cac:ClassifiedTaxCategory. */
export function category(node: Fa3Node | null): Category {
  const percent = text(childOf(node, "cbc:Percent"));
  if (percent !== "" && !DECIMAL.test(percent)) throw new Fa3MappingError("Fa/P_12", `the VAT rate "${percent}" (BT-119/BT-152) is not a decimal number`);
  return {
    id: text(childOf(node, "cbc:ID")).toUpperCase(),
    percent: text(childOf(node, "cbc:Percent")),
    exemptionCode: text(childOf(node, "cbc:TaxExemptionReasonCode")).toUpperCase(),
    exemptionReason: text(childOf(node, "cbc:TaxExemptionReason")),
  };
}

/** The FA(3) rate code of a UBL VAT category (UNCL5305) and rate; throws when FA(3) has none. */
function rateSlot(cat: Category, buyerCountry: string, field: string): RateSlot {
  const rate = cat.percent === "" ? "" : new Big(cat.percent).toFixed();
  switch (cat.id) {
    case "S": {
      const s = STANDARD_RATES[rate];
      if (!s) throw new Fa3MappingError(field, `the standard rate ${cat.percent || "(none)"} % (VAT category S) is not a Polish VAT rate (23, 22, 8, 7, 5, 4, 3)`);
      return s;
    }
    case "Z":
      return { code: "0 KR", slot: "6_1" };
    case "K":
      return { code: "0 WDT", slot: "6_2" };
    case "G":
      return { code: "0 EX", slot: "6_3" };
    case "E": {
      const margin = MARGIN_VATEX[cat.exemptionCode];
      if (margin) return { code: "", slot: "11", margin };
      return { code: "zw", slot: "7" };
    }
    case "O":
      return { code: "np I", slot: "8" };
    case "AE":
      // Reverse charge: domestic (art. 17 sec. 1 pts 7-8: "oo"), or services to an EU taxpayer
      // taxed where the buyer is (art. 100 sec. 1 pt 4: "np II").
      if (buyerCountry === "PL") return { code: "oo", slot: "10" };
      if (EU_COUNTRIES.has(buyerCountry)) return { code: "np II", slot: "9" };
      throw new Fa3MappingError(field, `reverse charge (VAT category AE) to a buyer in ${buyerCountry || "(no country)"} has no FA(3) rate code: FA(3) knows domestic reverse charge ("oo") and EU services ("np II")`);
    default:
      throw new Fa3MappingError(field, `the VAT category ${cat.id || "(none)"} has no FA(3) rate code (FA(3) maps S, Z, K, G, E, O, AE)`);
  }
}

const catKey = (c: Category): string => `${c.id}|${c.percent === "" ? "" : new Big(c.percent).toFixed()}`;

/** The VAT breakdown (BG-23) in the document currency, by FA(3) totals slot. */
export interface VatBreakdown {
  buyerCountry: string;
  bases: Map<string, string[]>;
  taxes: Map<string, string[]>;
  margins: Set<string>;
  /**
   * The slot of each category and rate of the breakdown: lines and allowances/charges carry only the
   * category and rate (BT-151/152), the exemption reason code (a margin scheme) is on the breakdown.
   */
  slotOf: Map<string, RateSlot>;
  /** The exempt category (zw), for its legal basis. */
  exemption: Category | null;
  reverseCharge: boolean;
}

/** Reads the VAT breakdown of the document currency; throws when a subtotal does not map or there is none. */
export function readVatBreakdown(root: Fa3Node, currency: string, buyerCountry: string): VatBreakdown {
  const taxTotal = childrenOf(root, "cac:TaxTotal").find((t) => (childOf(t, "cbc:TaxAmount")?.attrs["currencyID"] ?? currency).toUpperCase() === currency) ?? null;
  const v: VatBreakdown = { buyerCountry, bases: new Map(), taxes: new Map(), margins: new Set(), slotOf: new Map(), exemption: null, reverseCharge: false };
  for (const [i, sub] of childrenOf(taxTotal, "cac:TaxSubtotal").entries()) {
    const cat = category(childOf(sub, "cac:TaxCategory"));
    const slot = rateSlot(cat, buyerCountry, `Fa/P_13 (VAT breakdown ${i + 1})`);
    const base = amount(text(childOf(sub, "cbc:TaxableAmount")), `Fa/P_13_${slot.slot}`, "the taxable amount (BT-116)");
    const tax = amount(text(childOf(sub, "cbc:TaxAmount")), `Fa/P_14_${slot.slot}`, "the VAT amount (BT-117)");
    (v.bases.get(slot.slot) ?? v.bases.set(slot.slot, []).get(slot.slot)!).push(base);
    (v.taxes.get(slot.slot) ?? v.taxes.set(slot.slot, []).get(slot.slot)!).push(tax);
    v.slotOf.set(catKey(cat), slot);
    if (slot.margin) v.margins.add(slot.margin);
    if (slot.code === "zw") v.exemption = cat;
    if (slot.code === "oo" || slot.code === "np II") v.reverseCharge = true;
  }
  if (v.bases.size === 0) throw new Fa3MappingError("Fa/P_13_1", "the invoice has no VAT breakdown (BG-23)");
  return v;
}

/** The rate slot of a line's or an allowance's category: the breakdown's, else its own. */
export function slotFor(v: VatBreakdown, cat: Category, field: string): RateSlot {
  return v.slotOf.get(catKey(cat)) ?? rateSlot(cat, v.buyerCountry, field);
}

/** P_13_x, P_14_x (P_14_xW in PLN at `rate`) per slot in the schema's order, then P_15, signed by `signed`. */
export function writeVatTotals(x: Xml, root: Fa3Node, v: VatBreakdown, signed: (value: string) => string, rate: string | null): void {
  for (const s of SLOT_ORDER) {
    const b = v.bases.get(s);
    if (!b) {
      // P_13_1..P_13_4 come with their P_14 as a pair; absent pairs are left out.
      continue;
    }
    x.leaf(`P_13_${s}`, signed(b.length === 1 ? b[0]! : sum(b)));
    if (SLOTS_WITH_VAT.has(s)) {
      const t = v.taxes.get(s)!;
      const vat = signed(t.length === 1 ? t[0]! : sum(t));
      x.leaf(`P_14_${s}`, vat);
      if (rate) x.leaf(`P_14_${s}W`, times(vat, rate));
    }
  }
  const gross = text(firstAt(root, "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount"));
  x.leaf("P_15", signed(amount(gross, "Fa/P_15", "the total with VAT (BT-112)")));
}

/**
 * Adnotacje. P_16 (cash accounting, "metoda kasowa") only when the invoice says so: the VAT point
 * date code BT-8 is 432 (VAT due on the payment date) or a note (BT-22) carries the statutory words;
 * P_18A (split payment) only when a note carries "mechanizm podzielonej płatności". Else 2.
 */
export function writeAnnotations(x: Xml, root: Fa3Node, typeCode: string, v: VatBreakdown): void {
  const notes = childrenOf(root, "cbc:Note").map((n) => text(n).toLowerCase());
  const taxPointCode = text(firstAt(root, "cac:InvoicePeriod/cbc:DescriptionCode"));
  const cashAccounting = taxPointCode === "432" || notes.some((n) => n.includes("metoda kasowa"));
  const splitPayment = notes.some((n) => n.includes("mechanizm podzielonej płatności"));
  x.open("Adnotacje")
    .leaf("P_16", cashAccounting ? "1" : "2")
    .leaf("P_17", typeCode === "389" ? "1" : "2")
    .leaf("P_18", v.reverseCharge ? "1" : "2")
    .leaf("P_18A", splitPayment ? "1" : "2")
    .open("Zwolnienie");
  if (v.exemption) {
    const ex: Category = v.exemption;
    const reason = ex.exemptionReason || ex.exemptionCode;
    if (!reason) throw new Fa3MappingError("Fa/Adnotacje/Zwolnienie/P_19A", "an exempt supply (VAT category E) needs its legal basis: the VAT breakdown has no exemption reason (BT-120) or reason code (BT-121)");
    x.leaf("P_19", "1").leaf(ex.exemptionCode.startsWith("VATEX-EU-") ? "P_19B" : "P_19A", reason.slice(0, 256));
  } else x.leaf("P_19N", "1");
  x.close("Zwolnienie").open("NoweSrodkiTransportu").leaf("P_22N", "1").close("NoweSrodkiTransportu").leaf("P_23", "2").open("PMarzy");
  if (v.margins.size > 1) throw new Fa3MappingError("Fa/Adnotacje/PMarzy", `one invoice mixes margin schemes (${[...v.margins].join(", ")}); FA(3) marks one`);
  if (v.margins.size === 1) x.leaf("P_PMarzy", "1").leaf([...v.margins][0]!, "1");
  else x.leaf("P_PMarzyN", "1");
  x.close("PMarzy").close("Adnotacje");
}

// Test support: seeded mutants of the CII test documents (testdata/cii), aimed at the CEN CII model rules (BR-*, BR-CO-*,
// BR-DEC-*, the VAT category rules): amounts moved (also to the tolerance bounds and to 3 decimals), elements removed,
// emptied or duplicated, VAT categories and rates swapped (one, or all of a category consistently), indicators flipped,
// codes, currencies, schemes and dates changed, optional elements added where the rules look. Each mutant applies 1-3
// mutations to one document; the same seed gives the same mutants (mulberry32), so the official verdicts of a run can be
// committed (test/fixtures/official-cii-model-mutants.jsonl, scripts/cii-model-verdicts.ts) and the test rebuilds the
// mutants. xmldom is the test's own reader, independent of the code under test.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { DOMParser, XMLSerializer, type Document, type Element } from "@xmldom/xmldom";
import { CII_DIR } from "../../../../testdata/index.js";
import { parseXml } from "../../src/document/xml.js";
import { runRules } from "../../src/validation/engine.js";
import { ciiBusinessRules } from "../../src/validation/rules/cii-business.js";
import { ciiVatRules } from "../../src/validation/rules/cii-vat.js";

export const RAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100";
export const UDT = "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100";

/** The CII invoices of testdata/cii (relative paths, sorted): every .xml but the rule test sets (test/cii/). */
export function ciiBaseDocuments(): string[] {
  return readdirSync(CII_DIR, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".xml") && !f.startsWith(join("cen-en16931", "test")))
    .sort();
}

export interface CiiMutant {
  /** `<seed>-<n>`. */
  id: string;
  /** The base document, relative to testdata/cii. */
  base: string;
  /** What was changed, in order. */
  mutations: string[];
  xml: string;
}

/** A small seeded PRNG (mulberry32). */
function prng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Mutation = (doc: Document, r: Random) => string | null;

interface Random {
  rnd: () => number;
  pick<T>(a: readonly T[]): T;
}

function elements(doc: Document): Element[] {
  const out: Element[] = [];
  const walk = (e: Element) => {
    out.push(e);
    for (let c = e.firstChild; c; c = c.nextSibling) if (c.nodeType === 1) walk(c as Element);
  };
  walk(doc.documentElement!);
  return out;
}
const isLeaf = (e: Element) => !Array.from(e.childNodes).some((c) => c.nodeType === 1);
const named = (doc: Document, ...locals: string[]) => elements(doc).filter((e) => locals.includes(e.localName!));
const parentName = (e: Element) => (e.parentNode as Element | null)?.localName ?? "";
const setText = (e: Element, v: string) => {
  while (e.firstChild) e.removeChild(e.firstChild);
  if (v !== "") e.appendChild(e.ownerDocument!.createTextNode(v));
};
const text = (e: Element) => e.textContent ?? "";
const path = (e: Element) => {
  const p: string[] = [];
  for (let n: Element | null = e; n && n.nodeType === 1; n = n.parentNode as Element | null) p.unshift(n.localName!);
  return p.slice(1).join("/");
};
const ram = (doc: Document, local: string, value?: string): Element => {
  const e = doc.createElementNS(RAM, `ram:${local}`);
  if (value !== undefined) e.appendChild(doc.createTextNode(value));
  return e;
};
const udt = (doc: Document, local: string, value: string, attrs: Record<string, string> = {}): Element => {
  const e = doc.createElementNS(UDT, `udt:${local}`);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.appendChild(doc.createTextNode(value));
  return e;
};
const firstNamed = (parent: Element | null | undefined, local: string): Element | null => {
  if (!parent) return null;
  for (let c = parent.firstChild; c; c = c.nextSibling) if (c.nodeType === 1 && (c as Element).localName === local) return c as Element;
  return null;
};
const headerSettlement = (doc: Document) => named(doc, "ApplicableHeaderTradeSettlement")[0] ?? null;
const summation = (doc: Document) => named(doc, "SpecifiedTradeSettlementHeaderMonetarySummation")[0] ?? null;
const headerTaxes = (doc: Document) => named(doc, "ApplicableTradeTax").filter((e) => parentName(e) === "ApplicableHeaderTradeSettlement");
const fmt = (x: number) => (Math.round(x * 100) / 100).toFixed(2);

const AMOUNT_VARIANTS = (v: string): string[] => {
  const n = Number(v.trim()) || 0;
  return [fmt(n + 0.01), fmt(n - 0.01), fmt(n + 1), fmt(n - 1), fmt(n + 0.5), fmt(n * 2), "0", "0.00", fmt(-n), `${v.trim()}0`, `${v.trim()}1`, ` ${v.trim()} `, `${Math.trunc(n)}.005`, `${fmt(n + 0.99)}`, `${fmt(n - 0.995)}`, "abc"];
};

// Elements the model rules read, removed more often than any other.
const RULE_ELEMENTS = [
  "LineTotalAmount", "TaxBasisTotalAmount", "GrandTotalAmount", "DuePayableAmount", "TaxTotalAmount", "AllowanceTotalAmount", "ChargeTotalAmount",
  "TotalPrepaidAmount", "RoundingAmount", "BasisAmount", "CalculatedAmount", "RateApplicablePercent", "CategoryCode", "TypeCode", "ExemptionReason",
  "ExemptionReasonCode", "ActualAmount", "Reason", "ReasonCode", "ChargeIndicator", "Name", "PostalTradeAddress", "CountryID", "ID", "LineID",
  "BilledQuantity", "ChargeAmount", "SpecifiedTaxRegistration", "InvoiceCurrencyCode", "IssueDateTime", "ApplicableTradeTax", "StartDateTime", "EndDateTime",
  "IBANID", "ProprietaryID", "IssuerAssignedID", "SpecifiedLegalOrganization", "URIUniversalCommunication", "GlobalID", "ClassCode", "Description", "Value",
  "ShipToTradeParty", "ActualDeliverySupplyChainEvent", "BillingSpecifiedPeriod", "SpecifiedTradeAllowanceCharge", "IncludedSupplyChainTradeLineItem",
  "GuidelineSpecifiedDocumentContextParameter", "SellerTradeParty", "BuyerTradeParty", "SpecifiedTradeSettlementHeaderMonetarySummation",
];
const CATEGORY_CODES = ["S", "Z", "E", "AE", "K", "G", "O", "L", "M", "B", " S ", "s", "X"];

/** One of the rarer mistakes, each aimed at a rule few other mutations reach (weighted twice). */
const rareMistake: Mutation = (doc, r) => {
  const removeAll = (locals: string[], filter: (e: Element) => boolean = () => true) => {
    const els = named(doc, ...locals).filter(filter);
    for (const e of els) e.parentNode!.removeChild(e);
    return els.length > 0;
  };
  const choice = r.pick(["total", "breakdown amount", "card", "no account", "empty line period", "tax point and code", "gross price", "no seller id", "no specification",
    "category amount", "representative", "means without code", "exemption on a taxed category"] as const);
  switch (choice) {
    case "total": {
      const local = r.pick(["LineTotalAmount", "TaxBasisTotalAmount", "GrandTotalAmount", "DuePayableAmount", "TaxTotalAmount"]);
      if (!removeAll([local], (e) => parentName(e) === "SpecifiedTradeSettlementHeaderMonetarySummation")) return null;
      return `removed the total ${local}`;
    }
    case "breakdown amount": {
      const local = r.pick(["BasisAmount", "CalculatedAmount", "RateApplicablePercent", "TypeCode"]);
      const taxes = headerTaxes(doc);
      if (!taxes.length) return null;
      const t = r.pick(taxes), e = firstNamed(t, local);
      if (!e) return null;
      t.removeChild(e);
      return `removed a VAT breakdown's ${local}`;
    }
    case "card": {
      const means = named(doc, "SpecifiedTradeSettlementPaymentMeans")[0];
      if (!means) return null;
      const id = r.pick(["1234567890123456", "123456****1234", " 12345678901 "]);
      means.appendChild(ram(doc, "ApplicableTradeSettlementFinancialCard")).appendChild(ram(doc, "ID", id));
      return `a payment card '${id}'`;
    }
    case "no account": {
      if (!removeAll(["IBANID", "ProprietaryID"], (e) => parentName(e) === "PayeePartyCreditorFinancialAccount")) return null;
      return "removed the payment account identifiers";
    }
    case "empty line period": {
      const lines = named(doc, "SpecifiedLineTradeSettlement");
      if (!lines.length) return null;
      r.pick(lines).appendChild(ram(doc, "BillingSpecifiedPeriod"));
      return "an empty line period";
    }
    case "tax point and code": {
      const taxes = headerTaxes(doc);
      if (!taxes.length) return null;
      const t = r.pick(taxes);
      t.appendChild(ram(doc, "TaxPointDate")).appendChild(udt(doc, "DateString", "20240101", { format: "102" }));
      t.appendChild(ram(doc, "DueDateTypeCode", "5"));
      return "a VAT point date and a VAT point date code";
    }
    case "gross price": {
      const prices = named(doc, "ChargeAmount").filter((e) => parentName(e) === "GrossPriceProductTradePrice" || parentName(e) === "NetPriceProductTradePrice");
      if (!prices.length) return null;
      const e = r.pick(prices);
      setText(e, "-1.00");
      return `${path(e)} = '-1.00'`;
    }
    case "no seller id": {
      const seller = named(doc, "SellerTradeParty")[0];
      if (!seller) return null;
      for (const local of ["ID", "GlobalID", "SpecifiedLegalOrganization", "SpecifiedTaxRegistration"]) {
        for (let c = seller.firstChild; c; ) { const next = c.nextSibling; if (c.nodeType === 1 && (c as Element).localName === local) seller.removeChild(c); c = next; }
      }
      return "removed the seller's identifiers";
    }
    case "category amount": {
      const taxes = headerTaxes(doc);
      if (!taxes.length) return null;
      const t = r.pick(taxes), cc = firstNamed(t, "CategoryCode"), amount = firstNamed(t, "CalculatedAmount");
      const code = r.pick(["Z", "E", "AE", "K", "G", "O"]);
      if (cc) setText(cc, code);
      if (amount) setText(amount, r.pick(["5.00", "0.00", "-0.01"]));
      return `a VAT breakdown of category ${code} with VAT amount ${amount ? text(amount) : "none"}`;
    }
    case "representative": {
      const agreement = named(doc, "ApplicableHeaderTradeAgreement")[0];
      if (!agreement) return null;
      const p = agreement.appendChild(ram(doc, "SellerTaxRepresentativeTradeParty"));
      const has = { name: r.rnd() < 0.5, address: r.rnd() < 0.5, vat: r.rnd() < 0.5 };
      if (has.name) p.appendChild(ram(doc, "Name", r.pick(["Rep", " "])));
      if (has.address) p.appendChild(ram(doc, "PostalTradeAddress")).appendChild(ram(doc, "CountryID", r.pick(["DE", ""])));
      if (has.vat) (p.appendChild(ram(doc, "SpecifiedTaxRegistration")).appendChild(ram(doc, "ID", "DE123456789")) as Element).setAttribute("schemeID", r.pick(["VA", "FC"]));
      return `a tax representative with ${JSON.stringify(has)}`;
    }
    case "means without code": {
      const means = named(doc, "SpecifiedTradeSettlementPaymentMeans");
      if (!means.length) return null;
      const m = r.pick(means);
      for (const c of Array.from(m.childNodes)) if (c.nodeType === 1 && (c as Element).localName === "TypeCode") m.removeChild(c);
      return "a payment means without its type code";
    }
    case "exemption on a taxed category": {
      const taxes = headerTaxes(doc);
      if (!taxes.length) return null;
      const t = r.pick(taxes), cc = firstNamed(t, "CategoryCode");
      const code = r.pick(["S", "Z", "L", "M"]);
      if (cc) setText(cc, code);
      t.appendChild(ram(doc, r.pick(["ExemptionReason", "ExemptionReasonCode"]), "Exempt"));
      return `a VAT breakdown of category ${code} with an exemption reason`;
    }
    case "no specification": {
      if (!removeAll([r.pick(["GuidelineSpecifiedDocumentContextParameter", "IssueDateTime", "TypeCode"])], (e) => parentName(e) === "ExchangedDocumentContext" || parentName(e) === "ExchangedDocument")) return null;
      return "removed a document header element";
    }
  }
};

/** The parties' tax registrations thinned, and an allowance, charge or line of a VAT category (BR-xx-02 ... -07). */
function partsOfCategory(doc: Document, r: Random): string | null {
  const code = r.pick(["S", "Z", "E", "AE", "K", "G", "O", "L", "M"]);
  for (const party of r.pick([["SellerTradeParty"], ["SellerTradeParty"], ["BuyerTradeParty"], ["SellerTradeParty", "BuyerTradeParty"], []])) {
    for (const reg of named(doc, party).flatMap((p) => Array.from(p.childNodes).filter((c) => c.nodeType === 1 && (c as Element).localName === "SpecifiedTaxRegistration"))) reg.parentNode!.removeChild(reg);
  }
  const rate = r.pick(["0", "19", "7.5", "-2", null]);
  const part = r.pick(["allowance", "charge", "line"] as const);
  if (part === "line") {
    const taxes = named(doc, "ApplicableTradeTax").filter((t) => parentName(t) === "SpecifiedLineTradeSettlement");
    if (!taxes.length) return null;
    const t = r.pick(taxes), cc = firstNamed(t, "CategoryCode"), rr = firstNamed(t, "RateApplicablePercent");
    if (cc) setText(cc, code);
    if (rr) { if (rate === null) t.removeChild(rr); else setText(rr, rate); }
  } else {
    const settlement = headerSettlement(doc);
    if (!settlement) return null;
    const ac = settlement.appendChild(ram(doc, "SpecifiedTradeAllowanceCharge"));
    ac.appendChild(ram(doc, "ChargeIndicator")).appendChild(udt(doc, "Indicator", part === "charge" ? "true" : "false"));
    ac.appendChild(ram(doc, "ActualAmount", "10.00"));
    ac.appendChild(ram(doc, "Reason", "Freight"));
    const t = ac.appendChild(ram(doc, "CategoryTradeTax"));
    t.appendChild(ram(doc, "TypeCode", "VAT"));
    t.appendChild(ram(doc, "CategoryCode", code));
    if (rate !== null) t.appendChild(ram(doc, "RateApplicablePercent", rate));
  }
  return `a ${part} of category ${code} at rate ${rate ?? "none"}, parties' tax registrations thinned`;
}

const MUTATIONS: Mutation[] = [
  rareMistake,
  rareMistake,
  // An amount, rate or quantity changed.
  (doc, r) => {
    const els = elements(doc).filter((e) => isLeaf(e) && /Amount$|Percent$|Quantity$/.test(e.localName!));
    if (!els.length) return null;
    const e = r.pick(els), v = r.pick(AMOUNT_VARIANTS(text(e)));
    setText(e, v);
    return `${path(e)} = '${v}'`;
  },
  // An element the rules read removed (sometimes any element).
  (doc, r) => {
    const pool = r.rnd() < 0.8 ? named(doc, ...RULE_ELEMENTS) : elements(doc).filter((e) => e !== doc.documentElement);
    if (!pool.length) return null;
    const e = r.pick(pool), where = path(e);
    e.parentNode!.removeChild(e);
    return `removed ${where}`;
  },
  // A leaf emptied.
  (doc, r) => {
    const e = r.pick(elements(doc).filter(isLeaf));
    const v = r.pick(["", " ", "\n"]);
    setText(e, v);
    return `${path(e)} emptied`;
  },
  // A structure duplicated beside itself.
  (doc, r) => {
    const els = named(doc, "IncludedSupplyChainTradeLineItem", "SpecifiedTradeAllowanceCharge", "ApplicableTradeTax", "SpecifiedTaxRegistration", "BillingSpecifiedPeriod",
      "SpecifiedTradeSettlementPaymentMeans", "AdditionalReferencedDocument", "CategoryTradeTax", "TaxTotalAmount", "CategoryCode", "InvoiceReferencedDocument",
      "ApplicableProductCharacteristic", "URIUniversalCommunication");
    if (!els.length) return null;
    const e = r.pick(els);
    e.parentNode!.insertBefore(e.cloneNode(true), e.nextSibling);
    return `duplicated ${path(e)}`;
  },
  // One VAT category code changed.
  (doc, r) => {
    const els = named(doc, "CategoryCode");
    if (!els.length) return null;
    const e = r.pick(els), v = r.pick(CATEGORY_CODES);
    setText(e, v);
    return `${path(e)} = '${v}'`;
  },
  // Every VAT category of one code changed to another, with the rates (and amounts) that category needs.
  (doc, r) => {
    const els = named(doc, "CategoryCode");
    if (!els.length) return null;
    const from = text(r.pick(els)), to = r.pick(["S", "Z", "E", "AE", "K", "G", "O", "L", "M"]);
    const fixRate = r.rnd() < 0.7;
    for (const e of els) {
      if (text(e) !== from) continue;
      setText(e, to);
      if (!fixRate) continue;
      const tax = e.parentNode as Element;
      const rate = firstNamed(tax, "RateApplicablePercent");
      if (to === "O") { if (rate) tax.removeChild(rate); }
      else if (["Z", "E", "AE", "K", "G"].includes(to)) { if (rate) setText(rate, "0"); }
      const amount = firstNamed(tax, "CalculatedAmount");
      if (amount && to !== "S" && to !== "L" && to !== "M") setText(amount, "0.00");
      if (["E", "AE", "K", "G", "O"].includes(to) && parentName(tax) === "ApplicableHeaderTradeSettlement" && !firstNamed(tax, "ExemptionReason") && r.rnd() < 0.7) {
        tax.appendChild(ram(doc, "ExemptionReason", "Exempt"));
      }
    }
    return `all VAT categories '${from}' -> '${to}'${fixRate ? " with their rates" : ""}`;
  },
  // A VAT breakdown amount moved near a tolerance bound (BR-xx-08 within 1, BR-S-09, BR-CO-17 within 1).
  (doc, r) => {
    const els = headerTaxes(doc).flatMap((t) => [firstNamed(t, "BasisAmount"), firstNamed(t, "CalculatedAmount")]).filter((e): e is Element => e !== null);
    if (!els.length) return null;
    const e = r.pick(els), v = Number(text(e).trim()) || 0, d = r.pick([1, -1, 0.99, -0.99, 1.01, -1.01, 0.5, -0.5, 0.01, 0.005]);
    const t = d === 0.005 ? (v + d).toFixed(3) : fmt(v + d);
    setText(e, t);
    return `${path(e)} = '${t}' (was ${v})`;
  },
  // A charge indicator changed.
  (doc, r) => {
    const els = named(doc, "Indicator").filter((e) => parentName(e) === "ChargeIndicator");
    if (!els.length) return null;
    const e = r.pick(els), v = r.pick(["true", "false", "true", "false", "1", "0", " true ", "yes"]);
    setText(e, v);
    return `${path(e)} = '${v}'`;
  },
  // A code changed.
  (doc, r) => {
    const pools: Record<string, string[]> = {
      CountryID: ["DE", "IT", "NO", "it", "XX", " IT"],
      InvoiceCurrencyCode: ["EUR", "NOK", "SEK", "eur"],
      TaxCurrencyCode: ["EUR", "NOK", "SEK"],
      ExemptionReasonCode: ["VATEX-EU-O", "VATEX-EU-IC", "VATEX-EU-AE"],
      DueDateTypeCode: ["5", "29", "72"],
      GuidelineID: [],
    };
    const els = elements(doc).filter((e) => pools[e.localName!]?.length);
    const typeCodes = named(doc, "TypeCode").filter((e) => ["ApplicableTradeTax", "CategoryTradeTax", "SpecifiedTradeSettlementPaymentMeans"].includes(parentName(e)));
    const all = [...els, ...typeCodes];
    if (!all.length) return null;
    const e = r.pick(all);
    const v = e.localName === "TypeCode"
      ? parentName(e) === "SpecifiedTradeSettlementPaymentMeans" ? r.pick(["30", "58", "49", "31", " 30"]) : r.pick(["VAT", "vat", "GST", " VAT "])
      : r.pick(pools[e.localName!]!);
    setText(e, v);
    return `${path(e)} = '${v}'`;
  },
  // An attribute changed or removed.
  (doc, r) => {
    const pools: Record<string, string[]> = {
      schemeID: ["VA", "FC", "", "0088", "EM", " VA"],
      currencyID: ["EUR", "NOK", "SEK", ""],
      unitCode: ["C62", "H87", ""],
      listID: ["STI", "", "TST"],
      format: ["102", "610", "203"],
    };
    const els = elements(doc).filter((e) => Object.keys(pools).some((a) => e.hasAttribute(a)));
    if (!els.length) return null;
    const e = r.pick(els);
    const a = r.pick(Object.keys(pools).filter((k) => e.hasAttribute(k)));
    if (r.rnd() < 0.3) {
      e.removeAttribute(a);
      return `${path(e)}/@${a} removed`;
    }
    const v = r.pick(pools[a]!);
    e.setAttribute(a, v);
    return `${path(e)}/@${a} = '${v}'`;
  },
  // A date changed.
  (doc, r) => {
    const els = named(doc, "DateTimeString");
    if (!els.length) return null;
    const e = r.pick(els), v = r.pick(["20240101", "20241231", "20230101", "2024-01-01", ""]);
    setText(e, v);
    return `${path(e)} = '${v}'`;
  },
  // Every line, or every VAT breakdown, removed (BR-16, BR-CO-18 and the sums).
  (doc, r) => {
    const which = r.pick(["IncludedSupplyChainTradeLineItem", "header ApplicableTradeTax"] as const);
    const els = which === "IncludedSupplyChainTradeLineItem" ? named(doc, which) : headerTaxes(doc);
    if (!els.length) return null;
    for (const e of els) e.parentNode!.removeChild(e);
    return `removed every ${which}`;
  },
  // A total, price or allowance amount given 3 decimals, or made negative.
  (doc, r) => {
    const els = elements(doc).filter((e) => isLeaf(e) && (parentName(e) === "SpecifiedTradeSettlementHeaderMonetarySummation" || parentName(e) === "SpecifiedTradeAllowanceCharge" ||
      (e.localName === "ChargeAmount" && /PriceProductTradePrice$/.test(parentName(e)))));
    if (!els.length) return null;
    const e = r.pick(els), n = Number(text(e).trim()) || 0;
    const v = r.pick([`${fmt(n)}1`, `${Math.trunc(n)}.125`, fmt(-Math.abs(n) - 1), `${fmt(n)}0`]);
    setText(e, v);
    return `${path(e)} = '${v}'`;
  },
  // The parties' tax registrations removed, and an allowance, charge or line of a VAT category (weighted twice).
  partsOfCategory,
  partsOfCategory,
  // A document level or line allowance or charge missing its amount or reason, or with 3 decimals.
  (doc, r) => {
    const level = r.pick(["ApplicableHeaderTradeSettlement", "SpecifiedLineTradeSettlement"]);
    const holders = named(doc, level);
    if (!holders.length) return null;
    const ac = r.pick(holders).appendChild(ram(doc, "SpecifiedTradeAllowanceCharge"));
    const charge = r.rnd() < 0.5;
    ac.appendChild(ram(doc, "ChargeIndicator")).appendChild(udt(doc, "Indicator", charge ? "true" : "false"));
    const amount = r.pick(["5.00", "5.001", null]);
    if (amount !== null) ac.appendChild(ram(doc, "ActualAmount", amount));
    if (r.rnd() < 0.4) ac.appendChild(ram(doc, "BasisAmount", r.pick(["50.00", "50.005"])));
    if (r.rnd() < 0.5) ac.appendChild(ram(doc, r.pick(["Reason", "ReasonCode"]), "95"));
    if (level === "ApplicableHeaderTradeSettlement" && r.rnd() < 0.7) {
      const t = ac.appendChild(ram(doc, "CategoryTradeTax"));
      t.appendChild(ram(doc, "TypeCode", "VAT"));
      t.appendChild(ram(doc, "CategoryCode", "S"));
      t.appendChild(ram(doc, "RateApplicablePercent", "19"));
    }
    return `a ${level === "ApplicableHeaderTradeSettlement" ? "document level" : "line"} ${charge ? "charge" : "allowance"} with amount ${amount ?? "none"}`;
  },
  // An optional element added where the rules look.
  (doc, r) => {
    const settlement = headerSettlement(doc), sum = summation(doc);
    const agreement = named(doc, "ApplicableHeaderTradeAgreement")[0] ?? null;
    const choice = r.pick(["exemption", "prepaid", "rounding", "taxpoint", "duedatecode", "period", "linePeriod", "payee", "allowanceTotal", "chargeTotal", "taxCurrency",
      "allowance", "charge", "representative", "shipTo", "card", "globalId", "classCode", "characteristic", "precedingInvoice", "creditTransfer", "sellerVat", "buyerVat",
      "lineAllowance", "additionalDocument", "countryIT"] as const);
    switch (choice) {
      case "exemption": {
        const taxes = headerTaxes(doc);
        if (!taxes.length) return null;
        r.pick(taxes).appendChild(ram(doc, r.pick(["ExemptionReason", "ExemptionReasonCode"]), "VATEX-EU-O"));
        break;
      }
      case "prepaid": if (!sum) return null; sum.appendChild(ram(doc, "TotalPrepaidAmount", r.pick(["10.00", "0", "0.001"]))); break;
      case "rounding": if (!sum) return null; sum.appendChild(ram(doc, "RoundingAmount", r.pick(["0.01", "-0.01", "0.50", "0.005"]))); break;
      case "taxpoint": { const taxes = headerTaxes(doc); if (!taxes.length) return null; r.pick(taxes).appendChild(ram(doc, "TaxPointDate")).appendChild(udt(doc, "DateString", "20240101", { format: "102" })); break; }
      case "duedatecode": { const taxes = headerTaxes(doc); if (!taxes.length) return null; r.pick(taxes).appendChild(ram(doc, "DueDateTypeCode", "5")); break; }
      case "period": case "linePeriod": {
        const lines = named(doc, "SpecifiedLineTradeSettlement");
        const where = choice === "period" ? settlement : lines.length ? r.pick(lines) : null;
        if (!where) return null;
        const p = where.appendChild(ram(doc, "BillingSpecifiedPeriod"));
        const start = r.pick(["20240101", "20240201", null, null]), end = r.pick(["20240131", "20231231", null, null]);
        if (start) p.appendChild(ram(doc, "StartDateTime")).appendChild(udt(doc, "DateTimeString", start, { format: "102" }));
        if (end) p.appendChild(ram(doc, "EndDateTime")).appendChild(udt(doc, "DateTimeString", end, { format: r.pick(["102", "102", "610"]) }));
        break;
      }
      case "payee": {
        if (!settlement) return null;
        const p = settlement.appendChild(ram(doc, "PayeeTradeParty"));
        const sellerName = text(named(doc, "SellerTradeParty").map((s) => firstNamed(s, "Name")).find((n) => n) ?? ram(doc, "Name", "X"));
        const name = r.pick(["Payee Ltd", sellerName, null]);
        if (name !== null) p.appendChild(ram(doc, "Name", name));
        break;
      }
      case "allowanceTotal": if (!sum) return null; sum.appendChild(ram(doc, "AllowanceTotalAmount", r.pick(["0.00", "10.00"]))); break;
      case "chargeTotal": if (!sum) return null; sum.appendChild(ram(doc, "ChargeTotalAmount", r.pick(["0.00", "10.00"]))); break;
      case "taxCurrency": {
        if (!settlement || !sum) return null;
        const currency = r.pick(["SEK", "EUR", "NOK"]);
        settlement.insertBefore(ram(doc, "TaxCurrencyCode", currency), settlement.firstChild);
        if (r.rnd() < 0.7) {
          const t = sum.appendChild(ram(doc, "TaxTotalAmount", r.pick(["100.00", "100.005", "12.5"]))) as Element;
          t.setAttribute("currencyID", currency);
        }
        break;
      }
      case "allowance": case "charge": {
        if (!settlement) return null;
        const ac = settlement.appendChild(ram(doc, "SpecifiedTradeAllowanceCharge"));
        ac.appendChild(ram(doc, "ChargeIndicator")).appendChild(udt(doc, "Indicator", choice === "charge" ? "true" : "false"));
        if (r.rnd() < 0.85) ac.appendChild(ram(doc, "ActualAmount", r.pick(["10.00", "5", "0.005", "1.234"])));
        if (r.rnd() < 0.3) ac.appendChild(ram(doc, "BasisAmount", r.pick(["100.00", "100.001"])));
        if (r.rnd() < 0.8) ac.appendChild(ram(doc, "Reason", "Discount"));
        if (r.rnd() < 0.85) {
          const t = ac.appendChild(ram(doc, "CategoryTradeTax"));
          t.appendChild(ram(doc, "TypeCode", r.pick(["VAT", "VAT", "VAT", "vat", "XXX"])));
          const code = r.pick(["S", "Z", "E", "AE", "K", "G", "O", "L", "M"]);
          t.appendChild(ram(doc, "CategoryCode", code));
          if (code !== "O" || r.rnd() < 0.3) t.appendChild(ram(doc, "RateApplicablePercent", r.pick(["19", "0", "7", "-1", "21.00"])));
        }
        break;
      }
      case "representative": {
        if (!agreement) return null;
        const p = agreement.appendChild(ram(doc, "SellerTaxRepresentativeTradeParty"));
        if (r.rnd() < 0.7) p.appendChild(ram(doc, "Name", "Rep"));
        if (r.rnd() < 0.7) p.appendChild(ram(doc, "PostalTradeAddress")).appendChild(ram(doc, "CountryID", r.pick(["DE", ""])));
        if (r.rnd() < 0.7) { const id = p.appendChild(ram(doc, "SpecifiedTaxRegistration")).appendChild(ram(doc, "ID", r.pick(["DE123456789", "XX1", "D"]))) as Element; id.setAttribute("schemeID", r.pick(["VA", "FC"])); }
        break;
      }
      case "shipTo": {
        const delivery = named(doc, "ApplicableHeaderTradeDelivery")[0];
        if (!delivery) return null;
        for (const old of named(doc, "ShipToTradeParty")) old.parentNode!.removeChild(old);
        const p = delivery.insertBefore(ram(doc, "ShipToTradeParty"), delivery.firstChild);
        p.appendChild(ram(doc, "Name", "Warehouse"));
        const a = p.appendChild(ram(doc, "PostalTradeAddress"));
        const c = r.pick(["DE", "", null]);
        if (c !== null) a.appendChild(ram(doc, "CountryID", c));
        break;
      }
      case "card": {
        const means = named(doc, "SpecifiedTradeSettlementPaymentMeans")[0];
        if (!means) return null;
        means.appendChild(ram(doc, "ApplicableTradeSettlementFinancialCard")).appendChild(ram(doc, "ID", r.pick(["123456****1234", "1234567890123456", " 1234 "])));
        break;
      }
      case "globalId": case "classCode": case "characteristic": {
        const products = named(doc, "SpecifiedTradeProduct");
        if (!products.length) return null;
        const product = r.pick(products);
        if (choice === "globalId") { const g = product.insertBefore(ram(doc, "GlobalID", "4000001123452"), product.firstChild) as Element; const s = r.pick(["0160", "", null]); if (s !== null) g.setAttribute("schemeID", s); }
        else if (choice === "classCode") { const c = product.appendChild(ram(doc, "DesignatedProductClassification")).appendChild(ram(doc, "ClassCode", "123")) as Element; const l = r.pick(["STI", "", null]); if (l !== null) c.setAttribute("listID", l); }
        else { const c = product.appendChild(ram(doc, "ApplicableProductCharacteristic")); if (r.rnd() < 0.6) c.appendChild(ram(doc, "Description", "Colour")); if (r.rnd() < 0.6) c.appendChild(ram(doc, "Value", "Red")); }
        break;
      }
      case "precedingInvoice": { if (!settlement) return null; settlement.appendChild(ram(doc, "InvoiceReferencedDocument")).appendChild(ram(doc, "IssuerAssignedID", r.pick(["INV-0", " ", ""]))); break; }
      case "creditTransfer": {
        if (!settlement) return null;
        const m = settlement.appendChild(ram(doc, "SpecifiedTradeSettlementPaymentMeans"));
        if (r.rnd() < 0.9) m.appendChild(ram(doc, "TypeCode", r.pick(["30", "58", "31"])));
        const a = m.appendChild(ram(doc, "PayeePartyCreditorFinancialAccount"));
        const k = r.pick(["IBANID", "ProprietaryID", "AccountName"]);
        a.appendChild(ram(doc, k, r.pick(["DE02120300000000202051", " "])));
        break;
      }
      case "sellerVat": case "buyerVat": {
        const party = named(doc, choice === "sellerVat" ? "SellerTradeParty" : "BuyerTradeParty")[0];
        if (!party) return null;
        const regs = Array.from(party.childNodes).filter((c) => c.nodeType === 1 && (c as Element).localName === "SpecifiedTaxRegistration") as Element[];
        if (regs.length && r.rnd() < 0.5) { for (const g of regs) party.removeChild(g); return `removed the ${choice === "sellerVat" ? "seller's" : "buyer's"} tax registrations`; }
        const id = party.appendChild(ram(doc, "SpecifiedTaxRegistration")).appendChild(ram(doc, "ID", r.pick(["DE123456789", "IT12345678901", "XX123", "1"]))) as Element;
        id.setAttribute("schemeID", r.pick(["VA", "FC"]));
        break;
      }
      case "lineAllowance": {
        const lines = named(doc, "SpecifiedLineTradeSettlement");
        if (!lines.length) return null;
        const ac = r.pick(lines).appendChild(ram(doc, "SpecifiedTradeAllowanceCharge"));
        ac.appendChild(ram(doc, "ChargeIndicator")).appendChild(udt(doc, "Indicator", r.pick(["true", "false"])));
        if (r.rnd() < 0.8) ac.appendChild(ram(doc, "ActualAmount", r.pick(["1.00", "1.005"])));
        if (r.rnd() < 0.3) ac.appendChild(ram(doc, "BasisAmount", r.pick(["10.00", "10.001"])));
        if (r.rnd() < 0.7) ac.appendChild(ram(doc, "ReasonCode", "95"));
        break;
      }
      case "additionalDocument": { if (!agreement) return null; agreement.appendChild(ram(doc, "AdditionalReferencedDocument")).appendChild(ram(doc, "IssuerAssignedID", r.pick(["DOC-1", ""]))); break; }
      case "countryIT": { for (const c of named(doc, "CountryID")) setText(c, "IT"); break; }
    }
    return `added ${choice}`;
  },
];

/** The mutants of one run: `count` of them, from the seed. */
export function ciiMutants(seed: number, count: number): CiiMutant[] {
  const rnd = prng(seed);
  const r: Random = { rnd, pick: (a) => a[Math.floor(rnd() * a.length)]! };
  const bases = ciiBaseDocuments();
  const texts = new Map<string, string>();
  const out: CiiMutant[] = [];
  for (let i = 0; i < count; i++) {
    const base = r.pick(bases);
    let source = texts.get(base);
    if (source === undefined) texts.set(base, (source = readFileSync(join(CII_DIR, base), "utf8")));
    const doc = new DOMParser({ onError: () => {} }).parseFromString(source, "text/xml");
    const mutations: string[] = [];
    const n = 1 + Math.floor(rnd() * 3);
    for (let k = 0; k < n; k++) {
      const m = r.pick(MUTATIONS)(doc, r);
      if (m) mutations.push(m);
    }
    out.push({ id: `${seed}-${i}`, base: relative(CII_DIR, join(CII_DIR, base)), mutations, xml: new XMLSerializer().serializeToString(doc) });
  }
  return out;
}

/** The rule ids of the CII model pattern (BR-*, BR-CO-*, BR-DEC-*, the VAT category rules), not the code lists' BR-CL-*. */
export const isModelRule = (id: string): boolean => id.startsWith("BR-") && !id.startsWith("BR-CL-");

/** Our verdict on a CII document, restricted to the model pattern's rule ids: the ids our business and VAT families report, by flag. */
export function ourCiiModelVerdict(xml: string): { fatal: string[]; warning: string[] } {
  const findings = runRules(parseXml(xml).root, [ciiBusinessRules, ciiVatRules]).filter((f) => isModelRule(f.rule));
  const uniq = (a: string[]) => [...new Set(a)].sort();
  return { fatal: uniq(findings.filter((f) => f.flag === "fatal").map((f) => f.rule)), warning: uniq(findings.filter((f) => f.flag === "warning").map((f) => f.rule)) };
}

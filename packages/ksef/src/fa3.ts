// toFa3: an EN 16931 UBL invoice (the core's document model) to Poland's structured invoice FA(3)
// (schema version 1-0E), the form KSeF accepts from senders that are not Peppol service providers.
// This file is the document's frame (kind, header, currency, dates) and the order of its sections;
// fa3/ holds the sections: parties.ts (Podmiot1-3), vat.ts (rates, totals, Adnotacje), lines.ts
// (FaWiersz), payment.ts (Platnosc), correction.ts (KOR), with values.ts and xml.ts shared.
//
// Rules of the mapping (docs/delivery.md has the table):
// - Values are never guessed: a value FA(3) needs that the UBL invoice does not carry, or carries in a
//   form FA(3) has no code for, throws Fa3MappingError naming the FA(3) field and the UBL source.
// - Amounts stay decimal strings: copied as written when they fit FA(3)'s types, summed and converted
//   with big.js (decimal arithmetic) when several UBL amounts feed one FA(3) field.
import Big from "big.js";
import type { Fa3Node } from "./model.js";
import { childOf, childrenOf, firstAt, text } from "./model.js";
import { readCorrections, writeCorrections, type CorrectedInvoice } from "./fa3/correction.js";
import { writeLines } from "./fa3/lines.js";
import { countryOf, writeBuyer, writeSeller, writeThirdParties, type BuyerUnit } from "./fa3/parties.js";
import { writePayment } from "./fa3/payment.js";
import { date, Fa3MappingError, negate, QUANTITY } from "./fa3/values.js";
import { readVatBreakdown, writeAnnotations, writeVatTotals } from "./fa3/vat.js";
import { Xml } from "./fa3/xml.js";

export { Fa3MappingError } from "./fa3/values.js";
export { correctedInvoices, type CorrectedInvoice } from "./fa3/correction.js";
export { partyIdentifier, sellerNipOf, vatId, type BuyerUnit, type Fa3PartyId } from "./fa3/parties.js";

export const FA3_NAMESPACE = "http://crd.gov.pl/wzor/2025/06/25/13775/";
export const FA3_SCHEMA_VERSION = "1-0E";
export const FA3_SYSTEM_CODE = "FA (3)";

export interface Fa3Options {
  /**
   * The exchange rate to PLN for a foreign-currency invoice (VAT Act art. 31a: the NBP average rate
   * of the last working day before the tax point), a decimal string. Without it the invoice's
   * `cac:TaxExchangeRate` to PLN is used; without both, a foreign-currency invoice fails.
   */
  exchangeRate?: string;
  /** DataWytworzeniaFa (when the FA(3) was produced); now by default. */
  createdAt?: Date;
  /** Naglowek/SystemInfo. */
  systemInfo?: string;
  /**
   * Whether the buyer stands for a subordinate unit of a local government (JST) or for a member of a
   * VAT group (GV). EN 16931 has no term for either, so the mapping never infers it: called once per
   * invoice with the buyer's NIP (null without one) and name; a unit it returns sets Podmiot2/JST or
   * Podmiot2/GV to 1 and is written as Podmiot3 with role 8 (JST recipient) or 10 (VAT group member
   * recipient), as the schema requires. Without it, or when it returns null, JST and GV are 2.
   */
  buyerUnit?: (buyer: { nip: string | null; name: string }) => BuyerUnit | null;
  /**
   * For a UBL CreditNote (a correction, RodzajFaktury KOR): what KSeF knows of each invoice it
   * corrects (BT-25 number, BT-26 issue date): its KSeF number, or that it was issued outside KSeF.
   * UBL does not carry either, so the mapping never infers it: without an answer for every
   * corrected invoice, the credit note fails (Fa/DaneFaKorygowanej).
   */
  correctedInvoice?: (ref: { number: string; issueDate: string }) => CorrectedInvoice | null;
}

/** Whether the document is a credit note (KOR) and its type code (BT-3); throws for a kind FA(3) does not map. */
function kindOf(root: Fa3Node): { credit: boolean; typeCode: string } {
  const credit = root.name === "CreditNote";
  if (root.name !== "Invoice" && !credit) throw new Fa3MappingError("Fa/RodzajFaktury", `a UBL ${root.name} is not mapped: only an Invoice or a CreditNote`);
  const typeCode = text(childOf(root, credit ? "cbc:CreditNoteTypeCode" : "cbc:InvoiceTypeCode"));
  if (credit && typeCode !== "381") throw new Fa3MappingError("Fa/RodzajFaktury", `the credit note type code ${typeCode || "(none)"} is not mapped: only 381 (credit note) becomes RodzajFaktury KOR`);
  if (!credit && typeCode !== "380" && typeCode !== "389" && typeCode !== "326") {
    throw new Fa3MappingError("Fa/RodzajFaktury", `the invoice type code ${typeCode || "(none)"} is not mapped: only 380 (commercial), 326 (partial) and 389 (self-billed) become RodzajFaktury VAT`);
  }
  return { credit, typeCode };
}

/** The exchange rate to PLN of a foreign-currency invoice: the option, else the invoice's cac:TaxExchangeRate to PLN. */
function exchangeRate(root: Fa3Node, currency: string, option: string | undefined): string {
  let r = option ?? "";
  if (!r) {
    for (const ter of childrenOf(root, "cac:TaxExchangeRate")) {
      if (text(childOf(ter, "cbc:SourceCurrencyCode")).toUpperCase() === currency && text(childOf(ter, "cbc:TargetCurrencyCode")).toUpperCase() === "PLN") r = text(childOf(ter, "cbc:CalculationRate"));
    }
  }
  if (!r) throw new Fa3MappingError("Fa/P_14_1W", `the invoice is in ${currency || "(no currency)"}: FA(3) needs the VAT in PLN, and neither an exchange rate option nor a cac:TaxExchangeRate to PLN is given`);
  if (!QUANTITY.test(r) || new Big(r).lte(0)) throw new Fa3MappingError("Fa/FaWiersz/KursWaluty", `the exchange rate "${r}" is not a positive decimal with at most 6 decimals`);
  return r;
}

function writeHeader(x: Xml, options: Fa3Options): void {
  const created = (options.createdAt ?? new Date()).toISOString().replace(/\.\d{3}Z$/, "Z");
  x.open("Naglowek").open("KodFormularza", ` kodSystemowy="${FA3_SYSTEM_CODE}" wersjaSchemy="${FA3_SCHEMA_VERSION}"`);
  x.raw("FA").close("KodFormularza").leaf("WariantFormularza", "3").leaf("DataWytworzeniaFa", created).leaf("SystemInfo", options.systemInfo).close("Naglowek");
}

/** P_1 (issue date), P_2 (number), and P_6 (delivery date) or OkresFa (the invoicing period). */
function writeDates(x: Xml, root: Fa3Node): void {
  const issueDate = text(childOf(root, "cbc:IssueDate"));
  if (!issueDate) throw new Fa3MappingError("Fa/P_1", "the invoice has no issue date (BT-2)");
  const number = text(childOf(root, "cbc:ID"));
  if (!number) throw new Fa3MappingError("Fa/P_2", "the invoice has no number (BT-1)");
  x.leaf("P_1", date(issueDate, "Fa/P_1", "the issue date (BT-2)")).leaf("P_2", number.slice(0, 256));
  const delivery = text(firstAt(root, "cac:Delivery/cbc:ActualDeliveryDate"));
  const periodStart = text(firstAt(root, "cac:InvoicePeriod/cbc:StartDate"));
  const periodEnd = text(firstAt(root, "cac:InvoicePeriod/cbc:EndDate"));
  if (delivery) x.leaf("P_6", date(delivery, "Fa/P_6", "the delivery date (BT-72)"));
  else if (periodStart && periodEnd) x.open("OkresFa").leaf("P_6_Od", date(periodStart, "Fa/OkresFa/P_6_Od", "the invoicing period start (BT-73)")).leaf("P_6_Do", date(periodEnd, "Fa/OkresFa/P_6_Do", "the invoicing period end (BT-74)")).close("OkresFa");
}

/**
 * Maps a UBL Invoice (EN 16931) to an FA(3) XML document (UTF-8 text).
 * @throws Fa3MappingError naming the FA(3) field when a value cannot be mapped.
 */
export function toFa3(root: Fa3Node, options: Fa3Options = {}): string {
  const { credit, typeCode } = kindOf(root);
  // A credit note corrects earlier invoices (KOR): each needs its KSeF number or its outside-KSeF status.
  const corrections = credit ? readCorrections(root, options.correctedInvoice) : [];
  // A credit note's amounts are written as the correction's differences: negative.
  const signed = (v: string): string => (credit ? negate(v) : v);
  const currency = text(childOf(root, "cbc:DocumentCurrencyCode")).toUpperCase();
  const buyer = firstAt(root, "cac:AccountingCustomerParty/cac:Party");
  const rate = currency === "PLN" ? null : exchangeRate(root, currency, options.exchangeRate);

  const x = new Xml();
  x.open("Faktura", ` xmlns="${FA3_NAMESPACE}"`);
  writeHeader(x, options);
  const issuer = writeSeller(x, firstAt(root, "cac:AccountingSupplierParty/cac:Party"));
  const unit = writeBuyer(x, buyer, options.buyerUnit);
  writeThirdParties(x, root, unit, issuer);

  x.open("Fa").leaf("KodWaluty", currency);
  writeDates(x, root);
  const vat = readVatBreakdown(root, currency, countryOf(buyer));
  writeVatTotals(x, root, vat, signed, rate);
  writeAnnotations(x, root, typeCode, vat);
  x.leaf("RodzajFaktury", credit ? "KOR" : "VAT");
  writeCorrections(x, corrections);
  writeLines(x, { root, credit, signed, rate, vat });
  writePayment(x, root);
  x.close("Fa").close("Faktura");
  return `<?xml version="1.0" encoding="UTF-8"?>\n${x.toString()}`;
}

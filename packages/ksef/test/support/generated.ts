// Test support: the generated UBL documents the FA(3) golden test maps (and the FA(3) reader's round trip reads back),
// each with the options it is mapped with: together they reach every section of FA(3).
import type { Fa3Options } from "../../src/index.js";
import { ublCreditNote, ublInvoice, type Cat, type GenInvoice } from "./ubl.js";

export const KSEF_NUMBER = "5260250995-20261120-0100A0B1C2D3-4E";

const S = (percent: string): Cat => ({ id: "S", percent });
const line = (cat: Cat, price = "100.00", quantity = "2"): GenInvoice["lines"][number] => ({ name: `Towar ${cat.id} ${cat.percent}`, quantity, price, cat });
const mixed: GenInvoice["lines"] = [line(S("23"), "19.99", "7"), line(S("8"), "3.33", "3"), line(S("5"), "1.01", "11"), line({ id: "Z", percent: "0" }), line({ id: "E", percent: "0", exemptionCode: "VATEX-EU-132", exemptionReason: "Article 132(1)(c)" })];

/** Generated documents, each with the options it is mapped with. */
export const GENERATED: [string, () => { xml: string }, Fa3Options][] = [
  ["mixed rates", () => ublInvoice({ lines: mixed }), {}],
  ["notes, tax point 432, payee with NIP", () => ublInvoice({ notes: ["Metoda kasowa", "Mechanizm podzielonej płatności"], taxPointCode: "432", payee: { name: "Faktoring Polska S.A.", id: "PL5213017228", scheme: "9945" }, lines: [line(S("23"), "20000.00", "1")] }), {}],
  ["payee without NIP, tax representative", () => ublInvoice({ payee: { name: "Collect GmbH", id: "DE-991", scheme: "0088" }, taxRepresentative: { name: "Rep Sp. z o.o.", vat: "PL5213017228", country: "PL" }, lines: [line(S("23"))] }), {}],
  ["JST unit", () => ublInvoice({ lines: [line(S("23"))] }), { buyerUnit: () => ({ kind: "jst", nip: "5260250995", name: "Szkoła Podstawowa nr 1" }) }],
  ["VAT group member", () => ublInvoice({ lines: [line(S("23"))] }), { buyerUnit: () => ({ kind: "vat-group", nip: "5260250995" }) }],
  ["EU buyer, reverse charge", () => ublInvoice({ buyerCountry: "FR", buyerVat: "FR12345678901", lines: [line({ id: "AE", percent: "0", exemptionCode: "VATEX-EU-AE" })] }), {}],
  ["self-billed, margin scheme", () => ublInvoice({ typeCode: "389", lines: [line({ id: "E", percent: "0", exemptionCode: "VATEX-EU-I" })] }), {}],
  ["EUR with an exchange rate option", () => ublInvoice({ currency: "EUR", lines: [line(S("23"), "10.55", "3")] }), { exchangeRate: "4.2512" }],
  ["EUR with TaxExchangeRate", () => ublInvoice({ currency: "EUR", exchangeRate: "4.3", lines: [line(S("23"))] }), { systemInfo: "einvoice" }],
  [
    "allowances and charges",
    () => ublInvoice({ lines: [line(S("23")), line(S("8"))], allowancesCharges: [{ charge: false, amount: "10.00", reason: "Rabat", cat: S("23") }, { charge: true, amount: "5.50", reason: "Transport", cat: S("8") }] }),
    {},
  ],
  ["credit note, corrected invoice in KSeF", () => ublCreditNote({ corrects: [{ number: "FV/2026/11/001", issueDate: "2026-11-20" }], lines: [line(S("23"))] }), { correctedInvoice: () => ({ ksefNumber: KSEF_NUMBER }) }],
  [
    "credit note, two corrected invoices",
    () => ublCreditNote({ corrects: [{ number: "FV/OLD/1", issueDate: "2025-01-10" }, { number: "FV/2026/11/001", issueDate: "2026-11-20" }], lines: [line(S("23"))] }),
    { correctedInvoice: (r) => (r.number === "FV/OLD/1" ? { outsideKsef: true } : { ksefNumber: KSEF_NUMBER }) },
  ],
  ["a standard rate that is not Polish", () => ublInvoice({ lines: [line(S("19"))] }), {}],
  ["a quantity with 7 decimals", () => ublInvoice({ lines: [{ name: "x", quantity: "1.0000001", price: "100.00", cat: S("23") }] }), {}],
];


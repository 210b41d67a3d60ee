// The whole FA(3) output, byte for byte: the SHA-256 of what toFa3 writes (or the field and message
// of its Fa3MappingError) for every corpus invoice and credit note (with its seller made a Polish
// taxpayer) and for generated invoices that reach every section (third parties, buyer units,
// corrections, foreign currency, allowances and charges, payment), compared with
// fixtures/fa3-golden.tsv. A change of the mapping's output shows here as the documents it changes;
// UPDATE_GOLDEN=1 writes the file again (review its diff).
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Fa3MappingError, toFa3, type Fa3Node, type Fa3Options } from "../src/index.js";
import { corpusInvoices, corpusXml, withPolishSeller } from "./support/corpus.js";
import { ublTree } from "./support/tree.js";
import { ublCreditNote, ublInvoice, type Cat, type GenInvoice } from "./support/ubl.js";

const GOLDEN = resolve(import.meta.dirname, "fixtures/fa3-golden.tsv");
const CREATED = new Date("2026-11-20T10:00:00Z");
const KSEF_NUMBER = "5260250995-20261120-0100A0B1C2D3-4E";

/** One row: the FA(3)'s SHA-256 (hex), or `error <field> <sha256 of the message>`. */
function outcome(root: Fa3Node, options: Fa3Options): string {
  try {
    return createHash("sha256").update(toFa3(root, { createdAt: CREATED, ...options }), "utf8").digest("hex");
  } catch (e) {
    if (!(e instanceof Fa3MappingError)) throw e;
    return `error ${e.field} ${createHash("sha256").update(e.message, "utf8").digest("hex").slice(0, 16)}`;
  }
}

const S = (percent: string): Cat => ({ id: "S", percent });
const line = (cat: Cat, price = "100.00", quantity = "2"): GenInvoice["lines"][number] => ({ name: `Towar ${cat.id} ${cat.percent}`, quantity, price, cat });
const mixed: GenInvoice["lines"] = [line(S("23"), "19.99", "7"), line(S("8"), "3.33", "3"), line(S("5"), "1.01", "11"), line({ id: "Z", percent: "0" }), line({ id: "E", percent: "0", exemptionCode: "VATEX-EU-132", exemptionReason: "Article 132(1)(c)" })];

/** Generated documents, each with the options it is mapped with. */
const GENERATED: [string, () => { xml: string }, Fa3Options][] = [
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

function rows(): string[] {
  const out: string[] = [];
  for (const path of corpusInvoices()) {
    const xml = corpusXml(path);
    out.push(`corpus\t${path}\t${outcome(ublTree(xml), { exchangeRate: "4.25" })}`);
    const polish = withPolishSeller(ublTree(xml));
    if (polish) out.push(`corpus-pl\t${path}\t${outcome(polish, { exchangeRate: "4.25", correctedInvoice: () => ({ outsideKsef: true }) })}`);
  }
  for (const [name, make, options] of GENERATED) out.push(`generated\t${name}\t${outcome(ublTree(make().xml), options)}`);
  return out;
}

describe("toFa3: the whole output, byte for byte", () => {
  it("writes for every corpus and generated document exactly the FA(3) (or the mapping error) recorded in fixtures/fa3-golden.tsv", () => {
    const now = rows();
    if (process.env["UPDATE_GOLDEN"] === "1") writeFileSync(GOLDEN, `kind\tdocument\tsha256 of the FA(3), or error field message-hash\n${now.join("\n")}\n`);
    const golden = readFileSync(GOLDEN, "utf8").trimEnd().split("\n").slice(1);
    expect(now.length).toBeGreaterThan(150);
    expect(now).toEqual(golden);
  });
});

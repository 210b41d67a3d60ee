import Big from "big.js";
import { describe, expect, it } from "vitest";
import { Fa3MappingError, toFa3 } from "../src/index.js";
import { corpusInvoices as corpusList, corpusXml, withPolishSeller } from "./support/corpus.js";
import { fa3Values, ublTree } from "./support/tree.js";
import { fa3SchemaErrors } from "./support/xsd.js";
import { ublCreditNote, ublInvoice, type Cat, type GenInvoice, type GenTotals } from "./support/ubl.js";

const CREATED = new Date("2026-11-20T10:00:00Z");

function map(g: GenInvoice, options: Parameters<typeof toFa3>[1] = {}): { fa3: string; totals: GenTotals } {
  const { xml, totals } = ublInvoice(g);
  return { fa3: toFa3(ublTree(xml), { createdAt: CREATED, ...options }), totals };
}

const sumOf = (values: string[]): string => values.reduce((a, v) => a.plus(v), new Big(0)).toFixed(2);

/** Reads the totals back from an FA(3) document. */
function readBack(fa3: string): { net: string; vat: string; gross: string; lines: string } {
  const doc = fa3.replace(/<FaWiersz>.*?<\/FaWiersz>/gs, "");
  const net = [...doc.matchAll(/<P_13_[0-9_]+>([^<]+)</g)].map((m) => m[1]!);
  const vat = [...doc.matchAll(/<P_14_[0-9]+>([^<]+)</g)].map((m) => m[1]!);
  return { net: sumOf(net), vat: sumOf(vat), gross: new Big(fa3Values(fa3, "P_15")[0]!).toFixed(2), lines: sumOf(fa3Values(fa3, "P_11")) };
}

function line(cat: Cat, price = "100.00", quantity = "2"): GenInvoice["lines"][number] {
  return { name: `Towar ${cat.id} ${cat.percent}`, quantity, price, cat };
}

const S = (percent: string): Cat => ({ id: "S", percent });

// Every UBL VAT category and Polish rate FA(3) has a code for, with the code and totals field expected.
const CASES: { name: string; cat: Cat; buyerCountry?: string; buyerVat?: string | null; code: string | null; slot: string }[] = [
  { name: "S 23 %", cat: S("23"), code: "23", slot: "1" },
  { name: "S 22 %", cat: S("22"), code: "22", slot: "1" },
  { name: "S 8 %", cat: S("8"), code: "8", slot: "2" },
  { name: "S 7 %", cat: S("7"), code: "7", slot: "2" },
  { name: "S 5 %", cat: S("5"), code: "5", slot: "3" },
  { name: "S 4 %", cat: S("4"), code: "4", slot: "4" },
  { name: "S 3 %", cat: S("3"), code: "3", slot: "4" },
  { name: "Z (zero rated, domestic)", cat: { id: "Z", percent: "0" }, code: "0 KR", slot: "6_1" },
  { name: "K (intra-community supply)", cat: { id: "K", percent: "0", exemptionCode: "VATEX-EU-IC" }, buyerCountry: "DE", buyerVat: "DE123456789", code: "0 WDT", slot: "6_2" },
  { name: "G (export)", cat: { id: "G", percent: "0", exemptionCode: "VATEX-EU-G" }, buyerCountry: "US", buyerVat: null, code: "0 EX", slot: "6_3" },
  { name: "E (exempt, with its legal basis)", cat: { id: "E", percent: "0", exemptionReason: "art. 43 ust. 1 pkt 37 ustawy o VAT" }, code: "zw", slot: "7" },
  { name: "O (not subject to VAT)", cat: { id: "O", percent: "0", exemptionCode: "VATEX-EU-O" }, buyerCountry: "NO", buyerVat: "NO999999999MVA", code: "np I", slot: "8" },
  { name: "AE (reverse charge, EU services)", cat: { id: "AE", percent: "0", exemptionCode: "VATEX-EU-AE" }, buyerCountry: "FR", buyerVat: "FR12345678901", code: "np II", slot: "9" },
  { name: "AE (reverse charge, domestic)", cat: { id: "AE", percent: "0", exemptionCode: "VATEX-EU-AE" }, code: "oo", slot: "10" },
  { name: "E margin scheme, second-hand goods", cat: { id: "E", percent: "0", exemptionCode: "VATEX-EU-F" }, code: null, slot: "11" },
];

describe("toFa3: every mapped VAT category and rate", () => {
  for (const c of CASES) {
    it(`maps ${c.name} to ${c.code ? `P_12 "${c.code}"` : "a margin line without P_12"} and P_13_${c.slot}, valid against the FA(3) XSD, totals equal`, async () => {
      const { fa3, totals } = map({ lines: [line(c.cat), line(c.cat, "10.55", "3")], buyerCountry: c.buyerCountry, buyerVat: c.buyerVat });
      expect(await fa3SchemaErrors(fa3)).toEqual([]);
      expect(fa3Values(fa3, "P_12")).toEqual(c.code ? [c.code, c.code] : []);
      expect(fa3Values(fa3, `P_13_${c.slot}`)).toEqual([totals.taxExclusive]);
      const back = readBack(fa3);
      expect(back).toEqual({ net: totals.taxExclusive, vat: totals.tax, gross: totals.taxInclusive, lines: totals.taxExclusive });
    });
  }

  it("maps an invoice mixing every rate into one FA(3), each per-rate total in its own field", async () => {
    const { fa3, totals } = map({ lines: [line(S("23"), "19.99", "7"), line(S("8"), "3.33", "3"), line(S("5"), "1.01", "11"), line({ id: "Z", percent: "0" }), line({ id: "E", percent: "0", exemptionCode: "VATEX-EU-132", exemptionReason: "Article 132(1)(c)" })] });
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
    expect(readBack(fa3)).toEqual({ net: totals.taxExclusive, vat: totals.tax, gross: totals.taxInclusive, lines: totals.taxExclusive });
    expect(fa3Values(fa3, "P_13_1")).toEqual(["139.93"]);
    expect(fa3Values(fa3, "P_14_1")).toEqual(["32.18"]);
    expect(fa3Values(fa3, "P_19")).toEqual(["1"]);
    expect(fa3Values(fa3, "P_19B")).toEqual(["Article 132(1)(c)"]);
  });

  it("writes the header, seller, buyer, annotations and payment the schema requires", async () => {
    const { fa3 } = map({ lines: [line(S("23"))] });
    expect(fa3).toContain('<KodFormularza kodSystemowy="FA (3)" wersjaSchemy="1-0E">FA</KodFormularza><WariantFormularza>3</WariantFormularza><DataWytworzeniaFa>2026-11-20T10:00:00Z</DataWytworzeniaFa>');
    expect(fa3).toContain('<Faktura xmlns="http://crd.gov.pl/wzor/2025/06/25/13775/">');
    expect(fa3Values(fa3, "NIP")).toEqual(["5260250995", "5213017228"]);
    expect(fa3Values(fa3, "Nazwa")).toEqual(["Dostawca Sp. z o.o.", "Nabywca S.A. & Co"]);
    expect(fa3Values(fa3, "AdresL1")).toEqual(["ul. Prosta 1", "ul. Krzywa 2"]);
    expect(fa3Values(fa3, "JST")).toEqual(["2"]);
    expect(fa3Values(fa3, "GV")).toEqual(["2"]);
    expect(fa3Values(fa3, "P_1")).toEqual(["2026-11-20"]);
    expect(fa3Values(fa3, "P_2")).toEqual(["FV/2026/11/001"]);
    expect(fa3Values(fa3, "P_6")).toEqual(["2026-11-19"]);
    expect(fa3Values(fa3, "RodzajFaktury")).toEqual(["VAT"]);
    expect(fa3Values(fa3, "P_PMarzyN")).toEqual(["1"]);
    expect(fa3Values(fa3, "P_19N")).toEqual(["1"]);
    expect(fa3Values(fa3, "Termin")).toEqual(["2026-12-04"]);
    expect(fa3Values(fa3, "FormaPlatnosci")).toEqual(["6"]);
    expect(fa3Values(fa3, "NrRB")).toEqual(["PL61109010140000071219812874"]);
    expect(fa3Values(fa3, "P_8A")).toEqual(["C62"]);
    expect(fa3Values(fa3, "P_8B")).toEqual(["2"]);
    expect(fa3Values(fa3, "P_9A")).toEqual(["100.00"]);
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
  });

  it("marks reverse charge (P_18), self-billing (P_17) and the margin scheme kind (P_PMarzy_3_2 for works of art)", async () => {
    const rc = map({ typeCode: "389", lines: [line({ id: "AE", percent: "0", exemptionCode: "VATEX-EU-AE" })] }).fa3;
    expect(fa3Values(rc, "P_17")).toEqual(["1"]);
    expect(fa3Values(rc, "P_18")).toEqual(["1"]);
    expect(await fa3SchemaErrors(rc)).toEqual([]);
    const art = map({ lines: [line({ id: "E", percent: "0", exemptionCode: "VATEX-EU-I" })] }).fa3;
    expect(fa3Values(art, "P_PMarzy")).toEqual(["1"]);
    expect(fa3Values(art, "P_PMarzy_3_2")).toEqual(["1"]);
    expect(await fa3SchemaErrors(art)).toEqual([]);
  });
});

describe("toFa3: annotations and third parties only from explicit data", () => {
  // The Podmiot3 elements of an FA(3) document, as a document of their own in the FA(3) namespace.
  const podmiot3 = (fa3: string): string => `<Faktura xmlns="http://crd.gov.pl/wzor/2025/06/25/13775/">${/<Podmiot3>.*<\/Podmiot3>/s.exec(fa3)?.[0] ?? ""}</Faktura>`;
  const values = (fa3: string, ...names: string[]): Record<string, string[]> => Object.fromEntries(names.map((n) => [n, fa3Values(fa3, n)]));

  it("leaves cash accounting (P_16) and split payment (P_18A) at 2 when the invoice says neither", async () => {
    const { fa3 } = map({ notes: ["Dziękujemy za zakupy"], lines: [line(S("23"))] });
    expect(values(fa3, "P_16", "P_18A")).toEqual({ P_16: ["2"], P_18A: ["2"] });
  });

  it("marks cash accounting (P_16 1) from the VAT point date code 432 (BT-8: VAT due on the payment date)", async () => {
    const { fa3 } = map({ taxPointCode: "432", lines: [line(S("23"))] });
    expect(fa3Values(fa3, "P_16")).toEqual(["1"]);
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
    // Another tax point code (35: the delivery date) is not cash accounting.
    expect(fa3Values(map({ taxPointCode: "35", lines: [line(S("23"))] }).fa3, "P_16")).toEqual(["2"]);
  });

  it("marks cash accounting and split payment from the statutory words in a note (BT-22)", async () => {
    const { fa3 } = map({ notes: ["Metoda kasowa", "Mechanizm podzielonej płatności"], lines: [line(S("23"), "20000.00", "1")] });
    expect(values(fa3, "P_16", "P_18A")).toEqual({ P_16: ["1"], P_18A: ["1"] });
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
  });

  it("writes a payee other than the seller (BG-10) as Podmiot3 with its NIP (scheme 9945) and a described role", async () => {
    const { fa3 } = map({ payee: { name: "Faktoring Polska S.A.", id: "PL5213017228", scheme: "9945" }, lines: [line(S("23"))] });
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
    const p3 = podmiot3(fa3);
    expect(fa3Values(p3, "NIP")).toEqual(["5213017228"]);
    expect(fa3Values(p3, "Nazwa")).toEqual(["Faktoring Polska S.A."]);
    expect(values(p3, "RolaInna", "OpisRoli", "Rola")).toEqual({ RolaInna: ["1"], OpisRoli: ["Odbiorca płatności (payee, EN 16931 BG-10)"], Rola: [] });
  });

  it("writes a payee without a Polish identifier with BrakID, and no Podmiot3 when the payee is the seller", async () => {
    const other = map({ payee: { name: "Collect GmbH", id: "DE-991", scheme: "0088" }, lines: [line(S("23"))] }).fa3;
    expect(await fa3SchemaErrors(other)).toEqual([]);
    expect(fa3Values(other, "BrakID")).toEqual(["1"]);
    expect(map({ payee: { name: "Dostawca Sp. z o.o." }, lines: [line(S("23"))] }).fa3).not.toContain("<Podmiot3>");
  });

  it("writes the seller's tax representative (BG-11) as Podmiot3 with its VAT number", async () => {
    const { fa3 } = map({ taxRepresentative: { name: "Rep Sp. z o.o.", vat: "PL5213017228", country: "PL" }, lines: [line(S("23"))] });
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
    const p3 = podmiot3(fa3);
    expect(values(p3, "NIP", "Nazwa", "KodKraju")).toEqual({ NIP: ["5213017228"], Nazwa: ["Rep Sp. z o.o."], KodKraju: ["PL"] });
    expect(fa3Values(p3, "OpisRoli")[0]).toContain("BG-11");
  });

  it("sets JST or GV to 1 only when the buyerUnit option names the unit, written as Podmiot3 with role 8 or 10", async () => {
    const seen: unknown[] = [];
    const jst = map({ lines: [line(S("23"))] }, { buyerUnit: (b) => (seen.push(b), { kind: "jst", nip: "5260250995", name: "Szkoła Podstawowa nr 1" }) }).fa3;
    expect(seen).toEqual([{ nip: "5213017228", name: "Nabywca S.A. & Co" }]);
    expect(await fa3SchemaErrors(jst)).toEqual([]);
    expect(values(jst, "JST", "GV", "Rola")).toEqual({ JST: ["1"], GV: ["2"], Rola: ["8"] });
    const gv = map({ lines: [line(S("23"))] }, { buyerUnit: () => ({ kind: "vat-group", nip: "5260250995" }) }).fa3;
    expect(await fa3SchemaErrors(gv)).toEqual([]);
    expect(values(gv, "JST", "GV", "Rola")).toEqual({ JST: ["2"], GV: ["1"], Rola: ["10"] });
    const none = map({ lines: [line(S("23"))] }, { buyerUnit: () => null }).fa3;
    expect(values(none, "JST", "GV")).toEqual({ JST: ["2"], GV: ["2"] });
    expect(none).not.toContain("<Podmiot3>");
    expect(() => map({ lines: [line(S("23"))] }, { buyerUnit: () => ({ kind: "jst", nip: "12" }) })).toThrow(expect.objectContaining({ field: "Podmiot3/DaneIdentyfikacyjne/NIP" }));
  });
});

describe("toFa3: the buyer's identifier as FA(3) takes it", () => {
  // The buyer's identifier elements (Podmiot2/DaneIdentyfikacyjne), as a document of their own.
  const buyerIds = (fa3: string): Record<string, string[]> => {
    const p2 = `<Faktura xmlns="http://crd.gov.pl/wzor/2025/06/25/13775/">${/<Podmiot2>(<DaneIdentyfikacyjne>.*?<\/DaneIdentyfikacyjne>)/s.exec(fa3)?.[1] ?? ""}</Faktura>`;
    return Object.fromEntries(["NIP", "KodUE", "NrVatUE", "KodKraju", "NrID", "BrakID"].map((n) => [n, fa3Values(p2, n)]).filter(([, v]) => v!.length > 0));
  };

  it("a Polish buyer by its NIP (BT-48 PL and 10 digits)", async () => {
    const { fa3 } = map({ buyerVat: "PL5213017228", lines: [line(S("23"))] });
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
    expect(buyerIds(fa3)).toEqual({ NIP: ["5213017228"] });
  });

  it("an EU buyer by its VAT number: KodUE the prefix, NrVatUE the rest (EL for Greece)", async () => {
    const de = map({ buyerVat: "DE123456789", buyerCountry: "DE", lines: [line({ id: "K", percent: "0", exemptionCode: "VATEX-EU-IC" })] }).fa3;
    expect(await fa3SchemaErrors(de)).toEqual([]);
    expect(buyerIds(de)).toEqual({ KodUE: ["DE"], NrVatUE: ["123456789"] });
    const gr = map({ buyerVat: "EL123456789", buyerCountry: "GR", lines: [line({ id: "K", percent: "0", exemptionCode: "VATEX-EU-IC" })] }).fa3;
    expect(buyerIds(gr)).toEqual({ KodUE: ["EL"], NrVatUE: ["123456789"] });
  });

  it("a buyer outside the EU by its tax identifier: KodKraju its country (BT-55), NrID BT-48 without that country's prefix", async () => {
    const us = map({ buyerVat: "US123456789", buyerCountry: "US", lines: [line({ id: "G", percent: "0", exemptionCode: "VATEX-EU-G" })] }).fa3;
    expect(await fa3SchemaErrors(us)).toEqual([]);
    expect(buyerIds(us)).toEqual({ KodKraju: ["US"], NrID: ["123456789"] });
    const no = map({ buyerVat: "NO999999999MVA", buyerCountry: "NO", lines: [line({ id: "O", percent: "0", exemptionCode: "VATEX-EU-O" })] }).fa3;
    expect(await fa3SchemaErrors(no)).toEqual([]);
    expect(buyerIds(no)).toEqual({ KodKraju: ["NO"], NrID: ["999999999MVA"] });
  });

  it("a consumer (no BT-48) with BrakID", async () => {
    const { fa3 } = map({ buyerVat: null, lines: [line(S("23"))] });
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
    expect(buyerIds(fa3)).toEqual({ BrakID: ["1"] });
  });

  it("takes the seller's NIP from BT-31 with or without the PL prefix", async () => {
    const bare = map({ sellerVat: "5260250995", lines: [line(S("23"))] }).fa3;
    expect(await fa3SchemaErrors(bare)).toEqual([]);
    expect(fa3Values(bare, "NIP")[0]).toBe("5260250995");
  });
});

describe("toFa3: a credit note becomes a correction (KOR) only when the corrected invoice is known to KSeF or known to be outside it", () => {
  const KSEF_NUMBER = "5260250995-20261120-0A1B2C3D4E5F-7A";
  const credit = (corrects: { number: string; issueDate?: string }[], options: Parameters<typeof toFa3>[1] = {}) => {
    const { xml, totals } = ublCreditNote({ corrects, lines: [line(S("23"), "40.00", "2"), line(S("8"), "12.50", "1")], allowancesCharges: [{ charge: false, amount: "5.00", reason: "Rabat", cat: S("23") }] });
    return { fa3: toFa3(ublTree(xml), { createdAt: CREATED, ...options }), totals };
  };
  const neg = (v: string): string => new Big(v).times(-1).toFixed(2);

  it("maps a CreditNote correcting an invoice in KSeF to KOR with DaneFaKorygowanej (BT-25, BT-26, its KSeF number) and the amounts as negative differences", async () => {
    const asked: unknown[] = [];
    const { fa3, totals } = credit([{ number: "FV/2026/11/001", issueDate: "2026-11-20" }], { correctedInvoice: (r) => (asked.push(r), { ksefNumber: KSEF_NUMBER }) });
    expect(asked).toEqual([{ number: "FV/2026/11/001", issueDate: "2026-11-20" }]);
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
    expect(fa3Values(fa3, "RodzajFaktury")).toEqual(["KOR"]);
    expect(["DataWystFaKorygowanej", "NrFaKorygowanej", "NrKSeF", "NrKSeFFaKorygowanej"].map((n) => fa3Values(fa3, n))).toEqual([["2026-11-20"], ["FV/2026/11/001"], ["1"], [KSEF_NUMBER]]);
    expect(readBack(fa3)).toEqual({ net: neg(totals.taxExclusive), vat: neg(totals.tax), gross: neg(totals.taxInclusive), lines: neg(totals.taxExclusive) });
    expect(fa3Values(fa3, "P_11")).toEqual(["-80.00", "-12.50", "5.00"]);
    expect(fa3Values(fa3, "P_8B")).toEqual(["-2", "-1"]);
  });

  it("marks a corrected invoice issued outside KSeF with NrKSeFN, and writes one DaneFaKorygowanej per corrected invoice", async () => {
    const { fa3 } = credit(
      [
        { number: "FV/OLD/1", issueDate: "2025-12-01" },
        { number: "FV/2026/11/002", issueDate: "2026-11-21" },
      ],
      { correctedInvoice: (r) => (r.number === "FV/OLD/1" ? { outsideKsef: true } : { ksefNumber: KSEF_NUMBER }) },
    );
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
    expect(fa3Values(fa3, "NrFaKorygowanej")).toEqual(["FV/OLD/1", "FV/2026/11/002"]);
    expect(fa3Values(fa3, "NrKSeFN")).toEqual(["1"]);
    expect(fa3Values(fa3, "NrKSeFFaKorygowanej")).toEqual([KSEF_NUMBER]);
  });

  it("fails naming DaneFaKorygowanej when nothing states the corrected invoice's KSeF number or outside-KSeF status", () => {
    expect(() => credit([{ number: "FV/2026/11/001", issueDate: "2026-11-20" }])).toThrow(expect.objectContaining({ field: "Fa/DaneFaKorygowanej", message: expect.stringContaining("need the KSeF number of the corrected invoice FV/2026/11/001") }));
    expect(() => credit([{ number: "FV/2026/11/001", issueDate: "2026-11-20" }], { correctedInvoice: () => null })).toThrow(expect.objectContaining({ field: "Fa/DaneFaKorygowanej" }));
  });

  it("fails without the preceding invoice reference (BT-25) or its issue date (BT-26), and on a value that is not a KSeF number", () => {
    const known = { correctedInvoice: () => ({ ksefNumber: KSEF_NUMBER }) };
    expect(() => credit([], known)).toThrow(expect.objectContaining({ field: "Fa/DaneFaKorygowanej/NrFaKorygowanej" }));
    expect(() => credit([{ number: "FV/1" }], known)).toThrow(expect.objectContaining({ field: "Fa/DaneFaKorygowanej/DataWystFaKorygowanej" }));
    expect(() => credit([{ number: "FV/1", issueDate: "2026-11-20" }], { correctedInvoice: () => ({ ksefNumber: "FV/1" }) })).toThrow(expect.objectContaining({ field: "Fa/DaneFaKorygowanej/NrKSeFFaKorygowanej" }));
  });
});

describe("toFa3: foreign currency", () => {
  it("writes the VAT in PLN (P_14_xW) at the given exchange rate, rounded half up, and the rate on each line", async () => {
    const { fa3, totals } = map({ currency: "EUR", lines: [line(S("23"), "33.33", "3"), line(S("8"), "10.00", "1")] }, { exchangeRate: "4.2512" });
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
    expect(fa3Values(fa3, "KodWaluty")).toEqual(["EUR"]);
    expect(fa3Values(fa3, "P_14_1")).toEqual(["23.00"]);
    expect(fa3Values(fa3, "P_14_1W")).toEqual(["97.78"]); // 23.00 × 4.2512 = 97.7776
    expect(fa3Values(fa3, "P_14_2W")).toEqual(["3.40"]); // 0.80 × 4.2512 = 3.40096
    expect(fa3Values(fa3, "KursWaluty")).toEqual(["4.2512", "4.2512"]);
    expect(readBack(fa3).gross).toBe(totals.taxInclusive);
  });

  it("takes the rate from the invoice's cac:TaxExchangeRate to PLN when no option is given", async () => {
    const { fa3 } = map({ currency: "USD", exchangeRate: "3.9", lines: [line(S("23"))] });
    expect(fa3Values(fa3, "P_14_1W")).toEqual(["179.40"]);
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
  });

  it("fails naming P_14_1W when a foreign-currency invoice has no exchange rate", () => {
    expect(() => map({ currency: "EUR", lines: [line(S("23"))] })).toThrow(expect.objectContaining({ name: "Fa3MappingError", field: "Fa/P_14_1W" }));
  });
});

describe("toFa3: allowances and charges", () => {
  it("writes document-level allowances (negative) and charges as lines, so lines and per-rate totals agree", async () => {
    const { fa3, totals } = map({
      lines: [line(S("23"), "250.00", "4"), line(S("8"), "12.50", "8")],
      allowancesCharges: [
        { charge: false, amount: "50.00", reason: "Rabat", cat: S("23") },
        { charge: true, amount: "15.00", reason: "Transport", cat: S("8") },
      ],
    });
    expect(await fa3SchemaErrors(fa3)).toEqual([]);
    expect(fa3Values(fa3, "P_11")).toEqual(["1000.00", "100.00", "-50.00", "15.00"]);
    expect(fa3Values(fa3, "P_7").slice(2)).toEqual(["Allowance: Rabat", "Charge: Transport"]);
    expect(fa3Values(fa3, "P_13_1")).toEqual(["950.00"]);
    expect(fa3Values(fa3, "P_13_2")).toEqual(["115.00"]);
    expect(readBack(fa3)).toEqual({ net: totals.taxExclusive, vat: totals.tax, gross: totals.taxInclusive, lines: totals.taxExclusive });
  });
});

describe("toFa3: what does not map fails naming the field", () => {
  const fails = (g: GenInvoice, field: string, message: RegExp): void => {
    let error: unknown;
    try {
      map(g);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Fa3MappingError);
    expect((error as Fa3MappingError).field).toBe(field);
    expect((error as Fa3MappingError).message).toMatch(message);
  };

  it("a VAT category without an FA(3) rate code (L, Canary Islands)", () => fails({ lines: [line({ id: "L", percent: "7" })] }, "Fa/P_13 (VAT breakdown 1)", /VAT category L has no FA\(3\) rate code/));
  it("a standard rate that is not Polish (19 %)", () => fails({ lines: [line(S("19"))] }, "Fa/P_13 (VAT breakdown 1)", /standard rate 19 %/));
  it("a seller without a Polish VAT number", () => fails({ sellerVat: "DE123456789", sellerCountry: "DE", lines: [line(S("23"))] }, "Podmiot1/DaneIdentyfikacyjne/NIP", /"DE123456789"/));
  it("a seller whose NIP has a wrong check digit", () => fails({ sellerVat: "PL5260250994", lines: [line(S("23"))] }, "Podmiot1/DaneIdentyfikacyjne/NIP", /check digit/));
  it("an exempt supply without its legal basis", () => fails({ lines: [line({ id: "E", percent: "0" })] }, "Fa/Adnotacje/Zwolnienie/P_19A", /BT-120/));
  it("reverse charge to a buyer outside the EU", () => fails({ buyerCountry: "US", buyerVat: null, lines: [line({ id: "AE", percent: "0" })] }, "Fa/P_13 (VAT breakdown 1)", /buyer in US/));
  it("a prepayment invoice (386)", () => fails({ typeCode: "386", lines: [line(S("23"))] }, "Fa/RodzajFaktury", /386/));
  it("a quantity with more than 6 decimals", () => fails({ lines: [{ name: "x", quantity: "1.0000001", price: "100.00", cat: S("23") }] }, "Fa/FaWiersz[1]/P_8B", /6 decimals/));
});

// The corpus: every UBL Invoice either maps to a valid FA(3) whose totals equal the UBL totals, or
// fails with a Fa3MappingError naming the field (most corpus sellers are not Polish taxpayers).
const corpusInvoices = corpusList();

describe("toFa3 on the corpus", () => {
  it("maps each corpus invoice or fails with a Fa3MappingError naming an FA(3) field, never another error", async () => {
    expect(corpusInvoices.length).toBeGreaterThan(100);
    const outcome = { mapped: 0, failed: new Map<string, number>() };
    for (const path of corpusInvoices) {
      const xml = corpusXml(path);
      const root = ublTree(xml);
      let fa3: string;
      try {
        fa3 = toFa3(root, { createdAt: CREATED, exchangeRate: "4.25" });
      } catch (e) {
        if (!(e instanceof Fa3MappingError)) throw new Error(`${path}: ${String(e)}`);
        expect(e.field, path).toMatch(/^(Podmiot1|Podmiot2|Fa)\//);
        outcome.failed.set(e.field, (outcome.failed.get(e.field) ?? 0) + 1);
        continue;
      }
      outcome.mapped++;
      expect(await fa3SchemaErrors(fa3), path).toEqual([]);
      const back = readBack(fa3);
      expect(back.gross, path).toBe(new Big(textOf(xml, "TaxInclusiveAmount")).toFixed(2));
      expect(back.net, path).toBe(new Big(textOf(xml, "TaxExclusiveAmount")).toFixed(2));
    }
    // Which fields stop corpus invoices, for the docs (the corpus sellers are mostly not Polish).
    expect(outcome.failed.get("Podmiot1/DaneIdentyfikacyjne/NIP") ?? 0).toBeGreaterThan(0);
    // eslint-disable-next-line no-console
    console.log(`corpus: ${outcome.mapped} mapped, failures by field: ${JSON.stringify(Object.fromEntries(outcome.failed))}`);
  });

  it("maps the corpus invoices and credit notes once their seller is a Polish taxpayer: valid FA(3), totals equal (a credit note's negated), or a documented failure", async () => {
    let mapped = 0;
    let credits = 0;
    const failed = new Map<string, number>();
    for (const path of corpusInvoices) {
      const xml = corpusXml(path);
      // The seller's VAT identifier (BT-31) becomes a Polish NIP; everything else is the corpus document.
      const root = withPolishSeller(ublTree(xml));
      if (!root) continue;
      let fa3: string;
      try {
        // The corrected invoices of a credit note, said to be issued outside KSeF.
        fa3 = toFa3(root, { createdAt: CREATED, exchangeRate: "4.25", correctedInvoice: () => ({ outsideKsef: true }) });
      } catch (e) {
        if (!(e instanceof Fa3MappingError)) throw new Error(`${path}: ${String(e)}`);
        expect(e.field, path).not.toBe("Podmiot1/DaneIdentyfikacyjne/NIP");
        expect(e.field, path).not.toBe("Fa/DaneFaKorygowanej");
        failed.set(e.field, (failed.get(e.field) ?? 0) + 1);
        continue;
      }
      mapped++;
      if (root.name === "CreditNote") credits++;
      const sign = root.name === "CreditNote" ? -1 : 1;
      expect(await fa3SchemaErrors(fa3), path).toEqual([]);
      const back = readBack(fa3);
      expect(back.gross, path).toBe(new Big(textOf(xml, "TaxInclusiveAmount")).times(sign).toFixed(2));
      expect(back.net, path).toBe(new Big(textOf(xml, "TaxExclusiveAmount")).times(sign).toFixed(2));
    }
    // eslint-disable-next-line no-console
    console.log(`corpus with a Polish seller: ${mapped} mapped (${credits} credit notes as KOR), failures by field: ${JSON.stringify(Object.fromEntries(failed))}`);
    expect(mapped).toBeGreaterThanOrEqual(15);
  });
});

function textOf(xml: string, local: string): string {
  return new RegExp(`<cbc:${local}[^>]*>([^<]+)<`).exec(xml)?.[1]?.trim() ?? "";
}

// readFa3, the inverse of toFa3: every FA(3) the golden test writes (the corpus made Polish, the generated
// documents) read back equals the UBL's InvoiceData field by field, but for the differences listed in LOSSES,
// each with its reason; any other difference fails. Then odd and hostile input.
import Big from "big.js";
import { ApiError, invoiceDataOf, type DocumentNode, type InvoiceData } from "@einvoice/core";
import { describe, expect, it } from "vitest";
import { fa3Root, fa3Syntax, Fa3MappingError, readFa3, toFa3, type Fa3Node, type Fa3Options } from "../src/index.js";
import { corpusInvoices, corpusXml, withPolishSeller } from "./support/corpus.js";
import { GENERATED } from "./support/generated.js";
import { ublTree } from "./support/tree.js";
import { fa3SchemaErrors } from "./support/xsd.js";

const CREATED = new Date("2026-11-20T10:00:00Z");

interface Case {
  name: string;
  ubl: InvoiceData;
  credit: boolean;
  fa3: string;
}

/** Every document the golden test maps to an FA(3) (not those it records a mapping error for). */
function cases(): Case[] {
  const out: Case[] = [];
  const add = (name: string, root: Fa3Node, options: Fa3Options) => {
    let fa3: string;
    try {
      fa3 = toFa3(root, { createdAt: CREATED, ...options });
    } catch (e) {
      if (e instanceof Fa3MappingError) return;
      throw e;
    }
    out.push({ name, ubl: invoiceDataOf(root as DocumentNode), credit: root.name === "CreditNote", fa3 });
  };
  for (const path of corpusInvoices()) {
    const polish = withPolishSeller(ublTree(corpusXml(path)));
    if (polish) add(`corpus ${path}`, polish, { exchangeRate: "4.25", correctedInvoice: () => ({ outsideKsef: true }) });
  }
  for (const [name, make, options] of GENERATED) add(`generated ${name}`, ublTree(make().xml), options);
  return out;
}


type Address = InvoiceData["seller"]["address"];
type Breakdown = NonNullable<NonNullable<InvoiceData["totals"]>["vatBreakdown"]>;

/** The two lines toFa3 writes an address as (parties.ts): the street lines joined, then post code, city and subdivision. */
function fa3Lines(a: Address | undefined): string[] | undefined {
  if (!a) return undefined;
  const tidy = (x: string | undefined) => (x ?? "").replace(/[ \t\r\n]+/g, " ").trim();
  const street = (a.lines ?? []).map(tidy).filter(Boolean).join(", ");
  const city = [a.postalCode, a.city, a.subdivision].map(tidy).filter(Boolean).join(" ");
  const out = [street || city, street ? city : ""].filter(Boolean).map((l) => l.slice(0, 512));
  return out.length > 0 ? out : undefined;
}

/** The FA(3) totals slot of a category and rate (vat.ts's rateSlot), as the reader names it back. */
function slotKey(category: string, rate: string | undefined): string {
  const r = rate === undefined ? "" : new Big(rate).toFixed();
  if (category === "S") return `S|${r === "22" ? "23" : r === "7" ? "8" : r === "3" ? "4" : r}`;
  return category === "O" ? "O|" : `${category}|0`;
}

/** The UBL breakdown as FA(3) holds it: the subtotals of one slot summed. */
function bySlot(b: Breakdown | undefined): Map<string, [Big, Big]> {
  const out = new Map<string, [Big, Big]>();
  for (const e of b ?? []) {
    const k = slotKey(e.category, e.rate);
    const [n, t] = out.get(k) ?? [new Big(0), new Big(0)];
    out.set(k, [n.plus(e.taxableAmount), t.plus(e.taxAmount)]);
  }
  return out;
}

/** UNCL 4461 → TFormaPlatnosci (payment.ts) → UNCL 4461 (read.ts). */
const MEANS_BACK: Record<string, string> = { "10": "10", "20": "20", "30": "30", "31": "30", "42": "30", "58": "30", "48": "48", "54": "48", "55": "48", "68": "68" };
const VATEX: Record<string, string> = { AE: "VATEX-EU-AE", K: "VATEX-EU-IC", G: "VATEX-EU-G", O: "VATEX-EU-O" };
const STATUTORY = new Set([
  "metoda kasowa",
  "samofakturowanie",
  "odwrotne obciążenie",
  "mechanizm podzielonej płatności",
  "procedura marży - towary używane",
  "procedura marży - dzieła sztuki",
  "procedura marży - przedmioty kolekcjonerskie i antyki",
]);

interface Whole {
  /** The InvoiceData field, compared as a whole, then left out of the field-by-field comparison. */
  field: string;
  reason: string;
  holds: (ubl: InvoiceData, read: InvoiceData) => boolean;
}

/** Fields FA(3) carries in another form: each compared as a whole with what toFa3 makes of it. */
const WHOLE: Whole[] = [
  ...(["seller", "buyer"] as const).map((p) => ({
    field: `/${p}/address`,
    reason: "FA(3) writes an address as two free lines (AdresL1: the street lines joined; AdresL2: post code, city, subdivision) and KodKraju: read back as an address line and a city line (a Polish post code at its start as the post code), which toFa3 writes as the same two lines",
    holds: (u: InvoiceData, r: InvoiceData) => JSON.stringify(fa3Lines(r[p].address)) === JSON.stringify(fa3Lines(u[p].address)) && r[p].address.country === u[p].address.country && (r[p].address.lines ?? []).length <= 1,
  })),
  {
    field: "/taxRepresentative/address",
    reason: "the tax representative's address: two free lines, as the parties' (Podmiot3/Adres)",
    holds: (u, r) => {
      if (!u.taxRepresentative) return !r.taxRepresentative;
      const lines = fa3Lines(u.taxRepresentative.address);
      // toFa3 leaves out an address without a line (Podmiot3/Adres is optional): its country reads "".
      return JSON.stringify(fa3Lines(r.taxRepresentative?.address)) === JSON.stringify(lines) && r.taxRepresentative?.address.country === (lines ? u.taxRepresentative.address.country : "");
    },
  },
  {
    field: "/totals/vatBreakdown",
    reason: "FA(3) has one net total per rate slot (P_13_x; 23 and 22 % share P_13_1, 8 and 7 % P_13_2) and a VAT total only for the taxed slots (P_14_1 to P_14_5): subtotals of one slot are summed, a zero-rated or exempt slot's VAT reads 0.00, a rate reads as FA(3)'s code says it (0, not 0.00)",
    holds: (u, r) => {
      const want = bySlot(u.totals?.vatBreakdown);
      const got = r.totals?.vatBreakdown ?? [];
      return got.length === want.size && got.every((e) => {
        const w = want.get(slotKey(e.category, e.rate));
        return w !== undefined && w[0].eq(e.taxableAmount) && w[1].eq(e.taxAmount);
      });
    },
  },
  {
    field: "/notes",
    reason: "toFa3 writes no free text (BT-22; FA(3)'s DodatkowyOpis and Stopka are not written): it sets the annotations P_16 (metoda kasowa) and P_18A (mechanizm podzielonej płatności) from two statutory phrases; the reader writes every annotation set to 1 as its statutory words",
    holds: (_u, r) => (r.notes ?? []).every((n) => STATUTORY.has(n)),
  },
  {
    field: "/vatExemptions",
    reason: "FA(3) holds the legal basis of an exempt supply only (P_19A/P_19B: BT-120, else BT-121 when there is no text) and no reason for the other categories, which its rate codes name: read as the category's own VATEX code (0 WDT: VATEX-EU-IC, 0 EX: VATEX-EU-G, oo and np II: VATEX-EU-AE, np I: VATEX-EU-O), a margin scheme's as its VATEX code",
    holds: (u, r) => {
      const got = (r.vatExemptions ?? {}) as Record<string, { reason?: string; code?: string }>;
      const want = (u.vatExemptions ?? {}) as Record<string, { reason?: string; code?: string }>;
      return Object.entries(got).every(([cat, e]) => {
        if (cat === "E") return e.reason !== undefined ? e.reason === (want["E"]?.reason ?? want["E"]?.code) : e.code === want["E"]?.code;
        return e.reason === undefined && e.code === VATEX[cat];
      });
    },
  },
  {
    field: "/vatAccountingCurrency",
    reason: "FA(3) states the VAT of a foreign-currency invoice in PLN (P_14_xW, toFa3 computes it with the exchange rate): read as the VAT accounting currency PLN (BT-6) and the sum of P_14_xW (BT-111); a UBL's TaxCurrencyCode other than PLN has no place",
    holds: (u, r) => (r.vatAccountingCurrency === undefined ? u.currency === "PLN" || !(u.totals?.vatBreakdown ?? []).some((e) => e.category === "S") : u.currency !== "PLN" && r.vatAccountingCurrency.code === "PLN"),
  },
];

type Kind = "no place in FA(3)" | "not written by toFa3" | "another form";

interface Loss {
  path: RegExp;
  kind: Kind;
  reason: string;
  /** What the read value must be; absent by default. */
  holds?: (read: string | undefined, ubl: string | undefined, path: string, u: InvoiceData) => boolean;
}

/** Each field the round trip cannot keep, with its reason. */
const LOSSES: Loss[] = [
  { path: /^\/profileId$/, kind: "no place in FA(3)", reason: "BT-23: FA(3) is one process, KSeF's" },
  { path: /^\/specification$/, kind: "no place in FA(3)", reason: "BT-24: FA(3) names its schema (KodFormularza), not an EN 16931 specification" },
  { path: /^\/(seller|buyer)\/endpoint\/(scheme|id)$/, kind: "no place in FA(3)", reason: "BT-34/BT-49: KSeF addresses parties by NIP, FA(3) has no electronic address; read as \"\" (InvoiceData requires the field)", holds: (r) => r === "" },
  { path: /^\/totals\/(lineTotal|allowanceTotal|chargeTotal|taxExclusive|vatTotal)$/, kind: "no place in FA(3)", reason: "BT-106 to BT-110: FA(3) has no such totals (they are sums of P_11, P_13_x, P_14_x); the reader does not recompute them" },
  { path: /^\/totals\/payable$/, kind: "another form", reason: "BT-115: toFa3 writes the total with VAT (BT-112) as P_15; paid and rounding amounts are not written, so the amount due reads as P_15", holds: (r, _b, _p, u) => r === u.totals?.taxInclusive },
  { path: /^\/(paidAmount|roundingAmount)$/, kind: "not written by toFa3", reason: "BT-113, BT-114: FA(3) has payment state (Platnosc/Zaplacono, ZaplataCzesciowa) and Rozliczenie, which toFa3 does not write" },
  { path: /^\/(buyerReference|projectReference|salesOrderReference|receivingAdviceReference|tenderReference|accountingCost|objectId\/.*)$/, kind: "no place in FA(3)", reason: "BT-10, BT-11, BT-14, BT-15, BT-17, BT-18, BT-19 have no FA(3) field" },
  { path: /^\/(orderReference|contractReference|despatchAdviceReference)$/, kind: "not written by toFa3", reason: "BT-13, BT-12, BT-16: FA(3) has WarunkiTransakcji/Zamowienia, Umowy and WZ (the reader reads them), toFa3 does not write them" },
  { path: /^\/taxPointDate$/, kind: "not written by toFa3", reason: "BT-7: FA(3)'s P_6 is the delivery date, which toFa3 writes from BT-72" },
  { path: /^\/paymentTerms$/, kind: "no place in FA(3)", reason: "BT-20: FA(3)'s TerminOpis is structured (a number, a unit, an event), it has no free text" },
  { path: /^\/attachments\//, kind: "no place in FA(3)", reason: "BG-24: FA(3)'s Zalacznik is structured data, not files or links" },
  { path: /^\/(seller|buyer)\/(tradingName|legalInfo|taxRegistrationId|legalId\/(id|scheme))$/, kind: "no place in FA(3)", reason: "BT-28/45, BT-33, BT-32, BT-30/47: FA(3) names a party once (Nazwa) and has no legal form; its registry numbers (Stopka/Rejestry: KRS, REGON, BDO) are not written" },
  { path: /^\/(seller|buyer)\/identifiers\/\d+\/(id|scheme)$/, kind: "not written by toFa3", reason: "BT-29, BT-46: FA(3) has a GLN in the address (Adres/GLN) and a customer number (NrKlienta), read back as identifiers; toFa3 writes neither" },
  { path: /^\/(seller|buyer)\/contact\/name$/, kind: "no place in FA(3)", reason: "BT-41, BT-56: FA(3)'s contact data has no person's name" },
  { path: /^\/(seller|buyer)\/contact\/(email|phone)$/, kind: "not written by toFa3", reason: "BT-42/43, BT-57/58: FA(3)'s DaneKontaktowe (read back), not written by toFa3" },
  { path: /^\/payee\/(legalId\/.*|identifier\/(id|scheme))$/, kind: "another form", reason: "BT-60, BT-61: FA(3)'s Podmiot3 carries a NIP only: toFa3 writes a payee identifier of scheme 9945 as the NIP, read back as PL + NIP with scheme 9945; others are lost", holds: (r, _b, path, u) => (path.endsWith("/id") ? r === undefined || r === `PL${(u.payee?.identifier?.id ?? "").replace(/^PL/i, "")}` : r === undefined || r === "9945") },
  { path: /^\/delivery\/(partyName|location\/.*|address\/.*)$/, kind: "not written by toFa3", reason: "BT-70, BT-71, BG-15: a deliver-to party is FA(3)'s Podmiot3 with role 2 (Odbiorca), or 8 or 10 (a local-government unit or VAT-group member receiving: toFa3's buyerUnit option), read back as the deliver-to party; toFa3 writes none of the UBL's", holds: (r, b) => r === undefined || b === undefined },
  { path: /^\/period\/(start|end)$/, kind: "another form", reason: "BT-73, BT-74: FA(3) has the delivery date (P_6) or the invoicing period (OkresFa), not both: toFa3 writes the delivery date when there is one", holds: (r, b) => r === undefined || r === b },
  { path: /^\/(allowances|charges)\/\d+\/amount$/, kind: "another form", reason: "BT-92, BT-99: the amount of toFa3's allowance line, with 2 decimals", holds: (r, b) => r !== undefined && b !== undefined && new Big(r).eq(b) },
  { path: /^\/payment\/meansCode$/, kind: "another form", reason: "BT-81: FA(3) has seven forms of payment: each UNCL 4461 code toFa3 maps to one reads back as that form's first code (30, 31, 42, 58 → 6 → 30; 48, 54, 55 → 2 → 48)", holds: (r, b) => r === MEANS_BACK[b ?? ""] },
  { path: /^\/payment\/(meansText|reference|card\/.*|directDebit\/.*)$/, kind: "no place in FA(3)", reason: "BT-82 (when FA(3) has a form for the code), BT-83, BG-18, BG-19: FA(3) has no remittance information, card or direct debit" },
  { path: /^\/payment\/accounts\/\d+\/(iban|bic|name)$/, kind: "another form", reason: "BG-17: toFa3 writes an account of 10 to 34 characters without spaces (NrRB), a BIC only when it is one (SWIFT)", holds: (r, b) => r === undefined || r === (b ?? "").replace(/\s/g, "") },
  { path: /^\/lines\/\d+\/id$/, kind: "another form", reason: "BT-126: FA(3) numbers its lines 1, 2, … (NrWierszaFa)", holds: (r, _b, path) => r === String(Number(path.split("/")[2]) + 1) },
  { path: /^\/lines\/\d+\/(note|description|objectId\/.*|orderLineReference|accountingCost|period\/(start|end)|buyerItemId|originCountry|attributes\/.*|classifications\/.*|grossPrice|priceBaseUnitCode)$/, kind: "no place in FA(3)", reason: "BT-127, BT-154, BT-128, BT-132, BT-133, BG-26, BT-156, BT-159, BG-32, BT-158 (FA(3)'s PKWiU, CN and PKOB are Polish schemes), BT-148, BT-150: no FA(3) field" },
  { path: /^\/lines\/\d+\/(allowances|charges)\/.*$/, kind: "no place in FA(3)", reason: "BG-27, BG-28: FA(3)'s P_10 holds a line's discount as an amount only; toFa3 writes the net amount after them" },
  { path: /^\/lines\/\d+\/(price|priceBaseQuantity)$/, kind: "another form", reason: "BT-146, BT-149: FA(3)'s P_9A is the price of one unit: toFa3 divides by the base quantity (and leaves it out when that is not exact in 8 decimals)", holds: (r, _b, path, u) => {
    const l = u.lines[Number(path.split("/")[2])]!;
    if (path.endsWith("priceBaseQuantity")) return r === undefined;
    const per = l.priceBaseQuantity && !new Big(l.priceBaseQuantity).eq(1) ? new Big(l.price).div(l.priceBaseQuantity).toFixed() : l.price;
    return r === per || (r === "" && !/^-?([1-9]\d{0,13}|0)(\.\d{1,8})?$/.test(per));
  } },
  { path: /^\/lines\/\d+\/vat\/rate$/, kind: "another form", reason: "BT-152: the rate as FA(3)'s code says it (23, not 23.00; 0 for the zero codes)", holds: (r, b) => r !== undefined && b !== undefined && new Big(r).eq(b) },
  { path: /^\/lines\/\d+\/sellerItemId$|^\/lines\/\d+\/standardItemId\/(id|scheme)$/, kind: "another form", reason: "BT-155 (Indeks, 50 characters), BT-157 (GTIN only: scheme 0160, 20 characters)", holds: (r, b) => r === undefined || (b !== undefined && b.startsWith(r)) },
  { path: /^\/(allowances|charges)\/\d+\/(reason|reasonCode|percent|baseAmount)$/, kind: "another form", reason: "BG-20, BG-21: toFa3 writes a document allowance or charge as a line of its own (P_7 \"Allowance: <reason or code>\", P_11), read back as an allowance or charge with its amount and reason; percent and base have no place" },
  { path: /^\/period\/descriptionCode$/, kind: "another form", reason: "BT-8: only 432 (VAT due on payment: metoda kasowa, P_16) has an FA(3) annotation", holds: (r, b) => r === (b === "432" ? "432" : undefined) },
];

type Flat = Map<string, string>;
function flatten(o: unknown, at = "", out: Flat = new Map()): Flat {
  if (Array.isArray(o)) o.forEach((x, i) => flatten(x, `${at}/${i}`, out));
  else if (o !== null && typeof o === "object") for (const [k, x] of Object.entries(o)) flatten(x, `${at}/${k}`, out);
  else if (o !== undefined) out.set(at, String(o));
  return out;
}

export interface Difference {
  path: string;
  ubl: string | undefined;
  fa3: string | undefined;
}

/** The differences no entry of WHOLE or LOSSES explains, with the whole fields that do not hold as WHOLE says. */
function unexplained(ubl: InvoiceData, read: InvoiceData): Difference[] {
  const out: Difference[] = [];
  for (const w of WHOLE) if (!w.holds(ubl, read)) out.push({ path: w.field, ubl: JSON.stringify(pick(ubl, w.field)), fa3: JSON.stringify(pick(read, w.field)) });
  const outside = (p: string) => !WHOLE.some((w) => p === w.field || p.startsWith(`${w.field}/`));
  const a = flatten(ubl);
  const b = flatten(read);
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    if (!outside(path) || a.get(path) === b.get(path)) continue;
    const loss = LOSSES.find((l) => l.path.test(path));
    const holds = loss ? (loss.holds ?? ((r) => r === undefined))(b.get(path), a.get(path), path, ubl) : false;
    if (!holds) out.push({ path, ubl: a.get(path), fa3: b.get(path) });
  }
  return out;
}

function pick(o: unknown, path: string): unknown {
  return path.split("/").slice(1).reduce<unknown>((x, k) => (x as Record<string, unknown> | undefined)?.[k], o);
}

const all = cases();

describe("readFa3: the round trip UBL → toFa3 → readFa3", () => {
  it("reads every FA(3) the golden test writes", () => {
    expect(all.length).toBe(29);
  });
  for (const c of all) {
    it(`${c.name}: equals the UBL's InvoiceData but for the listed losses`, () => {
      const { kind, ...read } = readFa3(c.fa3);
      expect(kind).toBe(c.credit ? "creditNote" : "invoice");
      expect(unexplained(c.ubl, read)).toEqual([]);
    });
  }
});

/** An FA(3) another issuer might send: fields toFa3 does not write, a KOR with a line before and after, valid against the XSD. */
const KOR = `<?xml version="1.0" encoding="UTF-8"?>
<Faktura xmlns="http://crd.gov.pl/wzor/2025/06/25/13775/">
<Naglowek><KodFormularza kodSystemowy="FA (3)" wersjaSchemy="1-0E">FA</KodFormularza><WariantFormularza>3</WariantFormularza><DataWytworzeniaFa>2026-11-20T10:00:00Z</DataWytworzeniaFa></Naglowek>
<Podmiot1><PrefiksPodatnika>PL</PrefiksPodatnika><DaneIdentyfikacyjne><NIP>5260250995</NIP><Nazwa>Dostawca Sp. z o.o.</Nazwa></DaneIdentyfikacyjne><Adres><KodKraju>PL</KodKraju><AdresL1>ul. Prosta 1</AdresL1><AdresL2>00-001 Warszawa</AdresL2><GLN>5901234123457</GLN></Adres><DaneKontaktowe><Email>faktury@dostawca.pl</Email><Telefon>+48 22 123 45 67</Telefon></DaneKontaktowe></Podmiot1>
<Podmiot2><DaneIdentyfikacyjne><KodUE>DE</KodUE><NrVatUE>123456789</NrVatUE><Nazwa>Käufer GmbH</Nazwa></DaneIdentyfikacyjne><Adres><KodKraju>DE</KodKraju><AdresL1>Hauptstraße 5</AdresL1></Adres><NrKlienta>K-0042</NrKlienta><JST>2</JST><GV>2</GV></Podmiot2>
<Podmiot3><DaneIdentyfikacyjne><BrakID>1</BrakID><Nazwa>Käufer GmbH, Lager Berlin</Nazwa></DaneIdentyfikacyjne><Adres><KodKraju>DE</KodKraju><AdresL1>Lagerweg 1</AdresL1><AdresL2>10115 Berlin</AdresL2></Adres><Rola>2</Rola></Podmiot3>
<Podmiot3><DaneIdentyfikacyjne><NIP>5213017228</NIP><Nazwa>Faktor S.A.</Nazwa></DaneIdentyfikacyjne><Rola>1</Rola></Podmiot3>
<Fa><KodWaluty>PLN</KodWaluty><P_1>2026-11-25</P_1><P_2>KOR/2026/11/7</P_2><WZ>WZ/11/2026/3</WZ><P_6>2026-11-19</P_6>
<P_13_1>-100.00</P_13_1><P_14_1>-23.00</P_14_1><P_13_7>-50.00</P_13_7><P_15>-173.00</P_15>
<Adnotacje><P_16>2</P_16><P_17>2</P_17><P_18>2</P_18><P_18A>1</P_18A><Zwolnienie><P_19>1</P_19><P_19A>art. 43 ust. 1 pkt 37 ustawy o VAT</P_19A></Zwolnienie><NoweSrodkiTransportu><P_22N>1</P_22N></NoweSrodkiTransportu><P_23>2</P_23><PMarzy><P_PMarzyN>1</P_PMarzyN></PMarzy></Adnotacje>
<RodzajFaktury>KOR</RodzajFaktury><PrzyczynaKorekty>Zwrot towaru</PrzyczynaKorekty><TypKorekty>2</TypKorekty>
<DaneFaKorygowanej><DataWystFaKorygowanej>2026-11-20</DataWystFaKorygowanej><NrFaKorygowanej>FV/2026/11/001</NrFaKorygowanej><NrKSeF>1</NrKSeF><NrKSeFFaKorygowanej>5260250995-20261120-0100A0B1C2D3-4E</NrKSeFFaKorygowanej></DaneFaKorygowanej>
<DodatkowyOpis><Klucz>Projekt</Klucz><Wartosc>Remont</Wartosc></DodatkowyOpis>
<FaWiersz><NrWierszaFa>1</NrWierszaFa><P_7>Farba biała 10 l</P_7><Indeks>FB-10</Indeks><GTIN>5901234123457</GTIN><P_8A>szt.</P_8A><P_8B>5</P_8B><P_9A>100</P_9A><P_11>500.00</P_11><P_12>23</P_12><StanPrzed>1</StanPrzed></FaWiersz>
<FaWiersz><NrWierszaFa>2</NrWierszaFa><P_7>Farba biała 10 l</P_7><P_8A>szt.</P_8A><P_8B>4</P_8B><P_9A>100</P_9A><P_11>400.00</P_11><P_12>23</P_12></FaWiersz>
<FaWiersz><NrWierszaFa>3</NrWierszaFa><P_7>Szkolenie</P_7><P_8A>h</P_8A><P_8B>1</P_8B><P_9A>60</P_9A><P_10>10.00</P_10><P_11>50.00</P_11><P_12>zw</P_12></FaWiersz>
<Platnosc><TerminPlatnosci><TerminOpis><Ilosc>14</Ilosc><Jednostka>dni</Jednostka><ZdarzeniePoczatkowe>od doręczenia</ZdarzeniePoczatkowe></TerminOpis></TerminPlatnosci><TerminPlatnosci><Termin>2026-12-09</Termin></TerminPlatnosci><TerminPlatnosci><TerminOpis><Ilosc>14</Ilosc><Jednostka>dni</Jednostka><ZdarzeniePoczatkowe>od doręczenia</ZdarzeniePoczatkowe></TerminOpis></TerminPlatnosci><FormaPlatnosci>6</FormaPlatnosci><RachunekBankowy><NrRB>61109010140000071219812874</NrRB><SWIFT>WBKPPLPP</SWIFT><NazwaBanku>Santander</NazwaBanku></RachunekBankowy><RachunekBankowyFaktora><NrRB>PL27114020040000300201355387</NrRB></RachunekBankowyFaktora></Platnosc>
<WarunkiTransakcji><Umowy><NrUmowy>U/2026/1</NrUmowy></Umowy><Zamowienia><DataZamowienia>2026-11-01</DataZamowienia><NrZamowienia>ZAM-77</NrZamowienia></Zamowienia></WarunkiTransakcji>
</Fa>
<Stopka><Informacje><StopkaFaktury>Dziękujemy za zakupy.</StopkaFaktury></Informacje></Stopka>
</Faktura>`;

describe("readFa3: an FA(3) of another issuer", () => {
  it("is valid against the FA(3) XSD (the sample is real FA(3))", async () => {
    expect(await fa3SchemaErrors(KOR)).toEqual([]);
  });

  it("reads a correction (KOR) as a credit note: amounts turned, a line before the correction counted the other way, every mapped field", () => {
    const { kind, ...d } = readFa3(KOR);
    expect(kind).toBe("creditNote");
    expect(d).toEqual({
      number: "KOR/2026/11/7",
      issueDate: "2026-11-25",
      typeCode: "381",
      currency: "PLN",
      dueDate: "2026-12-09",
      contractReference: "U/2026/1",
      orderReference: "ZAM-77",
      despatchAdviceReference: "WZ/11/2026/3",
      paymentTerms: "14 dni od doręczenia\n14 dni od doręczenia",
      notes: ["Zwrot towaru", "mechanizm podzielonej płatności", "Projekt: Remont", "Dziękujemy za zakupy."],
      precedingInvoices: [{ number: "FV/2026/11/001", issueDate: "2026-11-20" }],
      seller: {
        name: "Dostawca Sp. z o.o.",
        identifiers: [{ id: "5901234123457", scheme: "0088" }],
        vatId: "PL5260250995",
        endpoint: { scheme: "", id: "" },
        address: { lines: ["ul. Prosta 1"], city: "Warszawa", postalCode: "00-001", country: "PL" },
        contact: { phone: "+48 22 123 45 67", email: "faktury@dostawca.pl" },
      },
      buyer: { name: "Käufer GmbH", identifiers: [{ id: "K-0042" }], vatId: "DE123456789", endpoint: { scheme: "", id: "" }, address: { lines: ["Hauptstraße 5"], country: "DE" } },
      payee: { name: "Faktor S.A.", identifier: { id: "PL5213017228", scheme: "9945" } },
      delivery: { partyName: "Käufer GmbH, Lager Berlin", date: "2026-11-19", address: { lines: ["Lagerweg 1"], city: "10115 Berlin", country: "DE" } },
      payment: {
        meansCode: "30",
        accounts: [
          { iban: "61109010140000071219812874", name: "Santander", bic: "WBKPPLPP" },
          { iban: "PL27114020040000300201355387" },
        ],
      },
      lines: [
        { id: "1", note: "Stan przed korektą (the line before the correction)", quantity: "5", unitCode: "szt.", netAmount: "500.00", price: "100", vat: { category: "S", rate: "23" }, name: "Farba biała 10 l", sellerItemId: "FB-10", standardItemId: { scheme: "0160", id: "5901234123457" } },
        { id: "2", quantity: "-4", unitCode: "szt.", netAmount: "-400.00", price: "100", vat: { category: "S", rate: "23" }, name: "Farba biała 10 l" },
        { id: "3", quantity: "-1", unitCode: "h", netAmount: "-50.00", allowances: [{ amount: "10.00", reasonCode: "95" }], price: "60", vat: { category: "E", rate: "0" }, name: "Szkolenie" },
      ],
      vatExemptions: { E: { reason: "art. 43 ust. 1 pkt 37 ustawy o VAT" } },
      totals: {
        taxInclusive: "173.00",
        payable: "173.00",
        vatBreakdown: [
          { category: "S", rate: "23", taxableAmount: "100.00", taxAmount: "23.00" },
          { category: "E", rate: "0", taxableAmount: "50.00", taxAmount: "0.00" },
        ],
      },
    });
  });

  it("reads the buyer's other identifiers: a tax id of another country with its country, none for BrakID", () => {
    const other = readFa3(KOR.replace("<KodUE>DE</KodUE><NrVatUE>123456789</NrVatUE>", "<KodKraju>NO</KodKraju><NrID>999999999MVA</NrID>"));
    expect(other.buyer.vatId).toBe("NO999999999MVA");
    const none = readFa3(KOR.replace("<KodUE>DE</KodUE><NrVatUE>123456789</NrVatUE>", "<BrakID>1</BrakID>"));
    expect(none.buyer.vatId).toBeUndefined();
  });

  it("reads the rate codes as EN 16931 categories, with the VATEX code of the categories that need a reason", () => {
    const codes: [string, { category: string; rate?: string }, string | null][] = [
      ["8", { category: "S", rate: "8" }, null],
      ["0 KR", { category: "Z", rate: "0" }, null],
      ["0 WDT", { category: "K", rate: "0" }, "VATEX-EU-IC"],
      ["0 EX", { category: "G", rate: "0" }, "VATEX-EU-G"],
      ["oo", { category: "AE", rate: "0" }, "VATEX-EU-AE"],
      ["np I", { category: "O" }, "VATEX-EU-O"],
      ["np II", { category: "AE", rate: "0" }, "VATEX-EU-AE"],
    ];
    for (const [code, vat, vatex] of codes) {
      const d = readFa3(KOR.replace("<P_12>zw</P_12>", `<P_12>${code}</P_12>`));
      expect(d.lines[2]!.vat).toEqual(vat);
      if (vatex) expect((d.vatExemptions as Record<string, unknown>)[vat.category]).toEqual({ code: vatex });
    }
  });
});

describe("readFa3: odd and hostile input", () => {
  it("gives absent fields, not exceptions, for an FA(3) with its sections missing", () => {
    const d = readFa3(`<Faktura xmlns="http://crd.gov.pl/wzor/2025/06/25/13775/"><Fa><P_2>1</P_2><FaWiersz/></Fa></Faktura>`);
    expect(d).toEqual({
      kind: "invoice",
      number: "1",
      issueDate: "",
      currency: "",
      seller: { name: "", endpoint: { scheme: "", id: "" }, address: { country: "" } },
      buyer: { name: "", endpoint: { scheme: "", id: "" }, address: { country: "" } },
      lines: [{ id: "", quantity: "", unitCode: "", price: "", vat: { category: "" }, name: "" }],
    });
    expect(readFa3(`<Faktura xmlns="http://crd.gov.pl/wzor/2025/06/25/13775/"/>`).lines).toEqual([]);
  });

  it("reads bytes with a BOM as text", () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(KOR, "utf8")]);
    expect(readFa3(bytes).number).toBe("KOR/2026/11/7");
  });

  const refused: [string, string | Uint8Array, string, RegExp][] = [
    ["a UBL invoice", `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`, "unsupported_document", /not an FA\(3\) invoice: its root is \{urn:oasis:names:specification:ubl:schema:xsd:Invoice-2\}Invoice/],
    ["an FA(2) invoice", `<Faktura xmlns="http://crd.gov.pl/wzor/2023/06/29/12648/"/>`, "unsupported_document", /FA\(2\).*only FA\(3\)/],
    ["a Faktura in no namespace", `<Faktura/>`, "unsupported_document", /its root is Faktura, FA\(3\)'s is Faktura in the namespace http:\/\/crd\.gov\.pl\/wzor\/2025\/06\/25\/13775\//],
    ["text that is not XML", "Faktura VAT nr 1", "invalid_ubl_xml", /not well-formed XML/],
    ["a DOCTYPE (entity expansion)", `<!DOCTYPE x [<!ENTITY a "aaaa">]><Faktura xmlns="http://crd.gov.pl/wzor/2025/06/25/13775/">&a;</Faktura>`, "invalid_ubl_xml", /./],
    ["bytes that are not UTF-8", new Uint8Array([0x3c, 0xff, 0xfe, 0x3e]), "invalid_ubl_xml", /not UTF-8/],
  ];
  for (const [what, doc, code, message] of refused) {
    it(`refuses ${what} with ${code} and a clear message`, () => {
      let error: unknown;
      try {
        readFa3(doc);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe(code);
      expect((error as ApiError).message).toMatch(message);
    });
  }
});

describe("fa3Syntax", () => {
  it("recognises FA(3), says invoice or credit note, reads, and writes the data back as the same FA(3)", () => {
    const { fa3 } = all.find((c) => c.name === "generated mixed rates")!;
    const root = fa3Root(fa3);
    expect(fa3Syntax.recognises(root)).toBe(true);
    expect(fa3Syntax.recognises(ublTree(corpusXml(corpusInvoices()[0]!)))).toBe(false);
    expect(fa3Syntax.kindOf(root)).toBe("invoice");
    expect(fa3Syntax.kindOf(fa3Root(KOR))).toBe("creditNote");
    const data = fa3Syntax.read(root);
    const { kind: _kind, ...read } = readFa3(fa3);
    expect(data).toEqual(read);
    // Written again from the data it read: FA(3) → InvoiceData → FA(3) keeps every value but one: the exemption's legal
    // basis reads as its text (BT-120), and toFa3 writes a text without a VATEX-EU code as the Polish basis (P_19A).
    expect(fa3.match(/<P_19B>/g)).toHaveLength(1);
    expect(fa3Syntax.write(data, { createdAt: CREATED })).toBe(fa3.replace(/P_19B>/g, "P_19A>"));
  });
});

describe("the round trip's comparison", () => {
  it("fails on a difference it does not list", () => {
    const c = all.find((x) => x.name === "generated mixed rates")!;
    const { kind: _k, ...read } = readFa3(c.fa3);
    expect(unexplained(c.ubl, read)).toEqual([]);
    const changed = { ...read, lines: read.lines.map((l, i) => (i === 0 ? { ...l, netAmount: "1.00" } : l)) };
    expect(unexplained(c.ubl, changed)).toEqual([{ path: "/lines/0/netAmount", ubl: c.ubl.lines[0]!.netAmount, fa3: "1.00" }]);
  });
});

describe("readFa3: margin schemes, advance invoices, other payment forms", () => {
  const margin = (scheme: string) =>
    KOR.replace("<RodzajFaktury>KOR</RodzajFaktury>", "<RodzajFaktury>VAT</RodzajFaktury>")
      .replace(/<PrzyczynaKorekty>.*<\/DaneFaKorygowanej>/s, "")
      .replace("<P_PMarzyN>1</P_PMarzyN>", `<P_PMarzy>1</P_PMarzy><${scheme}>1</${scheme}>`)
      .replace(/<P_12>zw<\/P_12>/, "")
      .replace(/<P_19>1<\/P_19><P_19A>[^<]*<\/P_19A>/, "<P_19N>1</P_19N>");

  it("reads a margin line (no rate code) as exempt, with the scheme's VATEX code and statutory words", () => {
    const d = readFa3(margin("P_PMarzy_3_2"));
    expect(d.typeCode).toBe("380");
    expect(d.lines[2]!.vat).toEqual({ category: "E", rate: "0" });
    expect(d.vatExemptions).toEqual({ E: { code: "VATEX-EU-I" } });
    expect(d.notes).toContain("procedura marży - dzieła sztuki");
    // The travel agents' scheme has no VATEX code without doubt: its statutory words are the reason.
    expect(readFa3(margin("P_PMarzy_2")).vatExemptions).toEqual({ E: { reason: "procedura marży dla biur podróży" } });
  });

  it("reads an advance invoice (ZAL) as type 386 and a settlement's advance invoices and amount due", () => {
    const zal = readFa3(margin("P_PMarzy_2").replace("<RodzajFaktury>VAT</RodzajFaktury>", "<RodzajFaktury>ZAL</RodzajFaktury>"));
    expect(zal.typeCode).toBe("386");
    const roz = readFa3(
      KOR.replace(/<RodzajFaktury>KOR<\/RodzajFaktury>.*<\/DaneFaKorygowanej>/s, "<RodzajFaktury>ROZ</RodzajFaktury>")
        .replace("<FaWiersz>", "<FakturaZaliczkowa><NrKSeFZN>1</NrKSeFZN><NrFaZaliczkowej>ZAL/1</NrFaZaliczkowej></FakturaZaliczkowa><FaWiersz>")
        .replace("<Platnosc>", "<Rozliczenie><DoZaplaty>100.00</DoZaplaty></Rozliczenie><Platnosc>"),
    );
    expect(roz.typeCode).toBe("380");
    expect(roz.precedingInvoices).toEqual([{ number: "ZAL/1" }]);
    expect(roz.totals?.payable).toBe("100.00");
    expect(roz.totals?.taxInclusive).toBe("-173.00");
    const refund = readFa3(KOR.replace("<Platnosc>", "<Rozliczenie><DoRozliczenia>173.00</DoRozliczenia></Rozliczenie><Platnosc>"));
    expect(refund.totals?.payable).toBe("173.00");
  });

  it("reads another form of payment: toFa3's UNCL 4461 text as its code, another text as ZZZ", () => {
    const form = (x: string) => readFa3(KOR.replace("<FormaPlatnosci>6</FormaPlatnosci>", x)).payment;
    expect(form("<PlatnoscInna>1</PlatnoscInna><OpisPlatnosci>UNCL4461 49 (Direct debit)</OpisPlatnosci>")).toMatchObject({ meansCode: "49", meansText: "Direct debit" });
    expect(form("<PlatnoscInna>1</PlatnoscInna><OpisPlatnosci>Kompensata</OpisPlatnosci>")).toMatchObject({ meansCode: "ZZZ", meansText: "Kompensata" });
    expect(form("<FormaPlatnosci>3</FormaPlatnosci>")).toMatchObject({ meansCode: "ZZZ", meansText: "Bon" });
  });
});

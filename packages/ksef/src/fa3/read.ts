// readFa3: an FA(3) document (KSeF's structured invoice, schema 1-0E) read into InvoiceData, the EN 16931
// model: the inverse of toFa3 for every FA(3) field with an EN 16931 meaning. Values as written (decimal
// strings, never recomputed); a correction's (KOR) differences turned back into a credit note's amounts;
// what is missing stays absent (the required strings of InvoiceData are "", as the core's readers leave them).
// What FA(3) cannot carry, and what the reader leaves unread, is in docs/syntaxes.md ("FA(3) in").
import Big from "big.js";
import { ApiError, parseXml, xmlTrim, type InvoiceData, type InvoiceKind, type InvoiceLine, type ModelNode, type VatCategory } from "@einvoice/core";
import { negate } from "./values.js";

/** The FA(3) namespace (the same as `FA3_NAMESPACE` in fa3.ts, which imports this file's users). */
const NS = "http://crd.gov.pl/wzor/2025/06/25/13775/";
/** FA(2)'s namespace: KSeF took it until 31 January 2026. */
const FA2_NS = "http://crd.gov.pl/wzor/2023/06/29/12648/";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Exemptions = NonNullable<Mutable<InvoiceData["vatExemptions"]>>;
type Vat = InvoiceLine["vat"];

// ---------- the tree ----------

const kid = (n: ModelNode | null | undefined, local: string): ModelNode | null => {
  if (!n) return null;
  for (const c of n.children) if (c.name === local && c.ns === NS) return c;
  return null;
};
const kids = (n: ModelNode | null | undefined, local: string): ModelNode[] => (n ? n.children.filter((c) => c.name === local && c.ns === NS) : []);
const at = (n: ModelNode | null | undefined, path: string): ModelNode | null => {
  let cur = n ?? null;
  for (const step of path.split("/")) cur = kid(cur, step);
  return cur;
};
/** The element's text, xmlTrim'd, or undefined when absent or empty. */
const val = (n: ModelNode | null | undefined): string | undefined => {
  if (!n) return undefined;
  const t = xmlTrim(n.text);
  return t === "" ? undefined : t;
};
const v = (n: ModelNode | null | undefined, path: string): string | undefined => val(at(n, path));

function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}
function someOf<T extends object>(o: T): T | undefined {
  const c = compact(o);
  return Object.keys(c).length === 0 ? undefined : c;
}
const nonEmpty = <T>(a: T[]): T[] | undefined => (a.length === 0 ? undefined : a);
const negateOr = (s: string | undefined): string | undefined => (s === undefined ? undefined : negate(s));

// ---------- codes ----------

/** P_12 (TStawkaPodatku) to the EN 16931 VAT category and rate: the inverse of vat.ts's rateSlot. */
const RATE_CODES: Record<string, Vat> = {
  "0 KR": { category: "Z", rate: "0" },
  "0 WDT": { category: "K", rate: "0" },
  "0 EX": { category: "G", rate: "0" },
  zw: { category: "E", rate: "0" },
  oo: { category: "AE", rate: "0" }, // domestic reverse charge
  "np I": { category: "O" }, // outside the scope of Polish VAT
  "np II": { category: "AE", rate: "0" }, // services taxed where the EU buyer is (art. 100 sec. 1 pt 4), reverse charged there
};
const STANDARD = new Set(["23", "22", "8", "7", "5", "4", "3"]);

function vatOfCode(code: string | undefined): Vat | undefined {
  if (code === undefined) return undefined;
  if (STANDARD.has(code)) return { category: "S", rate: code };
  const c = RATE_CODES[code];
  return c ? { ...c } : undefined;
}

/** The per-rate totals of FA(3): P_13_x (net) and P_14_x (VAT, slots 1-5), with the category each stands for. */
const SLOTS: { slot: string; vat: (lineRate: string | undefined, oss: string | undefined) => Vat; codes: string[] }[] = [
  { slot: "1", vat: (r) => ({ category: "S", rate: r ?? "23" }), codes: ["23", "22"] },
  { slot: "2", vat: (r) => ({ category: "S", rate: r ?? "8" }), codes: ["8", "7"] },
  { slot: "3", vat: (r) => ({ category: "S", rate: r ?? "5" }), codes: ["5"] },
  { slot: "4", vat: (r) => compact({ category: "S" as VatCategory, rate: r }), codes: ["4", "3"] },
  { slot: "5", vat: (_r, oss) => compact({ category: "S" as VatCategory, rate: oss }), codes: [] },
  { slot: "6_1", vat: () => ({ category: "Z", rate: "0" }), codes: ["0 KR"] },
  { slot: "6_2", vat: () => ({ category: "K", rate: "0" }), codes: ["0 WDT"] },
  { slot: "6_3", vat: () => ({ category: "G", rate: "0" }), codes: ["0 EX"] },
  { slot: "7", vat: () => ({ category: "E", rate: "0" }), codes: ["zw"] },
  { slot: "8", vat: () => ({ category: "O" }), codes: ["np I"] },
  { slot: "9", vat: () => ({ category: "AE", rate: "0" }), codes: ["np II"] },
  { slot: "10", vat: () => ({ category: "AE", rate: "0" }), codes: ["oo"] },
  { slot: "11", vat: () => ({ category: "E", rate: "0" }), codes: [] },
];

/** The VATEX code each FA(3) rate code stands for (the category's own code), for categories that need a reason (BR-xx-10). */
const VATEX_OF_CODE: Record<string, string> = { "0 WDT": "VATEX-EU-IC", "0 EX": "VATEX-EU-G", oo: "VATEX-EU-AE", "np II": "VATEX-EU-AE", "np I": "VATEX-EU-O" };

/**
 * Margin schemes (PMarzy) to the VATEX code of an exempt (E) margin supply: the inverse of vat.ts's MARGIN_VATEX. The
 * travel agents' scheme (P_PMarzy_2) has no VATEX code without doubt (as toFa3 says): its statutory words are the reason.
 */
const MARGIN_VATEX: Record<string, string | undefined> = { P_PMarzy_2: undefined, P_PMarzy_3_1: "VATEX-EU-F", P_PMarzy_3_2: "VATEX-EU-I", P_PMarzy_3_3: "VATEX-EU-J" };

/** TFormaPlatnosci to UNCL 4461 (the first code payment.ts maps to each form); forms without a code get ZZZ and their name. */
const PAYMENT_MEANS: Record<string, { code: string; text?: string }> = {
  "1": { code: "10" },
  "2": { code: "48" },
  "3": { code: "ZZZ", text: "Bon" },
  "4": { code: "20" },
  "5": { code: "ZZZ", text: "Kredyt" },
  "6": { code: "30" },
  "7": { code: "68" },
};

/** The statutory words each annotation stands for (VAT Act art. 106e sec. 1), kept as notes: they belong on the invoice. */
const ANNOTATIONS: [string, string][] = [
  ["P_16", "metoda kasowa"],
  ["P_17", "samofakturowanie"],
  ["P_18", "odwrotne obciążenie"],
  ["P_18A", "mechanizm podzielonej płatności"],
  ["P_23", "VAT: Faktura WE uproszczona na mocy art. 135-138 ustawy o ptu"],
];
const MARGIN_WORDS: Record<string, string> = {
  P_PMarzy_2: "procedura marży dla biur podróży",
  P_PMarzy_3_1: "procedura marży - towary używane",
  P_PMarzy_3_2: "procedura marży - dzieła sztuki",
  P_PMarzy_3_3: "procedura marży - przedmioty kolekcjonerskie i antyki",
};

/** The correction kinds (a KOR and its advance / settlement forms): read as credit notes. */
const CORRECTIONS = new Set(["KOR", "KOR_ZAL", "KOR_ROZ"]);

// ---------- the syntax's entry points ----------

/** True when `root` is an FA(3) `Faktura`. */
export function isFa3Root(root: ModelNode): boolean {
  return root.name === "Faktura" && root.ns === NS;
}

/** A correction (RodzajFaktury KOR, KOR_ZAL, KOR_ROZ) is a credit note; any other FA(3) an invoice. */
export function fa3KindOf(root: ModelNode): InvoiceKind {
  return CORRECTIONS.has(v(root, "Fa/RodzajFaktury") ?? "") ? "creditNote" : "invoice";
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The root of an FA(3) document; ApiError (`invalid_ubl_xml`, `unsupported_document`) when it is not one. */
export function fa3Root(document: Uint8Array | string): ModelNode {
  let text: string;
  if (typeof document === "string") text = document;
  else {
    try {
      text = utf8.decode(document);
    } catch {
      throw new ApiError("invalid_ubl_xml", "The document is not UTF-8 text: FA(3) is UTF-8 XML.");
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let root: ModelNode;
  try {
    root = parseXml(text).root;
  } catch (e) {
    if (e instanceof ApiError) throw new ApiError(e.code, e.message.replace(/^xml is not a well-formed UBL document: /, "The document is not well-formed XML: "), { cause: e });
    throw e;
  }
  if (!isFa3Root(root)) {
    const seen = `${root.ns ? `{${root.ns}}` : ""}${root.name}`;
    if (root.name === "Faktura" && root.ns === FA2_NS) throw new ApiError("unsupported_document", `The document is an FA(2) invoice (${seen}): KSeF takes FA(3) since 1 February 2026, and only FA(3) is read.`);
    throw new ApiError("unsupported_document", `The document is not an FA(3) invoice: its root is ${seen}, FA(3)'s is Faktura in the namespace ${NS}.`);
  }
  return root;
}

/**
 * Reads an FA(3) document (XML text or UTF-8 bytes) into InvoiceData, with whether it is an invoice or a
 * credit note (a correction, KOR). Every value as written; nothing validated. Throws ApiError
 * `invalid_ubl_xml` (not well-formed XML) or `unsupported_document` (not FA(3)).
 *
 * @example const { kind, ...invoice } = readFa3(readFileSync("faktura.xml")); console.log(invoice.seller.vatId)
 */
export function readFa3(document: Uint8Array | string): InvoiceData & { kind: InvoiceKind } {
  const root = fa3Root(document);
  return { ...invoiceDataOfFa3(root), kind: fa3KindOf(root) };
}

/** InvoiceData of an FA(3) `Faktura` tree (see readFa3). */
export function invoiceDataOfFa3(root: ModelNode): InvoiceData {
  const fa = kid(root, "Fa");
  const kind = v(fa, "RodzajFaktury") ?? "";
  const credit = CORRECTIONS.has(kind);
  /** A correction's differences are a credit note's amounts with the sign turned. */
  const signed = (s: string | undefined): string | undefined => (s === undefined || !credit ? s : negate(s));
  const annotations = kid(fa, "Adnotacje");
  const flag = (path: string): boolean => v(annotations, path) === "1";
  const margins = Object.keys(MARGIN_VATEX).filter((m) => flag(`PMarzy/${m}`));
  const payment = kid(fa, "Platnosc");
  const terms = kid(fa, "WarunkiTransakcji");

  // Lines: the writer's own allowance and charge lines (P_7 "Allowance: …" / "Charge: …" without quantity or price) come back as such.
  const rows = kids(fa, "FaWiersz");
  const isAc = (r: ModelNode) => /^(Allowance|Charge)(: |$)/.test(v(r, "P_7") ?? "") && !kid(r, "P_8B") && !kid(r, "P_9A");
  const lines = rows.filter((r) => !isAc(r)).map((r) => line(r));
  const acs = rows.filter(isAc).map((r) => {
    const charge = (v(r, "P_7") ?? "").startsWith("Charge");
    const net = signed(v(r, "P_11"));
    return { charge, ac: compact({ amount: net === undefined ? undefined : charge ? net : negate(net), reason: /^(?:Allowance|Charge): ([^]*)$/.exec(v(r, "P_7") ?? "")?.[1], vat: vatOfRow(r) ?? ({ category: "" } as unknown as Vat) }) };
  });

  // The VAT breakdown: one entry per FA(3) totals slot present, in FA(3)'s order.
  const breakdown = SLOTS.flatMap(({ slot, vat, codes }) => {
    const base = v(fa, `P_13_${slot}`);
    if (base === undefined) return [];
    const lineRates = [...new Set(rows.map((r) => v(r, "P_12")).filter((c): c is string => c !== undefined && codes.includes(c)))];
    const ossRates = [...new Set(rows.map((r) => v(r, "P_12_XII")).filter((c): c is string => c !== undefined))];
    const tax = ["1", "2", "3", "4", "5"].includes(slot) ? v(fa, `P_14_${slot}`) : "0.00";
    const cat = vat(lineRates.length === 1 ? lineRates[0] : undefined, ossRates.length === 1 ? ossRates[0] : undefined);
    return [compact({ category: cat.category, rate: cat.rate, taxableAmount: signed(base)!, taxAmount: signed(tax) ?? "" })];
  });

  // Exemption reasons: the legal basis of an exempt supply (P_19A Polish law, P_19B the directive, P_19C other), the
  // margin scheme's VATEX code, and the VATEX code of each other rate code that needs a reason.
  const exemptions: Exemptions = {};
  const basis = v(annotations, "Zwolnienie/P_19A") ?? v(annotations, "Zwolnienie/P_19B") ?? v(annotations, "Zwolnienie/P_19C");
  const eMargin = margins.length > 0 ? MARGIN_VATEX[margins[0]!] : undefined;
  const eReason = basis ?? (margins[0] === "P_PMarzy_2" ? MARGIN_WORDS["P_PMarzy_2"] : undefined);
  if (eReason !== undefined || eMargin !== undefined) exemptions.E = /^VATEX-[A-Z0-9-]+$/i.test(eReason ?? "") ? { code: eReason! } : compact({ reason: eReason, code: eMargin });
  const codesUsed = new Set(rows.map((r) => v(r, "P_12")).filter((c): c is string => c !== undefined));
  for (const [slot, code] of [["6_2", "0 WDT"], ["6_3", "0 EX"], ["8", "np I"], ["9", "np II"], ["10", "oo"]] as const) {
    if (v(fa, `P_13_${slot}`) === undefined && !codesUsed.has(code)) continue;
    const cat = RATE_CODES[code]!.category as keyof Exemptions;
    exemptions[cat] ??= { code: VATEX_OF_CODE[code]! };
  }

  // Notes: the reason for a correction, the statutory words of the annotations, the additional descriptions, the footer.
  const notes = [
    v(fa, "PrzyczynaKorekty"),
    ...ANNOTATIONS.filter(([f]) => flag(f)).map(([, words]) => words),
    ...margins.map((m) => MARGIN_WORDS[m]!),
    ...kids(fa, "DodatkowyOpis").map((d) => [v(d, "Klucz"), v(d, "Wartosc")].filter((s) => s !== undefined).join(": ") || undefined),
    ...kids(at(root, "Stopka"), "Informacje").map((i) => v(i, "StopkaFaktury")),
  ].filter((s): s is string => s !== undefined);

  // The VAT in PLN of a foreign-currency invoice (P_14_xW): the total VAT in the VAT accounting currency (BT-6, BT-111).
  const currency = v(fa, "KodWaluty") ?? "";
  const vatPln = ["1", "2", "3", "4"].map((s) => v(fa, `P_14_${s}W`)).filter((s): s is string => s !== undefined);
  const accounting = currency !== "PLN" && vatPln.length > 0 ? { code: "PLN", vatTotal: signed(vatPln.reduce((a, s) => a.plus(s), new Big(0)).toFixed(2))! } : undefined;

  const thirdParties = kids(root, "Podmiot3");
  const roleOf = (p: ModelNode) => v(p, "Rola") ?? (v(p, "RolaInna") === "1" ? `other:${v(p, "OpisRoli") ?? ""}` : "");
  const payee = thirdParties.find((p) => roleOf(p) === "1" || /^other:(Odbiorca płatności|.*BG-10)/.test(roleOf(p)));
  const representative = thirdParties.find((p) => /^other:(Przedstawiciel podatkowy|.*BG-11)/.test(roleOf(p)));
  const recipient = thirdParties.find((p) => ["2", "8", "10"].includes(roleOf(p)));

  const data = compact({
    number: v(fa, "P_2") ?? "",
    issueDate: v(fa, "P_1") ?? "",
    typeCode: kind === "" ? undefined : credit ? "381" : kind === "ZAL" ? "386" : flag("P_17") ? "389" : "380",
    currency,
    vatAccountingCurrency: accounting,
    dueDate: kids(payment, "TerminPlatnosci").map((t) => v(t, "Termin")).find((d) => d !== undefined),
    contractReference: v(terms, "Umowy/NrUmowy"),
    orderReference: v(terms, "Zamowienia/NrZamowienia"),
    despatchAdviceReference: v(fa, "WZ"),
    paymentTerms: paymentTerms(payment),
    notes: nonEmpty(notes),
    period: someOf({ start: v(fa, "OkresFa/P_6_Od"), end: v(fa, "OkresFa/P_6_Do"), descriptionCode: flag("P_16") ? ("432" as const) : undefined }),
    precedingInvoices: nonEmpty([
      ...kids(fa, "DaneFaKorygowanej").map((d) => compact({ number: v(d, "NrFaKorygowanej") ?? "", issueDate: v(d, "DataWystFaKorygowanej") })),
      ...kids(fa, "FakturaZaliczkowa").map((z) => ({ number: v(z, "NrFaZaliczkowej") ?? v(z, "NrKSeFFaZaliczkowej") ?? "" })),
    ]),
    seller: party(kid(root, "Podmiot1"), true),
    buyer: party(kid(root, "Podmiot2"), false),
    payee: payee
      ? compact({ name: v(payee, "DaneIdentyfikacyjne/Nazwa") ?? "", identifier: v(payee, "DaneIdentyfikacyjne/NIP") ? { id: `PL${v(payee, "DaneIdentyfikacyjne/NIP")}`, scheme: "9945" } : undefined })
      : undefined,
    taxRepresentative: representative
      ? { name: v(representative, "DaneIdentyfikacyjne/Nazwa") ?? "", vatId: taxIdOf(kid(representative, "DaneIdentyfikacyjne")) ?? "", address: address(kid(representative, "Adres")) ?? ({ country: "" } as InvoiceData["seller"]["address"]) }
      : undefined,
    delivery: someOf({ partyName: v(recipient, "DaneIdentyfikacyjne/Nazwa"), date: v(fa, "P_6"), address: address(kid(recipient, "Adres")) }),
    payment: paymentOf(payment),
    allowances: nonEmpty(acs.filter((a) => !a.charge).map((a) => a.ac)),
    charges: nonEmpty(acs.filter((a) => a.charge).map((a) => a.ac)),
    lines,
    vatExemptions: Object.keys(exemptions).length > 0 ? exemptions : undefined,
    totals: someOf({
      taxInclusive: signed(v(fa, "P_15")),
      // Rozliczenie: DoZaplaty is what the buyer pays, DoRozliczenia what is settled in its favour (a credit note's due).
      payable: credit ? (v(fa, "Rozliczenie/DoRozliczenia") ?? signed(v(fa, "Rozliczenie/DoZaplaty") ?? v(fa, "P_15"))) : (v(fa, "Rozliczenie/DoZaplaty") ?? negateOr(v(fa, "Rozliczenie/DoRozliczenia")) ?? v(fa, "P_15")),
      vatBreakdown: nonEmpty(breakdown),
    }),
  });
  return data as InvoiceData;

  function vatOfRow(r: ModelNode): Vat | undefined {
    const xii = v(r, "P_12_XII");
    if (xii !== undefined) return { category: "S", rate: xii }; // OSS: the rate of the member state of consumption
    const code = v(r, "P_12");
    if (code === undefined && margins.length > 0) return { category: "E", rate: "0" }; // a margin line has no rate code
    return vatOfCode(code);
  }

  function line(r: ModelNode): InvoiceLine {
    // StanPrzed: a line as it was before the correction; its amounts count the other way round.
    const before = v(r, "StanPrzed") === "1";
    const s = (x: string | undefined) => (before ? x : signed(x));
    const gtin = v(r, "GTIN");
    const discount = v(r, "P_10");
    return compact({
      id: v(r, "NrWierszaFa") ?? "",
      note: before ? "Stan przed korektą (the line before the correction)" : undefined,
      quantity: s(v(r, "P_8B")) ?? "",
      unitCode: v(r, "P_8A") ?? "",
      netAmount: s(v(r, "P_11")),
      allowances: discount !== undefined ? [{ amount: discount, reasonCode: "95" }] : undefined,
      price: v(r, "P_9A") ?? "",
      vat: vatOfRow(r) ?? ({ category: "" } as unknown as Vat),
      name: v(r, "P_7") ?? "",
      sellerItemId: v(r, "Indeks"),
      standardItemId: gtin !== undefined ? { scheme: "0160", id: gtin } : undefined,
    }) as InvoiceLine;
  }
}

// ---------- parts ----------

/** The VAT identifier of a DaneIdentyfikacyjne: NIP with PL, an EU VAT number with its prefix, another tax id with its country. */
function taxIdOf(d: ModelNode | null): string | undefined {
  const nip = v(d, "NIP");
  if (nip !== undefined) return `PL${nip}`;
  const eu = v(d, "NrVatUE");
  if (eu !== undefined) return `${v(d, "KodUE") ?? ""}${eu}`;
  const other = v(d, "NrID");
  if (other !== undefined) {
    const cc = v(d, "KodKraju");
    return cc !== undefined && !other.startsWith(cc) ? `${cc}${other}` : other;
  }
  return undefined;
}

/**
 * An FA(3) address: AdresL1 as the address line, AdresL2 as the city line (toFa3 writes post code, city and
 * subdivision there), a Polish post code (NN-NNN) at its start read as the post code; KodKraju as the country.
 */
function address(a: ModelNode | null): InvoiceData["seller"]["address"] | undefined {
  if (!a) return undefined;
  const l1 = v(a, "AdresL1");
  const l2 = v(a, "AdresL2");
  const pl = l2 !== undefined ? /^(\d{2}-\d{3})\s+(\S[^]*)$/.exec(l2) : null;
  return compact({ lines: l1 !== undefined ? [l1] : undefined, city: pl ? pl[2] : l2, postalCode: pl ? pl[1] : undefined, country: v(a, "KodKraju") ?? "" });
}

function party(p: ModelNode | null, seller: boolean): InvoiceData["seller"] {
  const d = kid(p, "DaneIdentyfikacyjne");
  const contact = kid(p, "DaneKontaktowe");
  const gln = v(p, "Adres/GLN");
  const identifiers = [
    ...(gln !== undefined ? [{ id: gln, scheme: "0088" }] : []),
    ...(!seller && v(p, "NrKlienta") !== undefined ? [{ id: v(p, "NrKlienta")! }] : []),
  ];
  return compact({
    name: v(d, "Nazwa") ?? "",
    identifiers: nonEmpty(identifiers),
    vatId: taxIdOf(d),
    endpoint: { scheme: "", id: "" },
    address: address(kid(p, "Adres")) ?? ({ country: "" } as InvoiceData["seller"]["address"]),
    contact: someOf({ phone: v(contact, "Telefon"), email: v(contact, "Email") }),
  });
}

function paymentTerms(payment: ModelNode | null): string | undefined {
  const parts = [
    ...kids(payment, "TerminPlatnosci").map((t) => {
      const o = kid(t, "TerminOpis");
      return o ? [v(o, "Ilosc"), v(o, "Jednostka"), v(o, "ZdarzeniePoczatkowe")].filter(Boolean).join(" ") || undefined : undefined;
    }),
    ...kids(payment, "Skonto").map((s) => [v(s, "WarunkiSkonta"), v(s, "WysokoscSkonta")].filter(Boolean).join(": ") || undefined),
  ].filter((s): s is string => s !== undefined);
  return parts.length > 0 ? parts.join("\n") : undefined;
}

function paymentOf(payment: ModelNode | null): InvoiceData["payment"] | undefined {
  if (!payment) return undefined;
  const form = v(payment, "FormaPlatnosci");
  const other = v(payment, "OpisPlatnosci");
  // payment.ts writes a code FA(3) has no form for as PlatnoscInna "UNCL4461 <code> (<name>)".
  const written = other !== undefined ? /^UNCL4461 ([A-Z0-9]{1,3})(?: \(([^]*)\))?$/.exec(other) : null;
  const means = form !== undefined ? PAYMENT_MEANS[form] : undefined;
  const accounts = [...kids(payment, "RachunekBankowy"), ...kids(payment, "RachunekBankowyFaktora")]
    .filter((a) => v(a, "NrRB") !== undefined)
    .map((a) => compact({ iban: v(a, "NrRB")!, name: v(a, "NazwaBanku"), bic: v(a, "SWIFT") }));
  if (!means && other === undefined && accounts.length === 0) return undefined;
  return compact({
    meansCode: means?.code ?? written?.[1] ?? (other !== undefined ? "ZZZ" : ""),
    meansText: means?.text ?? (written ? written[2] : other),
    accounts: nonEmpty(accounts),
  });
}

// toFa3: an EN 16931 UBL invoice (the core's document model) to Poland's structured invoice FA(3)
// (schema version 1-0E), the form KSeF accepts from senders that are not Peppol service providers.
//
// Rules of the mapping (docs/delivery.md has the table):
// - Values are never guessed: a value FA(3) needs that the UBL invoice does not carry, or carries in a
//   form FA(3) has no code for, throws Fa3MappingError naming the FA(3) field and the UBL source.
// - Amounts stay decimal strings: copied as written when they fit FA(3)'s types, summed and converted
//   with big.js (decimal arithmetic) when several UBL amounts feed one FA(3) field.
import { isValidNip } from "@einvoice/core";
import Big from "big.js";
import type { Fa3Node } from "./model.js";
import { childOf, childrenOf, firstAt, text } from "./model.js";

export const FA3_NAMESPACE = "http://crd.gov.pl/wzor/2025/06/25/13775/";
export const FA3_SCHEMA_VERSION = "1-0E";
export const FA3_SYSTEM_CODE = "FA (3)";

/** A value of the UBL invoice that FA(3) cannot carry, or a value FA(3) requires that is missing. */
export class Fa3MappingError extends Error {
  override readonly name = "Fa3MappingError";
  constructor(
    /** The FA(3) field, such as "Podmiot1/DaneIdentyfikacyjne/NIP" or "Fa/FaWiersz[2]/P_12". */
    readonly field: string,
    /** What is wrong, naming the UBL source (business term) and its value. */
    readonly reason: string,
  ) {
    super(`FA(3) ${field}: ${reason}`);
  }
}

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

/** What KSeF knows of a corrected invoice (see `correctedInvoice`). */
export type CorrectedInvoice = { ksefNumber: string } | { outsideKsef: true };

const KSEF_NUMBER = /^([1-9]((\d[1-9])|([1-9]\d))\d{7}|M\d{9}|[A-Z]{3}\d{7})-(20[2-9][0-9]|2[1-9][0-9]{2}|[3-9][0-9]{3})(0[1-9]|1[0-2])(0[1-9]|[1-2][0-9]|3[0-1])-([0-9A-F]{6})-?([0-9A-F]{6})-([0-9A-F]{2})$/;

/** The invoices a credit note corrects (BG-3: BT-25 number, BT-26 issue date). */
export function correctedInvoices(root: Fa3Node): { number: string; issueDate: string }[] {
  return childrenOf(root, "cac:BillingReference").map((b) => ({ number: text(firstAt(b, "cac:InvoiceDocumentReference/cbc:ID")), issueDate: text(firstAt(b, "cac:InvoiceDocumentReference/cbc:IssueDate")) }));
}

/** The amount with its sign turned (a credit note's amounts are the correction's negative differences). */
function negate(value: string): string {
  if (/^-?0(\.0*)?$/.test(value)) return value.replace(/^-/, "");
  return value.startsWith("-") ? value.slice(1) : `-${value}`;
}

/** The subordinate JST unit or VAT group member an invoice to a buyer concerns (see `buyerUnit`). */
export interface BuyerUnit {
  kind: "jst" | "vat-group";
  /** The unit's NIP (10 digits). */
  nip: string;
  name?: string;
}

/** The FA(3) rate code (P_12) and the totals field pair it is summed into. */
interface RateSlot {
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

const EU_COUNTRIES = new Set(["AT", "BE", "BG", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "EL", "GR", "HR", "HU", "IE", "IT", "LV", "LT", "LU", "MT", "NL", "PT", "RO", "SK", "SI", "ES", "SE", "XI"]);

const AMOUNT = /^-?([1-9]\d{0,15}|0)(\.\d{1,2})?$/;
const QUANTITY = /^-?([1-9]\d{0,15}|0)(\.\d{1,6})?$/;
const PRICE = /^-?([1-9]\d{0,13}|0)(\.\d{1,8})?$/;

interface Category {
  id: string;
  percent: string;
  exemptionCode: string;
  exemptionReason: string;
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function category(node: Fa3Node | null): Category {
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

function amount(value: string, field: string, source: string): string {
  if (!AMOUNT.test(value)) throw new Fa3MappingError(field, `${source} "${value}" is not an amount with at most 2 decimals`);
  return value;
}

/** A date within the range of the FA(3) date type (TDataT: 2006-01-01 to 2050-01-01; TData from 2016-07-01). */
function date(value: string, field: string, source: string, min = "2006-01-01"): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || value < min || value > "2050-01-01") throw new Fa3MappingError(field, `${source} "${value}" is not a date from ${min} to 2050-01-01`);
  return value;
}

function sum(values: readonly string[]): string {
  let total = new Big(0);
  for (const v of values) total = total.plus(v);
  return total.toFixed(2);
}

/** Round half up to 2 decimals (VAT Act art. 106e sec. 11). */
function times(value: string, rate: string): string {
  return new Big(value).times(rate).round(2, Big.roundHalfUp).toFixed(2);
}

const escapeXml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** A tiny writer: elements in the order the XSD's sequences require. */
class Xml {
  private out: string[] = [];
  open(name: string, attrs = ""): this {
    this.out.push(`<${name}${attrs}>`);
    return this;
  }
  close(name: string): this {
    this.out.push(`</${name}>`);
    return this;
  }
  leaf(name: string, value: string | undefined | null): this {
    if (value !== undefined && value !== null && value !== "") this.out.push(`<${name}>${escapeXml(value)}</${name}>`);
    return this;
  }
  raw(value: string): this {
    this.out.push(escapeXml(value));
    return this;
  }
  toString(): string {
    return this.out.join("");
  }
}

/** The VAT identifier (scheme VAT) of a party, upper case, without spaces or hyphens; "" without one. */
export function vatId(party: Fa3Node | null): string {
  for (const pts of childrenOf(party, "cac:PartyTaxScheme")) {
    if (text(firstAt(pts, "cac:TaxScheme/cbc:ID")).toUpperCase() === "VAT") return text(childOf(pts, "cbc:CompanyID")).replace(/[\s-]/g, "").toUpperCase();
  }
  return "";
}

/** How FA(3) identifies a buyer (TPodmiot2 / TPodmiot3's identifier choice); see `partyIdentifier`. */
export type Fa3PartyId =
  | { kind: "nip"; nip: string }
  | { kind: "eu-vat"; kodUE: string; nrVatUE: string }
  | { kind: "other-tax-id"; kodKraju: string | null; nrID: string }
  | { kind: "none" };

/**
 * The identifier choice of a party from its VAT identifier (BT-48 for the buyer, as `vatId` reads
 * it: upper case, no spaces or hyphens) and its country (BT-55): a Polish NIP (PL and 10 digits);
 * an EU VAT number (KodUE, the prefix, EL for Greece; NrVatUE, the rest); any other tax identifier
 * (KodKraju, the party's country; NrID, the identifier without that country's prefix); or none
 * (BrakID: a consumer, or a party without a tax identifier).
 */
export function partyIdentifier(vat: string, partyCountry: string): Fa3PartyId {
  const prefix = vat.slice(0, 2);
  if (vat && prefix === "PL" && /^\d{10}$/.test(vat.slice(2))) return { kind: "nip", nip: vat.slice(2) };
  if (vat && EU_COUNTRIES.has(prefix) && prefix !== "PL" && /^(\d|[A-Z]|\+|\*){1,12}$/.test(vat.slice(2))) return { kind: "eu-vat", kodUE: prefix === "GR" ? "EL" : prefix, nrVatUE: vat.slice(2) };
  if (!vat) return { kind: "none" };
  const kodKraju = /^[A-Z]{2}$/.test(partyCountry) ? partyCountry : null;
  // KodKraju carries the country: NrID is the identifier as its country issues it.
  const nrID = kodKraju && vat.startsWith(kodKraju) && vat.length > 2 ? vat.slice(2) : vat;
  return { kind: "other-tax-id", kodKraju, nrID: nrID.slice(0, 50) };
}

function writeTaxId(x: Xml, vat: string, partyCountry: string): void {
  const id = partyIdentifier(vat, partyCountry);
  if (id.kind === "nip") x.leaf("NIP", id.nip);
  else if (id.kind === "eu-vat") x.leaf("KodUE", id.kodUE).leaf("NrVatUE", id.nrVatUE);
  else if (id.kind === "other-tax-id") x.leaf("KodKraju", id.kodKraju).leaf("NrID", id.nrID);
  else x.leaf("BrakID", "1");
}

/**
 * The seller's NIP from its VAT identifier (BT-31): PL followed by 10 digits, or the 10 digits
 * alone; "" otherwise. The check digit is not checked here.
 */
export function sellerNipOf(vat: string): string {
  const v = vat.replace(/[\s-]/g, "").toUpperCase();
  const digits = v.startsWith("PL") ? v.slice(2) : v;
  return /^\d{10}$/.test(digits) ? digits : "";
}

/** A Polish NIP given as a party identifier or legal registration with scheme 9945 (Polish VAT), else "". */
function schemeNip(party: Fa3Node | null): string {
  const ids = [...childrenOf(party, "cac:PartyIdentification").map((p) => childOf(p, "cbc:ID")), childOf(childOf(party, "cac:PartyLegalEntity"), "cbc:CompanyID")];
  for (const id of ids) {
    if (id?.attrs["schemeID"] !== "9945") continue;
    const v = text(id).replace(/[\s-]/g, "").toUpperCase().replace(/^PL/, "");
    if (/^\d{10}$/.test(v)) return v;
  }
  return "";
}

function partyName(party: Fa3Node | null): string {
  return text(firstAt(party, "cac:PartyLegalEntity/cbc:RegistrationName")) || text(firstAt(party, "cac:PartyName/cbc:Name"));
}

function country(party: Fa3Node | null): string {
  return text(firstAt(party, "cac:PostalAddress/cac:Country/cbc:IdentificationCode")).toUpperCase();
}

function writeAddress(x: Xml, party: Fa3Node | null, field: string, required: boolean): void {
  const addr = childOf(party, "cac:PostalAddress");
  const cc = text(firstAt(addr, "cac:Country/cbc:IdentificationCode")).toUpperCase();
  const street = [text(childOf(addr, "cbc:StreetName")), text(childOf(addr, "cbc:AdditionalStreetName")), text(firstAt(addr, "cac:AddressLine/cbc:Line"))].filter(Boolean).join(", ");
  const city = [text(childOf(addr, "cbc:PostalZone")), text(childOf(addr, "cbc:CityName")), text(childOf(addr, "cbc:CountrySubentity"))].filter(Boolean).join(" ");
  const l1 = street || city;
  const l2 = street ? city : "";
  if (!cc || !l1) {
    if (!required) return;
    throw new Fa3MappingError(`${field}/Adres`, `the address needs a country code and a street or city (${cc ? "no street, postal zone or city" : "no country code"} in the UBL postal address)`);
  }
  x.open("Adres").leaf("KodKraju", cc).leaf("AdresL1", l1.slice(0, 512)).leaf("AdresL2", l2.slice(0, 512)).close("Adres");
}

/**
 * Maps a UBL Invoice (EN 16931) to an FA(3) XML document (UTF-8 text).
 * @throws Fa3MappingError naming the FA(3) field when a value cannot be mapped.
 */
export function toFa3(root: Fa3Node, options: Fa3Options = {}): string {
  const credit = root.name === "CreditNote";
  if (root.name !== "Invoice" && !credit) throw new Fa3MappingError("Fa/RodzajFaktury", `a UBL ${root.name} is not mapped: only an Invoice or a CreditNote`);
  const typeCode = text(childOf(root, credit ? "cbc:CreditNoteTypeCode" : "cbc:InvoiceTypeCode"));
  // A credit note corrects earlier invoices (KOR): each needs its KSeF number or its outside-KSeF status.
  const corrections: { number: string; issueDate: string; known: CorrectedInvoice }[] = [];
  if (credit) {
    if (typeCode !== "381") throw new Fa3MappingError("Fa/RodzajFaktury", `the credit note type code ${typeCode || "(none)"} is not mapped: only 381 (credit note) becomes RodzajFaktury KOR`);
    const refs = correctedInvoices(root);
    if (refs.length === 0 || refs.some((r) => !r.number)) throw new Fa3MappingError("Fa/DaneFaKorygowanej/NrFaKorygowanej", "a correction (KOR) names the invoice it corrects: the credit note has no preceding invoice reference (BT-25)");
    for (const r of refs) {
      const date_ = date(r.issueDate, "Fa/DaneFaKorygowanej/DataWystFaKorygowanej", `the issue date (BT-26) of the corrected invoice ${r.number}`);
      const known = options.correctedInvoice?.(r) ?? null;
      if (!known) throw new Fa3MappingError("Fa/DaneFaKorygowanej", `KSeF correction invoices (KOR) need the KSeF number of the corrected invoice ${r.number}, or to know it was issued outside KSeF; UBL does not carry either and none was given`);
      if ("ksefNumber" in known && !KSEF_NUMBER.test(known.ksefNumber)) throw new Fa3MappingError("Fa/DaneFaKorygowanej/NrKSeFFaKorygowanej", `"${known.ksefNumber}" given for the corrected invoice ${r.number} is not a KSeF number`);
      corrections.push({ number: r.number, issueDate: date_, known });
    }
  } else if (typeCode !== "380" && typeCode !== "389" && typeCode !== "326") {
    throw new Fa3MappingError("Fa/RodzajFaktury", `the invoice type code ${typeCode || "(none)"} is not mapped: only 380 (commercial), 326 (partial) and 389 (self-billed) become RodzajFaktury VAT`);
  }
  // A credit note's amounts are written as the correction's differences: negative.
  const signed = (v: string): string => (credit ? negate(v) : v);
  const currency = text(childOf(root, "cbc:DocumentCurrencyCode")).toUpperCase();
  const seller = firstAt(root, "cac:AccountingSupplierParty/cac:Party");
  const buyer = firstAt(root, "cac:AccountingCustomerParty/cac:Party");
  const buyerCountry = country(buyer);

  // Exchange rate for a foreign-currency invoice.
  let rate: string | null = null;
  if (currency !== "PLN") {
    let r = options.exchangeRate ?? "";
    if (!r) {
      for (const ter of childrenOf(root, "cac:TaxExchangeRate")) {
        if (text(childOf(ter, "cbc:SourceCurrencyCode")).toUpperCase() === currency && text(childOf(ter, "cbc:TargetCurrencyCode")).toUpperCase() === "PLN") r = text(childOf(ter, "cbc:CalculationRate"));
      }
    }
    if (!r) throw new Fa3MappingError("Fa/P_14_1W", `the invoice is in ${currency || "(no currency)"}: FA(3) needs the VAT in PLN, and neither an exchange rate option nor a cac:TaxExchangeRate to PLN is given`);
    if (!QUANTITY.test(r) || new Big(r).lte(0)) throw new Fa3MappingError("Fa/FaWiersz/KursWaluty", `the exchange rate "${r}" is not a positive decimal with at most 6 decimals`);
    rate = r;
  }

  const x = new Xml();
  x.open("Faktura", ` xmlns="${FA3_NAMESPACE}"`);

  // Naglowek
  const created = (options.createdAt ?? new Date()).toISOString().replace(/\.\d{3}Z$/, "Z");
  x.open("Naglowek").open("KodFormularza", ` kodSystemowy="${FA3_SYSTEM_CODE}" wersjaSchemy="${FA3_SCHEMA_VERSION}"`);
  x.raw("FA").close("KodFormularza").leaf("WariantFormularza", "3").leaf("DataWytworzeniaFa", created).leaf("SystemInfo", options.systemInfo).close("Naglowek");

  // Podmiot1: the seller, a Polish taxpayer with a NIP.
  const sellerVat = vatId(seller);
  const nip = sellerNipOf(sellerVat);
  if (!nip) throw new Fa3MappingError("Podmiot1/DaneIdentyfikacyjne/NIP", `the seller has no Polish VAT number (BT-31 is ${sellerVat ? `"${sellerVat}"` : "absent"}): KSeF takes invoices of Polish taxpayers, identified by their NIP (10 digits, with or without the PL prefix)`);
  if (!isValidNip(nip)) throw new Fa3MappingError("Podmiot1/DaneIdentyfikacyjne/NIP", `the seller's VAT number "${sellerVat}" (BT-31) does not hold a valid NIP (10 digits with a check digit)`);
  const sellerName = partyName(seller);
  if (!sellerName) throw new Fa3MappingError("Podmiot1/DaneIdentyfikacyjne/Nazwa", "the seller has no name (BT-27)");
  x.open("Podmiot1").leaf("PrefiksPodatnika", "PL").open("DaneIdentyfikacyjne").leaf("NIP", nip).leaf("Nazwa", sellerName.slice(0, 512)).close("DaneIdentyfikacyjne");
  writeAddress(x, seller, "Podmiot1", true);
  x.close("Podmiot1");

  // Podmiot2: the buyer.
  const buyerVat = vatId(buyer);
  x.open("Podmiot2").open("DaneIdentyfikacyjne");
  writeTaxId(x, buyerVat, buyerCountry);
  x.leaf("Nazwa", partyName(buyer).slice(0, 512)).close("DaneIdentyfikacyjne");
  writeAddress(x, buyer, "Podmiot2", false);
  // JST / GV: EN 16931 has no term saying the buyer stands for a subordinate local-government unit or
  // a VAT-group member; only the buyerUnit option says so.
  const buyerNip = buyerVat.startsWith("PL") && /^\d{10}$/.test(buyerVat.slice(2)) ? buyerVat.slice(2) : null;
  const unit = options.buyerUnit?.({ nip: buyerNip, name: partyName(buyer) }) ?? null;
  if (unit && !/^\d{10}$/.test(unit.nip)) throw new Fa3MappingError("Podmiot3/DaneIdentyfikacyjne/NIP", `the buyer unit's NIP "${unit.nip}" (buyerUnit option) is not 10 digits`);
  x.leaf("JST", unit?.kind === "jst" ? "1" : "2").leaf("GV", unit?.kind === "vat-group" ? "1" : "2").close("Podmiot2");

  // Podmiot3: the unit of the buyerUnit option, the payee (BG-10) when it is not the seller, and the
  // seller's tax representative (BG-11).
  if (unit) {
    x.open("Podmiot3").open("DaneIdentyfikacyjne").leaf("NIP", unit.nip).leaf("Nazwa", unit.name?.slice(0, 512)).close("DaneIdentyfikacyjne");
    x.leaf("Rola", unit.kind === "jst" ? "8" : "10").close("Podmiot3");
  }
  const payee = childOf(root, "cac:PayeeParty");
  const payeeName = text(firstAt(payee, "cac:PartyName/cbc:Name")) || partyName(payee);
  const payeeNip = schemeNip(payee);
  if (payee && payeeName && !(payeeName === sellerName || payeeNip === nip)) {
    x.open("Podmiot3").open("DaneIdentyfikacyjne");
    if (payeeNip) x.leaf("NIP", payeeNip);
    else x.leaf("BrakID", "1");
    x.leaf("Nazwa", payeeName.slice(0, 512)).close("DaneIdentyfikacyjne");
    writeAddress(x, payee, "Podmiot3", false);
    // FA(3)'s roles name the factor (1) and the payer (6), not a payee as such: EN 16931 does not say
    // why the payee differs from the seller, so the role is described rather than guessed.
    x.leaf("RolaInna", "1").leaf("OpisRoli", "Odbiorca płatności (payee, EN 16931 BG-10)").close("Podmiot3");
  }
  const rep = childOf(root, "cac:TaxRepresentativeParty");
  if (rep) {
    const repName = partyName(rep) || text(firstAt(rep, "cac:PartyName/cbc:Name"));
    if (!repName) throw new Fa3MappingError("Podmiot3/DaneIdentyfikacyjne/Nazwa", "the seller's tax representative has no name (BT-62)");
    x.open("Podmiot3").open("DaneIdentyfikacyjne");
    writeTaxId(x, vatId(rep), country(rep));
    x.leaf("Nazwa", repName.slice(0, 512)).close("DaneIdentyfikacyjne");
    writeAddress(x, rep, "Podmiot3", false);
    x.leaf("RolaInna", "1").leaf("OpisRoli", "Przedstawiciel podatkowy sprzedawcy (seller's tax representative, EN 16931 BG-11)").close("Podmiot3");
  }

  // Fa
  x.open("Fa").leaf("KodWaluty", currency);
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

  // Per-rate totals from the VAT breakdown (BG-23) in the document currency.
  const taxTotal = childrenOf(root, "cac:TaxTotal").find((t) => (childOf(t, "cbc:TaxAmount")?.attrs["currencyID"] ?? currency).toUpperCase() === currency) ?? null;
  const bases = new Map<string, string[]>();
  const taxes = new Map<string, string[]>();
  const margins = new Set<string>();
  // The slot of each category and rate of the breakdown: lines and allowances/charges carry only the
  // category and rate (BT-151/152), the exemption reason code (a margin scheme) is on the breakdown.
  const slotOf = new Map<string, RateSlot>();
  const catKey = (c: Category): string => `${c.id}|${c.percent === "" ? "" : new Big(c.percent).toFixed()}`;
  let exemption: Category | null = null;
  let reverseCharge = false;
  for (const [i, sub] of childrenOf(taxTotal, "cac:TaxSubtotal").entries()) {
    const cat = category(childOf(sub, "cac:TaxCategory"));
    const slot = rateSlot(cat, buyerCountry, `Fa/P_13 (VAT breakdown ${i + 1})`);
    const base = amount(text(childOf(sub, "cbc:TaxableAmount")), `Fa/P_13_${slot.slot}`, "the taxable amount (BT-116)");
    const tax = amount(text(childOf(sub, "cbc:TaxAmount")), `Fa/P_14_${slot.slot}`, "the VAT amount (BT-117)");
    (bases.get(slot.slot) ?? bases.set(slot.slot, []).get(slot.slot)!).push(base);
    (taxes.get(slot.slot) ?? taxes.set(slot.slot, []).get(slot.slot)!).push(tax);
    slotOf.set(catKey(cat), slot);
    if (slot.margin) margins.add(slot.margin);
    if (slot.code === "zw") exemption = cat;
    if (slot.code === "oo" || slot.code === "np II") reverseCharge = true;
  }
  if (bases.size === 0) throw new Fa3MappingError("Fa/P_13_1", "the invoice has no VAT breakdown (BG-23)");
  for (const s of SLOT_ORDER) {
    const b = bases.get(s);
    if (!b) {
      // P_13_1..P_13_4 come with their P_14 as a pair; absent pairs are left out.
      continue;
    }
    x.leaf(`P_13_${s}`, signed(b.length === 1 ? b[0]! : sum(b)));
    if (SLOTS_WITH_VAT.has(s)) {
      const t = taxes.get(s)!;
      const vat = signed(t.length === 1 ? t[0]! : sum(t));
      x.leaf(`P_14_${s}`, vat);
      if (rate) x.leaf(`P_14_${s}W`, times(vat, rate));
    }
  }
  const gross = text(firstAt(root, "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount"));
  x.leaf("P_15", signed(amount(gross, "Fa/P_15", "the total with VAT (BT-112)")));

  // Adnotacje. P_16 (cash accounting, "metoda kasowa") only when the invoice says so: the VAT point
  // date code BT-8 is 432 (VAT due on the payment date) or a note (BT-22) carries the statutory words;
  // P_18A (split payment) only when a note carries "mechanizm podzielonej płatności". Else 2.
  const notes = childrenOf(root, "cbc:Note").map((n) => text(n).toLowerCase());
  const taxPointCode = text(firstAt(root, "cac:InvoicePeriod/cbc:DescriptionCode"));
  const cashAccounting = taxPointCode === "432" || notes.some((n) => n.includes("metoda kasowa"));
  const splitPayment = notes.some((n) => n.includes("mechanizm podzielonej płatności"));
  x.open("Adnotacje")
    .leaf("P_16", cashAccounting ? "1" : "2")
    .leaf("P_17", typeCode === "389" ? "1" : "2")
    .leaf("P_18", reverseCharge ? "1" : "2")
    .leaf("P_18A", splitPayment ? "1" : "2")
    .open("Zwolnienie");
  if (exemption) {
    const ex: Category = exemption;
    const reason = ex.exemptionReason || ex.exemptionCode;
    if (!reason) throw new Fa3MappingError("Fa/Adnotacje/Zwolnienie/P_19A", "an exempt supply (VAT category E) needs its legal basis: the VAT breakdown has no exemption reason (BT-120) or reason code (BT-121)");
    x.leaf("P_19", "1").leaf(ex.exemptionCode.startsWith("VATEX-EU-") ? "P_19B" : "P_19A", reason.slice(0, 256));
  } else x.leaf("P_19N", "1");
  x.close("Zwolnienie").open("NoweSrodkiTransportu").leaf("P_22N", "1").close("NoweSrodkiTransportu").leaf("P_23", "2").open("PMarzy");
  if (margins.size > 1) throw new Fa3MappingError("Fa/Adnotacje/PMarzy", `one invoice mixes margin schemes (${[...margins].join(", ")}); FA(3) marks one`);
  if (margins.size === 1) x.leaf("P_PMarzy", "1").leaf([...margins][0]!, "1");
  else x.leaf("P_PMarzyN", "1");
  x.close("PMarzy").close("Adnotacje");
  x.leaf("RodzajFaktury", credit ? "KOR" : "VAT");
  for (const c of corrections) {
    x.open("DaneFaKorygowanej").leaf("DataWystFaKorygowanej", c.issueDate).leaf("NrFaKorygowanej", c.number.slice(0, 256));
    if ("ksefNumber" in c.known) x.leaf("NrKSeF", "1").leaf("NrKSeFFaKorygowanej", c.known.ksefNumber);
    else x.leaf("NrKSeFN", "1");
    x.close("DaneFaKorygowanej");
  }

  // FaWiersz: the lines, then document-level allowances (negative) and charges as lines of their own,
  // so that the lines add up to the taxable amounts.
  let row = 0;
  for (const line of childrenOf(root, credit ? "cac:CreditNoteLine" : "cac:InvoiceLine")) {
    row++;
    const field = `Fa/FaWiersz[${row}]`;
    const item = childOf(line, "cac:Item");
    const cat = category(childOf(item, "cac:ClassifiedTaxCategory"));
    const slot = slotOf.get(catKey(cat)) ?? rateSlot(cat, buyerCountry, `${field}/P_12`);
    const qtyNode = childOf(line, credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity");
    const qty = text(qtyNode);
    if (qty && !QUANTITY.test(qty)) throw new Fa3MappingError(`${field}/P_8B`, `the quantity "${qty}" (BT-129) has more than 6 decimals or is not a decimal`);
    const price = text(firstAt(line, "cac:Price/cbc:PriceAmount"));
    const baseQty = text(firstAt(line, "cac:Price/cbc:BaseQuantity"));
    let unitPrice = "";
    if (price) {
      const s = baseQty && new Big(baseQty).gt(0) && !new Big(baseQty).eq(1) ? new Big(price).div(baseQty).toFixed() : price;
      if (PRICE.test(s)) unitPrice = s; // else: not exact in 8 decimals, P_9A (optional) is left out
    }
    const gtin = childrenOf(item, "cac:StandardItemIdentification").map((s) => childOf(s, "cbc:ID")).find((id) => id?.attrs["schemeID"] === "0160");
    x.open("FaWiersz")
      .leaf("NrWierszaFa", String(row))
      .leaf("P_7", text(childOf(item, "cbc:Name")).slice(0, 512))
      .leaf("Indeks", text(firstAt(item, "cac:SellersItemIdentification/cbc:ID")).slice(0, 50))
      .leaf("GTIN", gtin ? text(gtin).slice(0, 20) : "")
      .leaf("P_8A", qtyNode?.attrs["unitCode"])
      .leaf("P_8B", qty ? signed(qty) : qty)
      .leaf("P_9A", unitPrice)
      .leaf("P_11", signed(amount(text(childOf(line, "cbc:LineExtensionAmount")), `${field}/P_11`, "the line net amount (BT-131)")))
      .leaf("P_12", slot.code)
      .leaf("KursWaluty", rate ?? "")
      .close("FaWiersz");
  }
  for (const ac of childrenOf(root, "cac:AllowanceCharge")) {
    row++;
    const field = `Fa/FaWiersz[${row}]`;
    const isCharge = text(childOf(ac, "cbc:ChargeIndicator")) === "true";
    const cat = category(childOf(ac, "cac:TaxCategory"));
    const slot = slotOf.get(catKey(cat)) ?? rateSlot(cat, buyerCountry, `${field}/P_12`);
    const amt = amount(text(childOf(ac, "cbc:Amount")), `${field}/P_11`, isCharge ? "the charge amount (BT-99)" : "the allowance amount (BT-92)");
    const reason = text(childOf(ac, "cbc:AllowanceChargeReason")) || text(childOf(ac, "cbc:AllowanceChargeReasonCode"));
    x.open("FaWiersz")
      .leaf("NrWierszaFa", String(row))
      .leaf("P_7", `${isCharge ? "Charge" : "Allowance"}${reason ? `: ${reason}` : ""}`.slice(0, 512))
      .leaf("P_11", signed(isCharge ? amt : new Big(amt).times(-1).toFixed(2)))
      .leaf("P_12", slot.code)
      .leaf("KursWaluty", rate ?? "")
      .close("FaWiersz");
  }

  // Platnosc
  const due = text(childOf(root, "cbc:DueDate")) || text(firstAt(root, "cac:PaymentMeans/cbc:PaymentDueDate"));
  const means = childrenOf(root, "cac:PaymentMeans");
  if (due || means.length > 0) {
    x.open("Platnosc");
    if (due) x.open("TerminPlatnosci").leaf("Termin", date(due, "Fa/Platnosc/TerminPlatnosci/Termin", "the due date (BT-9)", "2016-07-01")).close("TerminPlatnosci");
    const first = means[0];
    if (first) {
      const code = text(childOf(first, "cbc:PaymentMeansCode"));
      const form = PAYMENT_FORMS[code];
      if (form) x.leaf("FormaPlatnosci", form);
      else x.leaf("PlatnoscInna", "1").leaf("OpisPlatnosci", `UNCL4461 ${code}${childOf(first, "cbc:PaymentMeansCode")?.attrs["name"] ? ` (${childOf(first, "cbc:PaymentMeansCode")!.attrs["name"]})` : ""}`.slice(0, 256));
    }
    for (const m of means) {
      const account = text(firstAt(m, "cac:PayeeFinancialAccount/cbc:ID")).replace(/\s/g, "");
      if (account.length < 10 || account.length > 34) continue;
      const bic = text(firstAt(m, "cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID")).toUpperCase();
      x.open("RachunekBankowy").leaf("NrRB", account).leaf("SWIFT", /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic) ? bic : "").leaf("NazwaBanku", text(firstAt(m, "cac:PayeeFinancialAccount/cbc:Name")).slice(0, 256)).close("RachunekBankowy");
    }
    x.close("Platnosc");
  }
  x.close("Fa").close("Faktura");
  return `<?xml version="1.0" encoding="UTF-8"?>\n${x.toString()}`;
}

// UNCL4461 payment means to TFormaPlatnosci (1 cash, 2 card, 3 voucher, 4 cheque, 5 credit, 6 transfer, 7 mobile).
const PAYMENT_FORMS: Record<string, string> = {
  "10": "1",
  "20": "4",
  "30": "6",
  "31": "6",
  "42": "6",
  "58": "6",
  "48": "2",
  "54": "2",
  "55": "2",
  "68": "7",
};

// The parties of an FA(3): the seller (Podmiot1), the buyer (Podmiot2) and the third parties
// (Podmiot3: a buyer unit, the payee, the seller's tax representative), from the UBL parties.
import { isValidNip } from "@einvoice/core";
import type { Fa3Node } from "../model.js";
import { childOf, childrenOf, firstAt, text } from "../model.js";
import { EU_COUNTRIES, Fa3MappingError } from "./values.js";
import type { Xml } from "./xml.js";

/** The subordinate JST unit or VAT group member an invoice to a buyer concerns (see `Fa3Options.buyerUnit`). */
export interface BuyerUnit {
  kind: "jst" | "vat-group";
  /** The unit's NIP (10 digits). */
  nip: string;
  name?: string;
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

/** The party's country code (BT-40, BT-55), upper case; "" without one. */
export function countryOf(party: Fa3Node | null): string {
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

/** The seller as the FA(3) names it (Podmiot1): its NIP and name. */
export interface Issuer {
  nip: string;
  name: string;
}

/** Podmiot1: the seller, a Polish taxpayer with a NIP. */
export function writeSeller(x: Xml, seller: Fa3Node | null): Issuer {
  const sellerVat = vatId(seller);
  const nip = sellerNipOf(sellerVat);
  if (!nip) throw new Fa3MappingError("Podmiot1/DaneIdentyfikacyjne/NIP", `the seller has no Polish VAT number (BT-31 is ${sellerVat ? `"${sellerVat}"` : "absent"}): KSeF takes invoices of Polish taxpayers, identified by their NIP (10 digits, with or without the PL prefix)`);
  if (!isValidNip(nip)) throw new Fa3MappingError("Podmiot1/DaneIdentyfikacyjne/NIP", `the seller's VAT number "${sellerVat}" (BT-31) does not hold a valid NIP (10 digits with a check digit)`);
  const name = partyName(seller);
  if (!name) throw new Fa3MappingError("Podmiot1/DaneIdentyfikacyjne/Nazwa", "the seller has no name (BT-27)");
  x.open("Podmiot1").leaf("PrefiksPodatnika", "PL").open("DaneIdentyfikacyjne").leaf("NIP", nip).leaf("Nazwa", name.slice(0, 512)).close("DaneIdentyfikacyjne");
  writeAddress(x, seller, "Podmiot1", true);
  x.close("Podmiot1");
  return { nip, name };
}

/**
 * Podmiot2: the buyer. JST / GV: EN 16931 has no term saying the buyer stands for a subordinate
 * local-government unit or a VAT-group member; only `buyerUnit` says so. Returns the unit it named.
 */
export function writeBuyer(x: Xml, buyer: Fa3Node | null, buyerUnit: ((buyer: { nip: string | null; name: string }) => BuyerUnit | null) | undefined): BuyerUnit | null {
  const buyerVat = vatId(buyer);
  x.open("Podmiot2").open("DaneIdentyfikacyjne");
  writeTaxId(x, buyerVat, countryOf(buyer));
  x.leaf("Nazwa", partyName(buyer).slice(0, 512)).close("DaneIdentyfikacyjne");
  writeAddress(x, buyer, "Podmiot2", false);
  const buyerNip = buyerVat.startsWith("PL") && /^\d{10}$/.test(buyerVat.slice(2)) ? buyerVat.slice(2) : null;
  const unit = buyerUnit?.({ nip: buyerNip, name: partyName(buyer) }) ?? null;
  if (unit && !/^\d{10}$/.test(unit.nip)) throw new Fa3MappingError("Podmiot3/DaneIdentyfikacyjne/NIP", `the buyer unit's NIP "${unit.nip}" (buyerUnit option) is not 10 digits`);
  x.leaf("JST", unit?.kind === "jst" ? "1" : "2").leaf("GV", unit?.kind === "vat-group" ? "1" : "2").close("Podmiot2");
  return unit;
}

/** Podmiot3: the unit of the buyerUnit option, the payee (BG-10) when it is not the seller, and the seller's tax representative (BG-11). */
export function writeThirdParties(x: Xml, root: Fa3Node, unit: BuyerUnit | null, issuer: Issuer): void {
  if (unit) {
    x.open("Podmiot3").open("DaneIdentyfikacyjne").leaf("NIP", unit.nip).leaf("Nazwa", unit.name?.slice(0, 512)).close("DaneIdentyfikacyjne");
    x.leaf("Rola", unit.kind === "jst" ? "8" : "10").close("Podmiot3");
  }
  const payee = childOf(root, "cac:PayeeParty");
  const payeeName = text(firstAt(payee, "cac:PartyName/cbc:Name")) || partyName(payee);
  const payeeNip = schemeNip(payee);
  if (payee && payeeName && !(payeeName === issuer.name || payeeNip === issuer.nip)) {
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
    writeTaxId(x, vatId(rep), countryOf(rep));
    x.leaf("Nazwa", repName.slice(0, 512)).close("DaneIdentyfikacyjne");
    writeAddress(x, rep, "Podmiot3", false);
    x.leaf("RolaInna", "1").leaf("OpisRoli", "Przedstawiciel podatkowy sprzedawcy (seller's tax representative, EN 16931 BG-11)").close("Podmiot3");
  }
}

// The words and formats an invoice is shown in, in English, German, Dutch, French and Polish: shared by the HTML and PDF renderers.
import type { InvoiceData } from "@einvoice/core";

/** The languages an invoice is rendered in. */
export const LANGUAGES = ["en", "de", "nl", "fr", "pl"] as const;
export type Language = (typeof LANGUAGES)[number];

/** Whether `lang` is one of `LANGUAGES`. */
export function isLanguage(lang: unknown): lang is Language {
  return typeof lang === "string" && (LANGUAGES as readonly string[]).includes(lang);
}

/** Every label a rendered invoice uses. */
export interface Labels {
  invoice: string;
  creditNote: string;
  seller: string;
  buyer: string;
  payee: string;
  taxRepresentative: string;
  vatId: string;
  taxRegistrationId: string;
  legalId: string;
  identifier: string;
  electronicAddress: string;
  contact: string;
  legalInfo: string;
  number: string;
  issueDate: string;
  dueDate: string;
  taxPointDate: string;
  invoicingPeriod: string;
  currency: string;
  references: string;
  buyerReference: string;
  orderReference: string;
  salesOrderReference: string;
  contractReference: string;
  projectReference: string;
  tenderReference: string;
  receivingAdviceReference: string;
  despatchAdviceReference: string;
  accountingCost: string;
  precedingInvoice: string;
  lines: string;
  position: string;
  item: string;
  quantity: string;
  unitPrice: string;
  vat: string;
  netAmount: string;
  lineAllowance: string;
  lineCharge: string;
  priceDiscount: string;
  period: string;
  allowancesAndCharges: string;
  allowance: string;
  charge: string;
  reason: string;
  baseAmount: string;
  vatBreakdown: string;
  category: string;
  rate: string;
  taxableAmount: string;
  taxAmount: string;
  exemptionReason: string;
  totals: string;
  lineTotal: string;
  allowanceTotal: string;
  chargeTotal: string;
  taxExclusive: string;
  vatTotal: string;
  taxInclusive: string;
  paidAmount: string;
  roundingAmount: string;
  payable: string;
  payment: string;
  paymentMeans: string;
  iban: string;
  bic: string;
  accountName: string;
  paymentReference: string;
  paymentTerms: string;
  card: string;
  mandate: string;
  creditorId: string;
  debitedAccount: string;
  notes: string;
  delivery: string;
  deliveryDate: string;
  deliverTo: string;
  location: string;
  attachments: string;
  ksef: string;
  ksefNumber: string;
  /** The label under the verification QR code (KOD I) on a KSeF invoice's visualisation. */
  ksefQrLabel: string;
  page: string;
}

const EN: Labels = {
  invoice: "Invoice",
  creditNote: "Credit note",
  seller: "Seller",
  buyer: "Buyer",
  payee: "Payee",
  taxRepresentative: "Tax representative",
  vatId: "VAT ID",
  taxRegistrationId: "Tax registration ID",
  legalId: "Legal registration ID",
  identifier: "Identifier",
  electronicAddress: "Electronic address",
  contact: "Contact",
  legalInfo: "Additional legal information",
  number: "Number",
  issueDate: "Issue date",
  dueDate: "Due date",
  taxPointDate: "Tax point date",
  invoicingPeriod: "Invoicing period",
  currency: "Currency",
  references: "References",
  buyerReference: "Buyer reference",
  orderReference: "Purchase order",
  salesOrderReference: "Sales order",
  contractReference: "Contract",
  projectReference: "Project",
  tenderReference: "Tender or lot",
  receivingAdviceReference: "Receiving advice",
  despatchAdviceReference: "Despatch advice",
  accountingCost: "Buyer accounting reference",
  precedingInvoice: "Preceding invoice",
  lines: "Lines",
  position: "No.",
  item: "Item",
  quantity: "Quantity",
  unitPrice: "Unit price",
  vat: "VAT",
  netAmount: "Net amount",
  lineAllowance: "Allowance",
  lineCharge: "Charge",
  priceDiscount: "Price discount",
  period: "Period",
  allowancesAndCharges: "Allowances and charges",
  allowance: "Allowance",
  charge: "Charge",
  reason: "Reason",
  baseAmount: "Base amount",
  vatBreakdown: "VAT breakdown",
  category: "Category",
  rate: "Rate",
  taxableAmount: "Taxable amount",
  taxAmount: "VAT amount",
  exemptionReason: "Exemption reason",
  totals: "Totals",
  lineTotal: "Sum of lines",
  allowanceTotal: "Allowances",
  chargeTotal: "Charges",
  taxExclusive: "Total without VAT",
  vatTotal: "Total VAT",
  taxInclusive: "Total with VAT",
  paidAmount: "Paid",
  roundingAmount: "Rounding",
  payable: "Amount due",
  payment: "Payment",
  paymentMeans: "Payment means",
  iban: "IBAN",
  bic: "BIC",
  accountName: "Account name",
  paymentReference: "Payment reference",
  paymentTerms: "Payment terms",
  card: "Card",
  mandate: "Mandate reference",
  creditorId: "Creditor ID",
  debitedAccount: "Debited account",
  notes: "Notes",
  delivery: "Delivery",
  deliveryDate: "Delivery date",
  deliverTo: "Deliver to",
  location: "Location",
  attachments: "Attachments",
  ksef: "KSeF",
  ksefNumber: "KSeF number",
  ksefQrLabel: "Verify the invoice in KSeF",
  page: "Page",
};

const DE: Labels = {
  invoice: "Rechnung",
  creditNote: "Gutschrift",
  seller: "Verkäufer",
  buyer: "Käufer",
  payee: "Zahlungsempfänger",
  taxRepresentative: "Steuervertreter",
  vatId: "USt-IdNr.",
  taxRegistrationId: "Steuernummer",
  legalId: "Registernummer",
  identifier: "Kennung",
  electronicAddress: "Elektronische Adresse",
  contact: "Kontakt",
  legalInfo: "Rechtliche Angaben",
  number: "Nummer",
  issueDate: "Rechnungsdatum",
  dueDate: "Fälligkeitsdatum",
  taxPointDate: "Steuerdatum",
  invoicingPeriod: "Abrechnungszeitraum",
  currency: "Währung",
  references: "Referenzen",
  buyerReference: "Käuferreferenz",
  orderReference: "Bestellung",
  salesOrderReference: "Auftrag",
  contractReference: "Vertrag",
  projectReference: "Projekt",
  tenderReference: "Ausschreibung oder Los",
  receivingAdviceReference: "Wareneingangsmeldung",
  despatchAdviceReference: "Lieferavis",
  accountingCost: "Buchungsreferenz des Käufers",
  precedingInvoice: "Vorausgegangene Rechnung",
  lines: "Positionen",
  position: "Pos.",
  item: "Artikel",
  quantity: "Menge",
  unitPrice: "Einzelpreis",
  vat: "USt.",
  netAmount: "Nettobetrag",
  lineAllowance: "Nachlass",
  lineCharge: "Zuschlag",
  priceDiscount: "Preisnachlass",
  period: "Zeitraum",
  allowancesAndCharges: "Nachlässe und Zuschläge",
  allowance: "Nachlass",
  charge: "Zuschlag",
  reason: "Grund",
  baseAmount: "Basisbetrag",
  vatBreakdown: "Umsatzsteuer",
  category: "Kategorie",
  rate: "Satz",
  taxableAmount: "Bemessungsgrundlage",
  taxAmount: "Steuerbetrag",
  exemptionReason: "Befreiungsgrund",
  totals: "Summen",
  lineTotal: "Summe der Positionen",
  allowanceTotal: "Nachlässe",
  chargeTotal: "Zuschläge",
  taxExclusive: "Gesamtbetrag netto",
  vatTotal: "Umsatzsteuer gesamt",
  taxInclusive: "Gesamtbetrag brutto",
  paidAmount: "Bereits gezahlt",
  roundingAmount: "Rundung",
  payable: "Zahlbetrag",
  payment: "Zahlung",
  paymentMeans: "Zahlungsart",
  iban: "IBAN",
  bic: "BIC",
  accountName: "Kontoinhaber",
  paymentReference: "Verwendungszweck",
  paymentTerms: "Zahlungsbedingungen",
  card: "Karte",
  mandate: "Mandatsreferenz",
  creditorId: "Gläubiger-ID",
  debitedAccount: "Belastetes Konto",
  notes: "Bemerkungen",
  delivery: "Lieferung",
  deliveryDate: "Lieferdatum",
  deliverTo: "Lieferanschrift",
  location: "Ort",
  attachments: "Anlagen",
  ksef: "KSeF",
  ksefNumber: "KSeF-Nummer",
  ksefQrLabel: "Rechnung in KSeF prüfen",
  page: "Seite",
};

const NL: Labels = {
  invoice: "Factuur",
  creditNote: "Creditnota",
  seller: "Verkoper",
  buyer: "Koper",
  payee: "Begunstigde",
  taxRepresentative: "Fiscaal vertegenwoordiger",
  vatId: "Btw-nummer",
  taxRegistrationId: "Fiscaal nummer",
  legalId: "KvK-nummer",
  identifier: "Kenmerk",
  electronicAddress: "Elektronisch adres",
  contact: "Contact",
  legalInfo: "Aanvullende juridische informatie",
  number: "Nummer",
  issueDate: "Factuurdatum",
  dueDate: "Vervaldatum",
  taxPointDate: "Datum belastingplicht",
  invoicingPeriod: "Factuurperiode",
  currency: "Valuta",
  references: "Referenties",
  buyerReference: "Referentie koper",
  orderReference: "Inkooporder",
  salesOrderReference: "Verkooporder",
  contractReference: "Contract",
  projectReference: "Project",
  tenderReference: "Aanbesteding of perceel",
  receivingAdviceReference: "Ontvangstbericht",
  despatchAdviceReference: "Verzendbericht",
  accountingCost: "Boekingsreferentie koper",
  precedingInvoice: "Voorgaande factuur",
  lines: "Regels",
  position: "Nr.",
  item: "Artikel",
  quantity: "Aantal",
  unitPrice: "Prijs per eenheid",
  vat: "Btw",
  netAmount: "Nettobedrag",
  lineAllowance: "Korting",
  lineCharge: "Toeslag",
  priceDiscount: "Prijskorting",
  period: "Periode",
  allowancesAndCharges: "Kortingen en toeslagen",
  allowance: "Korting",
  charge: "Toeslag",
  reason: "Reden",
  baseAmount: "Basisbedrag",
  vatBreakdown: "Btw-specificatie",
  category: "Categorie",
  rate: "Tarief",
  taxableAmount: "Grondslag",
  taxAmount: "Btw-bedrag",
  exemptionReason: "Reden vrijstelling",
  totals: "Totalen",
  lineTotal: "Som van de regels",
  allowanceTotal: "Kortingen",
  chargeTotal: "Toeslagen",
  taxExclusive: "Totaal excl. btw",
  vatTotal: "Totaal btw",
  taxInclusive: "Totaal incl. btw",
  paidAmount: "Reeds betaald",
  roundingAmount: "Afronding",
  payable: "Te betalen",
  payment: "Betaling",
  paymentMeans: "Betaalwijze",
  iban: "IBAN",
  bic: "BIC",
  accountName: "Rekeninghouder",
  paymentReference: "Betalingskenmerk",
  paymentTerms: "Betalingsvoorwaarden",
  card: "Kaart",
  mandate: "Machtigingskenmerk",
  creditorId: "Incassant-ID",
  debitedAccount: "Te belasten rekening",
  notes: "Opmerkingen",
  delivery: "Levering",
  deliveryDate: "Leverdatum",
  deliverTo: "Afleveradres",
  location: "Locatie",
  attachments: "Bijlagen",
  ksef: "KSeF",
  ksefNumber: "KSeF-nummer",
  ksefQrLabel: "Controleer de factuur in KSeF",
  page: "Pagina",
};

const FR: Labels = {
  invoice: "Facture",
  creditNote: "Avoir",
  seller: "Vendeur",
  buyer: "Acheteur",
  payee: "Bénéficiaire",
  taxRepresentative: "Représentant fiscal",
  vatId: "N° TVA",
  taxRegistrationId: "N° d'identification fiscale",
  legalId: "N° d'immatriculation",
  identifier: "Identifiant",
  electronicAddress: "Adresse électronique",
  contact: "Contact",
  legalInfo: "Mentions légales",
  number: "Numéro",
  issueDate: "Date d'émission",
  dueDate: "Date d'échéance",
  taxPointDate: "Date d'exigibilité de la TVA",
  invoicingPeriod: "Période de facturation",
  currency: "Devise",
  references: "Références",
  buyerReference: "Référence acheteur",
  orderReference: "Bon de commande",
  salesOrderReference: "Commande client",
  contractReference: "Contrat",
  projectReference: "Projet",
  tenderReference: "Appel d'offres ou lot",
  receivingAdviceReference: "Avis de réception",
  despatchAdviceReference: "Avis d'expédition",
  accountingCost: "Référence comptable de l'acheteur",
  precedingInvoice: "Facture antérieure",
  lines: "Lignes",
  position: "N°",
  item: "Article",
  quantity: "Quantité",
  unitPrice: "Prix unitaire",
  vat: "TVA",
  netAmount: "Montant HT",
  lineAllowance: "Remise",
  lineCharge: "Frais",
  priceDiscount: "Rabais",
  period: "Période",
  allowancesAndCharges: "Remises et frais",
  allowance: "Remise",
  charge: "Frais",
  reason: "Motif",
  baseAmount: "Montant de base",
  vatBreakdown: "Ventilation de la TVA",
  category: "Catégorie",
  rate: "Taux",
  taxableAmount: "Base d'imposition",
  taxAmount: "Montant de TVA",
  exemptionReason: "Motif d'exonération",
  totals: "Totaux",
  lineTotal: "Somme des lignes",
  allowanceTotal: "Remises",
  chargeTotal: "Frais",
  taxExclusive: "Total HT",
  vatTotal: "Total TVA",
  taxInclusive: "Total TTC",
  paidAmount: "Déjà payé",
  roundingAmount: "Arrondi",
  payable: "Net à payer",
  payment: "Paiement",
  paymentMeans: "Moyen de paiement",
  iban: "IBAN",
  bic: "BIC",
  accountName: "Titulaire du compte",
  paymentReference: "Référence de paiement",
  paymentTerms: "Conditions de paiement",
  card: "Carte",
  mandate: "Référence du mandat",
  creditorId: "Identifiant créancier",
  debitedAccount: "Compte débité",
  notes: "Remarques",
  delivery: "Livraison",
  deliveryDate: "Date de livraison",
  deliverTo: "Adresse de livraison",
  location: "Lieu",
  attachments: "Pièces jointes",
  ksef: "KSeF",
  ksefNumber: "Numéro KSeF",
  ksefQrLabel: "Vérifier la facture dans KSeF",
  page: "Page",
};

const PL: Labels = {
  invoice: "Faktura",
  creditNote: "Faktura korygująca",
  seller: "Sprzedawca",
  buyer: "Nabywca",
  payee: "Odbiorca płatności",
  taxRepresentative: "Przedstawiciel podatkowy",
  vatId: "NIP / VAT UE",
  taxRegistrationId: "Numer identyfikacji podatkowej",
  legalId: "Numer rejestrowy",
  identifier: "Identyfikator",
  electronicAddress: "Adres elektroniczny",
  contact: "Kontakt",
  legalInfo: "Informacje prawne",
  number: "Numer",
  issueDate: "Data wystawienia",
  dueDate: "Termin płatności",
  taxPointDate: "Data powstania obowiązku podatkowego",
  invoicingPeriod: "Okres rozliczeniowy",
  currency: "Waluta",
  references: "Odniesienia",
  buyerReference: "Referencja nabywcy",
  orderReference: "Zamówienie",
  salesOrderReference: "Zamówienie sprzedaży",
  contractReference: "Umowa",
  projectReference: "Projekt",
  tenderReference: "Przetarg lub część",
  receivingAdviceReference: "Potwierdzenie odbioru",
  despatchAdviceReference: "Awizo wysyłki",
  accountingCost: "Referencja księgowa nabywcy",
  precedingInvoice: "Faktura korygowana",
  lines: "Pozycje",
  position: "Lp.",
  item: "Nazwa",
  quantity: "Ilość",
  unitPrice: "Cena jedn. netto",
  vat: "VAT",
  netAmount: "Wartość netto",
  lineAllowance: "Rabat",
  lineCharge: "Narzut",
  priceDiscount: "Upust cenowy",
  period: "Okres",
  allowancesAndCharges: "Rabaty i narzuty",
  allowance: "Rabat",
  charge: "Narzut",
  reason: "Przyczyna",
  baseAmount: "Podstawa",
  vatBreakdown: "Podsumowanie VAT",
  category: "Kategoria",
  rate: "Stawka",
  taxableAmount: "Wartość netto",
  taxAmount: "Kwota VAT",
  exemptionReason: "Podstawa zwolnienia",
  totals: "Podsumowanie",
  lineTotal: "Suma pozycji",
  allowanceTotal: "Rabaty",
  chargeTotal: "Narzuty",
  taxExclusive: "Razem netto",
  vatTotal: "Razem VAT",
  taxInclusive: "Razem brutto",
  paidAmount: "Zapłacono",
  roundingAmount: "Zaokrąglenie",
  payable: "Do zapłaty",
  payment: "Płatność",
  paymentMeans: "Forma płatności",
  iban: "IBAN",
  bic: "BIC",
  accountName: "Właściciel rachunku",
  paymentReference: "Tytuł płatności",
  paymentTerms: "Warunki płatności",
  card: "Karta",
  mandate: "Numer mandatu",
  creditorId: "Identyfikator wierzyciela",
  debitedAccount: "Rachunek obciążany",
  notes: "Uwagi",
  delivery: "Dostawa",
  deliveryDate: "Data dostawy",
  deliverTo: "Adres dostawy",
  location: "Miejsce",
  attachments: "Załączniki",
  ksef: "KSeF",
  ksefNumber: "Numer KSeF",
  ksefQrLabel: "Sprawdź, czy Twoja faktura znajduje się w KSeF!",
  page: "Strona",
};

const LABELS: Readonly<Record<Language, Labels>> = { en: EN, de: DE, nl: NL, fr: FR, pl: PL };

/**
 * The labels of `lang` (English for anything else).
 *
 * @example labelsFor("de").payable // "Zahlbetrag"
 */
export function labelsFor(lang: string | undefined): Labels {
  return LABELS[isLanguage(lang) ? lang : "en"];
}

/** The buyer's country's language, among ours (DE/AT/CH/LI/LU German, NL/BE Dutch, FR/MC French, PL Polish); else English. */
const COUNTRY_LANGUAGE: Readonly<Record<string, Language>> = { DE: "de", AT: "de", CH: "de", LI: "de", NL: "nl", BE: "nl", FR: "fr", MC: "fr", PL: "pl" };

/**
 * The language an invoice is shown in when none is asked: the buyer's country's, else English.
 *
 * @example languageFor({ ...invoice, buyer: { ...invoice.buyer, address: { country: "AT" } } }) // "de"
 */
export function languageFor(invoice: Pick<InvoiceData, "buyer">): Language {
  return COUNTRY_LANGUAGE[invoice.buyer?.address?.country ?? ""] ?? "en";
}

// ---------- numbers, amounts, dates ----------

interface NumberStyle {
  group: string;
  decimal: string;
  /** Digits before the point from which they are grouped (Polish leaves 4-digit numbers ungrouped, as CLDR does). */
  groupFrom: number;
}

const NUMBER_STYLE: Readonly<Record<Language, NumberStyle>> = {
  en: { group: ",", decimal: ".", groupFrom: 4 },
  de: { group: ".", decimal: ",", groupFrom: 4 },
  nl: { group: ".", decimal: ",", groupFrom: 4 },
  // French and Polish group with a space that never breaks a line (U+202F and U+00A0, as CLDR).
  fr: { group: "\u202f", decimal: ",", groupFrom: 4 },
  pl: { group: "\u00a0", decimal: ",", groupFrom: 5 },
};

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/**
 * A decimal string (an amount, quantity, price or rate as the document writes it) in `lang`'s notation: the digits
 * exactly as written (none added, dropped or rounded), the integer part grouped by thousands and the decimal
 * separator of the language. Anything that is not a decimal string comes back unchanged.
 *
 * @example formatNumber("1234567.5", "de") // "1.234.567,5"
 */
export function formatNumber(value: string, lang: string | undefined): string {
  const m = DECIMAL.exec(value);
  if (!m) return value;
  const style = NUMBER_STYLE[isLanguage(lang) ? lang : "en"];
  const [, sign, int, frac] = m as unknown as [string, string, string, string | undefined];
  let grouped = int;
  if (int.length >= style.groupFrom) {
    const parts: string[] = [];
    for (let end = int.length; end > 0; end -= 3) parts.unshift(int.slice(Math.max(0, end - 3), end));
    grouped = parts.join(style.group);
  }
  return `${sign === "-" ? "-" : ""}${grouped}${frac === undefined ? "" : style.decimal + frac}`;
}

/**
 * An amount as the document writes it, in `lang`'s notation, followed by its currency code when given: its digits are
 * never changed (no rounding, no added or dropped decimals); only the grouping and the decimal separator are the language's.
 *
 * @example formatAmount("1234.50", "EUR", "de") // "1.234,50 EUR"
 * @example formatAmount("-5", null, "en") // "-5"
 */
export function formatAmount(value: string, currency: string | null | undefined, lang: string | undefined): string {
  const n = formatNumber(value, lang);
  return currency ? `${n}\u00a0${currency}` : n;
}

/**
 * A percentage as written (a VAT rate), in `lang`'s notation.
 *
 * @example formatPercent("5.5", "fr") // "5,5 %"
 */
export function formatPercent(value: string, lang: string | undefined): string {
  const n = formatNumber(value, lang);
  return lang === "en" || !isLanguage(lang) ? `${n}%` : `${n}\u00a0%`;
}

const MONTHS_EN = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/**
 * A date (`YYYY-MM-DD`) as people of `lang` write it: en "2 November 2026", de and pl "02.11.2026", nl "02-11-2026",
 * fr "02/11/2026". Anything that is not such a date comes back unchanged.
 *
 * @example formatDate("2026-11-02", "de") // "02.11.2026"
 */
export function formatDate(isoDate: string, lang: string | undefined): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!m) return isoDate;
  const [, y, mo, d] = m as unknown as [string, string, string, string];
  const month = Number(mo);
  if (month < 1 || month > 12) return isoDate;
  switch (isLanguage(lang) ? lang : "en") {
    case "en":
      return `${Number(d)} ${MONTHS_EN[month - 1]} ${y}`;
    case "nl":
      return `${d}-${mo}-${y}`;
    case "fr":
      return `${d}/${mo}/${y}`;
    default:
      return `${d}.${mo}.${y}`;
  }
}

// ---------- code lists ----------

type Names = readonly [en: string, de: string, nl: string, fr: string, pl: string];
const INDEX: Readonly<Record<Language, number>> = { en: 0, de: 1, nl: 2, fr: 3, pl: 4 };
const pick = (names: Names | undefined, lang: string | undefined): string | undefined => names?.[INDEX[isLanguage(lang) ? lang : "en"]];

/** Common units of UN/ECE Recommendation 20 (and 21's package codes) by name. */
const UNITS: Readonly<Record<string, Names>> = {
  C62: ["unit", "Stück", "stuk", "unité", "szt."],
  H87: ["piece", "Stück", "stuk", "pièce", "szt."],
  EA: ["each", "Stück", "stuk", "unité", "szt."],
  XPP: ["piece", "Stück", "stuk", "pièce", "szt."],
  XPK: ["package", "Packung", "pak", "paquet", "opak."],
  XBX: ["box", "Karton", "doos", "boîte", "karton"],
  PR: ["pair", "Paar", "paar", "paire", "para"],
  SET: ["set", "Satz", "set", "ensemble", "kpl."],
  LS: ["lump sum", "pauschal", "forfait", "forfait", "ryczałt"],
  E48: ["service unit", "Leistungseinheit", "service-eenheid", "unité de service", "usługa"],
  SEC: ["second", "Sekunde", "seconde", "seconde", "s"],
  MIN: ["minute", "Minute", "minuut", "minute", "min"],
  HUR: ["hour", "Stunde", "uur", "heure", "godz."],
  DAY: ["day", "Tag", "dag", "jour", "dzień"],
  WEE: ["week", "Woche", "week", "semaine", "tydz."],
  MON: ["month", "Monat", "maand", "mois", "mies."],
  ANN: ["year", "Jahr", "jaar", "an", "rok"],
  GRM: ["g", "g", "g", "g", "g"],
  KGM: ["kg", "kg", "kg", "kg", "kg"],
  TNE: ["t", "t", "t", "t", "t"],
  MMT: ["mm", "mm", "mm", "mm", "mm"],
  CMT: ["cm", "cm", "cm", "cm", "cm"],
  MTR: ["m", "m", "m", "m", "m"],
  KMT: ["km", "km", "km", "km", "km"],
  MTK: ["m²", "m²", "m²", "m²", "m²"],
  MTQ: ["m³", "m³", "m³", "m³", "m³"],
  MLT: ["ml", "ml", "ml", "ml", "ml"],
  LTR: ["l", "l", "l", "l", "l"],
  KWH: ["kWh", "kWh", "kWh", "kWh", "kWh"],
  KWT: ["kW", "kW", "kW", "kW", "kW"],
  P1: ["percent", "Prozent", "procent", "pour cent", "procent"],
  ZZ: ["mutually defined", "vereinbart", "onderling bepaald", "défini d'un commun accord", "uzgodniona"],
};

/**
 * The name of a unit of measure (BT-130, UN/ECE Rec 20 or 21) in `lang`; the code itself for a code not in the list.
 *
 * @example unitName("HUR", "de") // "Stunde"
 */
export function unitName(code: string, lang: string | undefined): string {
  return pick(UNITS[code], lang) ?? code;
}

/** The VAT categories (UNCL 5305 subset of EN 16931). */
const VAT_CATEGORY_NAMES: Readonly<Record<string, Names>> = {
  S: ["Standard rate", "Normalsatz", "Standaardtarief", "Taux normal", "Stawka podstawowa"],
  Z: ["Zero rated", "Nullsatz", "Nultarief", "Taux zéro", "Stawka 0%"],
  E: ["Exempt", "Steuerbefreit", "Vrijgesteld", "Exonéré", "Zwolnione"],
  AE: ["Reverse charge", "Umkehr der Steuerschuld", "Btw verlegd", "Autoliquidation", "Odwrotne obciążenie"],
  K: ["Intra-community supply", "Innergemeinschaftliche Lieferung", "Intracommunautaire levering", "Livraison intracommunautaire", "Dostawa wewnątrzwspólnotowa"],
  G: ["Export outside the EU", "Ausfuhr", "Export buiten de EU", "Exportation hors UE", "Eksport"],
  O: ["Not subject to VAT", "Nicht steuerbar", "Niet onderworpen aan btw", "Hors champ de la TVA", "Niepodlegające VAT"],
  L: ["Canary Islands IGIC", "IGIC (Kanaren)", "IGIC (Canarische Eilanden)", "IGIC (Canaries)", "IGIC (Wyspy Kanaryjskie)"],
  M: ["Ceuta and Melilla IPSI", "IPSI (Ceuta, Melilla)", "IPSI (Ceuta, Melilla)", "IPSI (Ceuta, Melilla)", "IPSI (Ceuta, Melilla)"],
  B: ["Split payment", "Split Payment", "Gesplitste betaling", "Paiement fractionné", "Podzielona płatność"],
};

/**
 * The name of a VAT category code (BT-118) in `lang`; the code for an unknown one.
 *
 * @example vatCategoryName("AE", "nl") // "Btw verlegd"
 */
export function vatCategoryName(code: string, lang: string | undefined): string {
  return pick(VAT_CATEGORY_NAMES[code], lang) ?? code;
}

/** The payment means codes (UNCL 4461) invoices use most. */
const PAYMENT_MEANS: Readonly<Record<string, Names>> = {
  "1": ["Not defined", "Nicht definiert", "Niet gedefinieerd", "Non défini", "Nieokreślona"],
  "10": ["Cash", "Bar", "Contant", "Espèces", "Gotówka"],
  "20": ["Cheque", "Scheck", "Cheque", "Chèque", "Czek"],
  "30": ["Credit transfer", "Überweisung", "Overboeking", "Virement", "Przelew"],
  "31": ["Debit transfer", "Lastschrift", "Debetoverschrijving", "Transfert de débit", "Polecenie zapłaty"],
  "42": ["Payment to bank account", "Zahlung auf Bankkonto", "Betaling op bankrekening", "Paiement sur compte bancaire", "Przelew na rachunek bankowy"],
  "48": ["Bank card", "Bankkarte", "Bankkaart", "Carte bancaire", "Karta płatnicza"],
  "49": ["Direct debit", "Lastschrift", "Automatische incasso", "Prélèvement", "Polecenie zapłaty"],
  "54": ["Credit card", "Kreditkarte", "Creditcard", "Carte de crédit", "Karta kredytowa"],
  "55": ["Debit card", "Debitkarte", "Debetkaart", "Carte de débit", "Karta debetowa"],
  "57": ["Standing agreement", "Dauerauftrag", "Doorlopende opdracht", "Accord permanent", "Zlecenie stałe"],
  "58": ["SEPA credit transfer", "SEPA-Überweisung", "SEPA-overboeking", "Virement SEPA", "Przelew SEPA"],
  "59": ["SEPA direct debit", "SEPA-Lastschrift", "SEPA-incasso", "Prélèvement SEPA", "Polecenie zapłaty SEPA"],
  "68": ["Online payment service", "Online-Zahlungsdienst", "Online betaaldienst", "Service de paiement en ligne", "Płatność online"],
  "97": ["Clearing between partners", "Verrechnung", "Verrekening", "Compensation", "Kompensata"],
  ZZZ: ["Mutually defined", "Vereinbart", "Onderling bepaald", "Défini d'un commun accord", "Uzgodniona"],
};

/**
 * The name of a payment means code (BT-81, UNCL 4461) in `lang`; the code for an unknown one.
 *
 * @example paymentMeansName("58", "de") // "SEPA-Überweisung"
 */
export function paymentMeansName(code: string, lang: string | undefined): string {
  return pick(PAYMENT_MEANS[code], lang) ?? code;
}

/** The invoice type codes (UNCL 1001) of a credit note. */
const CREDIT_NOTE_TYPE_CODES = new Set(["81", "83", "261", "262", "296", "308", "381", "396", "420", "458", "532"]);

/**
 * Whether the document is an invoice or a credit note: `kind` when the caller knows it (the UBL root), else its type
 * code (BT-3: 381, 396 and the other credit note codes of UNCL 1001).
 *
 * @example documentKind({ typeCode: "381" }) // "creditNote"
 */
export function documentKind(invoice: Pick<InvoiceData, "typeCode">, kind?: "invoice" | "creditNote"): "invoice" | "creditNote" {
  if (kind) return kind;
  return invoice.typeCode !== undefined && CREDIT_NOTE_TYPE_CODES.has(invoice.typeCode) ? "creditNote" : "invoice";
}

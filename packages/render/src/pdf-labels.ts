// The PDF's words and number forms in five languages. Stands in for labels.ts (the HTML's shared labels) until the
// two branches meet; then the PDF reads labelsFor/formatAmount/formatDate/unitName/languageFor from there.

export type PdfLang = "en" | "de" | "nl" | "fr" | "pl";
export const PDF_LANGS: readonly PdfLang[] = ["en", "de", "nl", "fr", "pl"];

export interface PdfLabels {
  invoice: string;
  creditNote: string;
  number: string;
  issueDate: string;
  dueDate: string;
  taxPointDate: string;
  period: string;
  seller: string;
  buyer: string;
  payee: string;
  taxRepresentative: string;
  vatId: string;
  legalId: string;
  taxRegistrationId: string;
  references: string;
  buyerReference: string;
  orderReference: string;
  salesOrderReference: string;
  contractReference: string;
  projectReference: string;
  precedingInvoice: string;
  despatchAdvice: string;
  receivingAdvice: string;
  tender: string;
  accountingCost: string;
  pos: string;
  item: string;
  quantity: string;
  unitPrice: string;
  vat: string;
  net: string;
  allowance: string;
  charge: string;
  allowancesCharges: string;
  vatBreakdown: string;
  category: string;
  rate: string;
  taxable: string;
  taxAmount: string;
  totals: string;
  lineTotal: string;
  allowanceTotal: string;
  chargeTotal: string;
  taxExclusive: string;
  vatTotal: string;
  taxInclusive: string;
  paid: string;
  rounding: string;
  payable: string;
  payment: string;
  means: string;
  iban: string;
  bic: string;
  accountName: string;
  paymentReference: string;
  terms: string;
  mandate: string;
  card: string;
  notes: string;
  delivery: string;
  deliveryDate: string;
  attachments: string;
  ksefNumber: string;
  ksefQr: string;
  page: string;
  exemption: string;
}

const EN: PdfLabels = {
  invoice: "Invoice", creditNote: "Credit note", number: "Number", issueDate: "Issue date", dueDate: "Due date",
  taxPointDate: "Tax point date", period: "Invoicing period", seller: "Seller", buyer: "Buyer", payee: "Payee",
  taxRepresentative: "Tax representative", vatId: "VAT ID", legalId: "Registration", taxRegistrationId: "Tax registration",
  references: "References", buyerReference: "Buyer reference", orderReference: "Order", salesOrderReference: "Sales order",
  contractReference: "Contract", projectReference: "Project", precedingInvoice: "Preceding invoice",
  despatchAdvice: "Despatch advice", receivingAdvice: "Receiving advice", tender: "Tender", accountingCost: "Accounting reference",
  pos: "#", item: "Item", quantity: "Quantity", unitPrice: "Unit price", vat: "VAT", net: "Net amount",
  allowance: "Allowance", charge: "Charge", allowancesCharges: "Allowances and charges", vatBreakdown: "VAT breakdown",
  category: "Category", rate: "Rate", taxable: "Taxable amount", taxAmount: "VAT amount", totals: "Totals",
  lineTotal: "Sum of lines", allowanceTotal: "Allowances", chargeTotal: "Charges", taxExclusive: "Total without VAT",
  vatTotal: "Total VAT", taxInclusive: "Total with VAT", paid: "Paid", rounding: "Rounding", payable: "Amount due",
  payment: "Payment", means: "Means", iban: "IBAN", bic: "BIC", accountName: "Account holder", paymentReference: "Payment reference",
  terms: "Terms", mandate: "Direct debit mandate", card: "Card", notes: "Notes", delivery: "Delivery", deliveryDate: "Delivery date",
  attachments: "Attachments", ksefNumber: "KSeF number", ksefQr: "Verify in KSeF", page: "Page", exemption: "Exemption",
};

const DE: PdfLabels = {
  invoice: "Rechnung", creditNote: "Gutschrift", number: "Nummer", issueDate: "Rechnungsdatum", dueDate: "Fällig am",
  taxPointDate: "Leistungsdatum", period: "Abrechnungszeitraum", seller: "Verkäufer", buyer: "Käufer", payee: "Zahlungsempfänger",
  taxRepresentative: "Steuervertreter", vatId: "USt-IdNr.", legalId: "Registernummer", taxRegistrationId: "Steuernummer",
  references: "Referenzen", buyerReference: "Käuferreferenz", orderReference: "Bestellung", salesOrderReference: "Auftrag",
  contractReference: "Vertrag", projectReference: "Projekt", precedingInvoice: "Vorherige Rechnung",
  despatchAdvice: "Lieferschein", receivingAdvice: "Wareneingang", tender: "Vergabe", accountingCost: "Kostenstelle",
  pos: "Pos.", item: "Artikel", quantity: "Menge", unitPrice: "Einzelpreis", vat: "USt.", net: "Nettobetrag",
  allowance: "Nachlass", charge: "Zuschlag", allowancesCharges: "Nachlässe und Zuschläge", vatBreakdown: "Umsatzsteuer",
  category: "Kategorie", rate: "Satz", taxable: "Bemessungsgrundlage", taxAmount: "Steuerbetrag", totals: "Summen",
  lineTotal: "Summe der Positionen", allowanceTotal: "Nachlässe", chargeTotal: "Zuschläge", taxExclusive: "Gesamtbetrag netto",
  vatTotal: "Umsatzsteuer gesamt", taxInclusive: "Gesamtbetrag brutto", paid: "Bereits gezahlt", rounding: "Rundung", payable: "Zahlbetrag",
  payment: "Zahlung", means: "Zahlungsart", iban: "IBAN", bic: "BIC", accountName: "Kontoinhaber", paymentReference: "Verwendungszweck",
  terms: "Zahlungsbedingungen", mandate: "Lastschriftmandat", card: "Karte", notes: "Bemerkungen", delivery: "Lieferung", deliveryDate: "Lieferdatum",
  attachments: "Anlagen", ksefNumber: "KSeF-Nummer", ksefQr: "In KSeF prüfen", page: "Seite", exemption: "Befreiung",
};

const NL: PdfLabels = {
  invoice: "Factuur", creditNote: "Creditnota", number: "Nummer", issueDate: "Factuurdatum", dueDate: "Vervaldatum",
  taxPointDate: "Btw-datum", period: "Factuurperiode", seller: "Verkoper", buyer: "Koper", payee: "Begunstigde",
  taxRepresentative: "Fiscaal vertegenwoordiger", vatId: "Btw-nummer", legalId: "KvK-nummer", taxRegistrationId: "Fiscaal nummer",
  references: "Referenties", buyerReference: "Referentie koper", orderReference: "Bestelling", salesOrderReference: "Verkooporder",
  contractReference: "Contract", projectReference: "Project", precedingInvoice: "Eerdere factuur",
  despatchAdvice: "Verzendbericht", receivingAdvice: "Ontvangstbericht", tender: "Aanbesteding", accountingCost: "Kostenplaats",
  pos: "#", item: "Artikel", quantity: "Aantal", unitPrice: "Stukprijs", vat: "Btw", net: "Nettobedrag",
  allowance: "Korting", charge: "Toeslag", allowancesCharges: "Kortingen en toeslagen", vatBreakdown: "Btw-specificatie",
  category: "Categorie", rate: "Tarief", taxable: "Grondslag", taxAmount: "Btw-bedrag", totals: "Totalen",
  lineTotal: "Som van de regels", allowanceTotal: "Kortingen", chargeTotal: "Toeslagen", taxExclusive: "Totaal excl. btw",
  vatTotal: "Totaal btw", taxInclusive: "Totaal incl. btw", paid: "Betaald", rounding: "Afronding", payable: "Te betalen",
  payment: "Betaling", means: "Betaalwijze", iban: "IBAN", bic: "BIC", accountName: "Rekeninghouder", paymentReference: "Betalingskenmerk",
  terms: "Voorwaarden", mandate: "Incassomachtiging", card: "Kaart", notes: "Opmerkingen", delivery: "Levering", deliveryDate: "Leverdatum",
  attachments: "Bijlagen", ksefNumber: "KSeF-nummer", ksefQr: "Controleren in KSeF", page: "Pagina", exemption: "Vrijstelling",
};

const FR: PdfLabels = {
  invoice: "Facture", creditNote: "Avoir", number: "Numéro", issueDate: "Date de facture", dueDate: "Échéance",
  taxPointDate: "Date d'exigibilité de la TVA", period: "Période de facturation", seller: "Vendeur", buyer: "Acheteur", payee: "Bénéficiaire",
  taxRepresentative: "Représentant fiscal", vatId: "N° TVA", legalId: "SIREN / immatriculation", taxRegistrationId: "N° fiscal",
  references: "Références", buyerReference: "Référence acheteur", orderReference: "Commande", salesOrderReference: "Commande client",
  contractReference: "Contrat", projectReference: "Projet", precedingInvoice: "Facture précédente",
  despatchAdvice: "Avis d'expédition", receivingAdvice: "Avis de réception", tender: "Appel d'offres", accountingCost: "Référence comptable",
  pos: "N°", item: "Article", quantity: "Quantité", unitPrice: "Prix unitaire", vat: "TVA", net: "Montant HT",
  allowance: "Remise", charge: "Frais", allowancesCharges: "Remises et frais", vatBreakdown: "Détail de la TVA",
  category: "Catégorie", rate: "Taux", taxable: "Base HT", taxAmount: "Montant TVA", totals: "Totaux",
  lineTotal: "Total des lignes", allowanceTotal: "Remises", chargeTotal: "Frais", taxExclusive: "Total HT",
  vatTotal: "Total TVA", taxInclusive: "Total TTC", paid: "Déjà payé", rounding: "Arrondi", payable: "Net à payer",
  payment: "Paiement", means: "Moyen", iban: "IBAN", bic: "BIC", accountName: "Titulaire", paymentReference: "Référence de paiement",
  terms: "Conditions", mandate: "Mandat de prélèvement", card: "Carte", notes: "Remarques", delivery: "Livraison", deliveryDate: "Date de livraison",
  attachments: "Pièces jointes", ksefNumber: "Numéro KSeF", ksefQr: "Vérifier dans KSeF", page: "Page", exemption: "Exonération",
};

const PL: PdfLabels = {
  invoice: "Faktura", creditNote: "Faktura korygująca", number: "Numer", issueDate: "Data wystawienia", dueDate: "Termin płatności",
  taxPointDate: "Data sprzedaży", period: "Okres rozliczeniowy", seller: "Sprzedawca", buyer: "Nabywca", payee: "Odbiorca płatności",
  taxRepresentative: "Przedstawiciel podatkowy", vatId: "NIP / VAT UE", legalId: "KRS / REGON", taxRegistrationId: "Nr podatkowy",
  references: "Odniesienia", buyerReference: "Odniesienie nabywcy", orderReference: "Zamówienie", salesOrderReference: "Zlecenie sprzedaży",
  contractReference: "Umowa", projectReference: "Projekt", precedingInvoice: "Faktura pierwotna",
  despatchAdvice: "Awizo wysyłki", receivingAdvice: "Potwierdzenie odbioru", tender: "Przetarg", accountingCost: "Konto księgowe",
  pos: "Lp.", item: "Nazwa", quantity: "Ilość", unitPrice: "Cena jedn.", vat: "VAT", net: "Wartość netto",
  allowance: "Rabat", charge: "Narzut", allowancesCharges: "Rabaty i narzuty", vatBreakdown: "Podsumowanie VAT",
  category: "Kategoria", rate: "Stawka", taxable: "Podstawa", taxAmount: "Kwota VAT", totals: "Podsumowanie",
  lineTotal: "Suma pozycji", allowanceTotal: "Rabaty", chargeTotal: "Narzuty", taxExclusive: "Razem netto",
  vatTotal: "Razem VAT", taxInclusive: "Razem brutto", paid: "Zapłacono", rounding: "Zaokrąglenie", payable: "Do zapłaty",
  payment: "Płatność", means: "Forma płatności", iban: "IBAN", bic: "BIC", accountName: "Właściciel rachunku", paymentReference: "Tytuł przelewu",
  terms: "Warunki", mandate: "Polecenie zapłaty", card: "Karta", notes: "Uwagi", delivery: "Dostawa", deliveryDate: "Data dostawy",
  attachments: "Załączniki", ksefNumber: "Numer KSeF", ksefQr: "Weryfikacja w KSeF", page: "Strona", exemption: "Zwolnienie",
};

const LABELS: Record<PdfLang, PdfLabels> = { en: EN, de: DE, nl: NL, fr: FR, pl: PL };

export const pdfLabels = (lang: PdfLang): PdfLabels => LABELS[lang];

/** The language of a buyer's country, English when none of ours is spoken there. */
export function pdfLanguageFor(country: string | undefined): PdfLang {
  switch (country) {
    case "DE": case "AT": case "CH": case "LI": case "LU": return "de";
    case "NL": case "BE": case "SR": return "nl";
    case "FR": case "MC": return "fr";
    case "PL": return "pl";
    default: return "en";
  }
}

const SEPARATORS: Record<PdfLang, { group: string; decimal: string }> = {
  en: { group: ",", decimal: "." },
  de: { group: ".", decimal: "," },
  nl: { group: ".", decimal: "," },
  // French and Polish group with a space; a plain one, so copying or searching the PDF's text finds it.
  fr: { group: " ", decimal: "," },
  pl: { group: " ", decimal: "," },
};

/**
 * A decimal string as the language writes it, its digits as they are: "-1234.5" is "-1.234,5" in German. Never a
 * float: the digits are regrouped, not recomputed.
 */
export function pdfNumber(value: string, lang: PdfLang): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m) return value;
  const { group, decimal } = SEPARATORS[lang];
  const int = m[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return `${m[1]}${int}${m[3] === undefined ? "" : decimal + m[3]}`;
}

/** An amount with 2 decimals at least (as the invoice wrote it when it has more): "1234.5" in en is "1,234.50". */
export function pdfAmount(value: string, lang: PdfLang): string {
  const m = /^(-?\d+)(?:\.(\d*))?$/.exec(value);
  if (!m) return value;
  const dec = (m[2] ?? "").padEnd(2, "0");
  return pdfNumber(`${m[1]}.${dec}`, lang);
}

const MONTHS_EN = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A YYYY-MM-DD date as the language writes it. */
export function pdfDate(value: string, lang: PdfLang): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return value;
  const [, y, mo, d] = m as unknown as [string, string, string, string];
  switch (lang) {
    case "en": return `${Number(d)} ${MONTHS_EN[Number(mo) - 1]} ${y}`;
    case "de": case "pl": return `${d}.${mo}.${y}`;
    case "nl": return `${d}-${mo}-${y}`;
    case "fr": return `${d}/${mo}/${y}`;
  }
}

/** The names of the common UN/ECE Rec 20/21 units; another code is shown as it is. */
const UNITS: Record<string, Record<PdfLang, string>> = {
  C62: { en: "pcs", de: "Stk.", nl: "st.", fr: "pce", pl: "szt." },
  H87: { en: "pcs", de: "Stk.", nl: "st.", fr: "pce", pl: "szt." },
  EA: { en: "each", de: "Stk.", nl: "st.", fr: "pce", pl: "szt." },
  XPP: { en: "pcs", de: "Stk.", nl: "st.", fr: "pce", pl: "szt." },
  HUR: { en: "hours", de: "Std.", nl: "uur", fr: "heures", pl: "godz." },
  DAY: { en: "days", de: "Tage", nl: "dagen", fr: "jours", pl: "dni" },
  WEE: { en: "weeks", de: "Wochen", nl: "weken", fr: "semaines", pl: "tyg." },
  MON: { en: "months", de: "Monate", nl: "maanden", fr: "mois", pl: "mies." },
  ANN: { en: "years", de: "Jahre", nl: "jaar", fr: "ans", pl: "lat" },
  MIN: { en: "min", de: "Min.", nl: "min", fr: "min", pl: "min" },
  KGM: { en: "kg", de: "kg", nl: "kg", fr: "kg", pl: "kg" },
  GRM: { en: "g", de: "g", nl: "g", fr: "g", pl: "g" },
  TNE: { en: "t", de: "t", nl: "t", fr: "t", pl: "t" },
  MTR: { en: "m", de: "m", nl: "m", fr: "m", pl: "m" },
  KMT: { en: "km", de: "km", nl: "km", fr: "km", pl: "km" },
  MTK: { en: "m²", de: "m²", nl: "m²", fr: "m²", pl: "m²" },
  MTQ: { en: "m³", de: "m³", nl: "m³", fr: "m³", pl: "m³" },
  LTR: { en: "l", de: "l", nl: "l", fr: "l", pl: "l" },
  KWH: { en: "kWh", de: "kWh", nl: "kWh", fr: "kWh", pl: "kWh" },
  SET: { en: "sets", de: "Sätze", nl: "sets", fr: "jeux", pl: "kpl." },
  PR: { en: "pairs", de: "Paar", nl: "paar", fr: "paires", pl: "par" },
  LS: { en: "lump sum", de: "pauschal", nl: "forfait", fr: "forfait", pl: "ryczałt" },
};

export const pdfUnitName = (code: string, lang: PdfLang): string => UNITS[code]?.[lang] ?? code;

/** UNCL 4461 payment means, the common ones. */
const MEANS: Record<string, Record<PdfLang, string>> = {
  "10": { en: "Cash", de: "Bar", nl: "Contant", fr: "Espèces", pl: "Gotówka" },
  "30": { en: "Credit transfer", de: "Überweisung", nl: "Overschrijving", fr: "Virement", pl: "Przelew" },
  "31": { en: "Debit transfer", de: "Überweisung", nl: "Overschrijving", fr: "Virement", pl: "Przelew" },
  "42": { en: "Payment to bank account", de: "Zahlung auf Bankkonto", nl: "Betaling op bankrekening", fr: "Paiement sur compte", pl: "Przelew na rachunek" },
  "48": { en: "Bank card", de: "Bankkarte", nl: "Bankkaart", fr: "Carte bancaire", pl: "Karta płatnicza" },
  "49": { en: "Direct debit", de: "Lastschrift", nl: "Incasso", fr: "Prélèvement", pl: "Polecenie zapłaty" },
  "57": { en: "Standing agreement", de: "Dauerauftrag", nl: "Doorlopende opdracht", fr: "Ordre permanent", pl: "Zlecenie stałe" },
  "58": { en: "SEPA credit transfer", de: "SEPA-Überweisung", nl: "SEPA-overschrijving", fr: "Virement SEPA", pl: "Przelew SEPA" },
  "59": { en: "SEPA direct debit", de: "SEPA-Lastschrift", nl: "SEPA-incasso", fr: "Prélèvement SEPA", pl: "Polecenie zapłaty SEPA" },
};

export const pdfMeansName = (code: string, lang: PdfLang): string => MEANS[code]?.[lang] ?? code;

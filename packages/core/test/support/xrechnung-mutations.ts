// National mutants for the XRechnung comparison: valid XRechnung corpus documents (and one made a credit note), each
// changed the way a German sender gets it wrong. The official verdicts of the same mutants (CEN + XRechnung 3.0.2
// with KoSIT's levels) are in testdata/xrechnung/official-verdicts-mutants.jsonl (scripts/xrechnung-verdicts.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS_DIR } from "./corpus.js";

export const MUTANT_BASES = [
  "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_ubl.xml",
  "xrechnung-testsuite/business-cases/extension/04.01a-INVOICE_ubl.xml",
  "xrechnung-testsuite/technical-cases/cius/01.05_minimal_test_ubl.xml",
];

const EXT = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0";

/** The invoice as a credit note (type 381): root, lines and quantities renamed. */
export function asCreditNote(x: string): string {
  return x
    .replace(/<(\/?)(\w+:)?Invoice([ >])/g, "<$1$2CreditNote$3")
    .replace("urn:oasis:names:specification:ubl:schema:xsd:Invoice-2", "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2")
    .replace(/<cbc:InvoiceTypeCode>380<\/cbc:InvoiceTypeCode>/, "<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>")
    .replace(/cac:InvoiceLine>/g, "cac:CreditNoteLine>")
    .replace(/cbc:InvoicedQuantity/g, "cbc:CreditedQuantity");
}

/** [name, change]; a change that does not apply to a document (returns it unchanged) makes no mutant. */
export const XRECHNUNG_MUTATIONS: Array<[string, (x: string) => string]> = [
  ["unchanged", (x) => x],
  ["no buyer reference", (x) => x.replace(/<cbc:BuyerReference>[^<]*<\/cbc:BuyerReference>/, "")],
  ["no seller contact", (x) => x.replace(/<cac:Contact>[\s\S]*?<\/cac:Contact>/, "")],
  ["no seller telephone", (x) => x.replace(/<cbc:Telephone>[^<]*<\/cbc:Telephone>/, "")],
  ["telephone without digits", (x) => x.replace(/<cbc:Telephone>[^<]*</, "<cbc:Telephone>call us<")],
  ["bad e-mail", (x) => x.replace(/<cbc:ElectronicMail>[^<]*</, "<cbc:ElectronicMail>seller at example<")],
  ["no seller post code", (x) => x.replace(/<cbc:PostalZone>[^<]*<\/cbc:PostalZone>/, "")],
  ["no payment means", (x) => x.replace(/<cac:PaymentMeans>[\s\S]*?<\/cac:PaymentMeans>/, "")],
  ["card payment code", (x) => x.replace(/<cbc:PaymentMeansCode>(58|30|31)</, "<cbc:PaymentMeansCode>48<")],
  ["direct debit code", (x) => x.replace(/<cbc:PaymentMeansCode>(58|30|31)</, "<cbc:PaymentMeansCode>59<")],
  ["bad skonto", (x) => x.replace(/<cac:PaymentTerms>\s*<cbc:Note>/, "<cac:PaymentTerms><cbc:Note>#SKONTO#TAGE=14#PROZENT=2#\n")],
  ["good skonto", (x) => x.replace(/<cac:PaymentTerms>\s*<cbc:Note>/, "<cac:PaymentTerms><cbc:Note>#SKONTO#TAGE=14#PROZENT=2.00#\n")],
  ["skonto without line break", (x) => x.replace(/<cac:PaymentTerms>\s*<cbc:Note>[^<]*</, "<cac:PaymentTerms><cbc:Note>#SKONTO#TAGE=14#PROZENT=2.00#<")],
  ["corrected invoice without reference", (x) => x.replace(/<cbc:InvoiceTypeCode>380</, "<cbc:InvoiceTypeCode>384<")],
  ["unusual type code", (x) => x.replace(/<cbc:InvoiceTypeCode>380</, "<cbc:InvoiceTypeCode>383<")],
  ["unknown unit code", (x) => x.replace(/unitCode="XPP"/, 'unitCode="XXX"')],
  ["unknown item scheme", (x) => x.replace(/<cac:Item>/, '<cac:Item><cac:StandardItemIdentification><cbc:ID schemeID="9999">1</cbc:ID></cac:StandardItemIdentification>')],
  ["no VAT rate in breakdown", (x) => x.replace(/(<cac:TaxSubtotal>[\s\S]*?)<cbc:Percent>[^<]*<\/cbc:Percent>/, "$1")],
  ["no business process", (x) => x.replace(/<cbc:ProfileID>[^<]*<\/cbc:ProfileID>/, "")],
  ["empty note", (x) => x.replace(/<cbc:DocumentCurrencyCode>/, "<cbc:Note></cbc:Note><cbc:DocumentCurrencyCode>")],
  ["wrong amount due", (x) => x.replace(/<cbc:PayableAmount currencyID="EUR">[^<]*</, '<cbc:PayableAmount currencyID="EUR">1.00<')],
  ["bad IBAN check digits", (x) => x.replace(/(<cac:PayeeFinancialAccount>\s*<cbc:ID>)DE\d\d/, "$1DE00")],
  ["no seller endpoint", (x) => x.replace(/(<cac:AccountingSupplierParty>\s*<cac:Party>\s*)<cbc:EndpointID[^>]*>[^<]*<\/cbc:EndpointID>/, "$1")],
  ["percentage allowance without base", (x) => x.replace(/<cac:PaymentTerms>/, '<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:MultiplierFactorNumeric>10</cbc:MultiplierFactorNumeric><cbc:Amount currencyID="EUR">0.00</cbc:Amount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>19</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:AllowanceCharge><cac:PaymentTerms>')],
  ["as the extension", (x) => x.replace(/<cbc:CustomizationID>[^<]*</, `<cbc:CustomizationID>${EXT}<`)],
  ["duplicate attachment name", (x) => x.replace(/(<cac:AdditionalDocumentReference>[\s\S]*?<\/cac:AdditionalDocumentReference>)/, "$1$1")],
];

export interface XrechnungMutant {
  id: string;
  xml: string;
}

/** Every mutant: each base, and each base as a credit note, with each mutation that applies. */
export function xrechnungMutants(): XrechnungMutant[] {
  const out: XrechnungMutant[] = [];
  for (const file of MUTANT_BASES) {
    const original = readFileSync(join(CORPUS_DIR, file), "utf8");
    for (const [variant, base] of [["invoice", original], ["credit note", asCreditNote(original)]] as const) {
      for (const [name, change] of XRECHNUNG_MUTATIONS) {
        const xml = change(base);
        if (name !== "unchanged" && xml === base) continue;
        out.push({ id: `${file} (${variant}): ${name}`, xml });
      }
    }
  }
  return out;
}

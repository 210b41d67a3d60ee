// Seeded mutants of the XRechnung CII documents (testdata/cii/xrechnung-testsuite, all valid), aimed at the XRechnung
// CII rules: each mutant is one document with one or two of the changes below, picked by a seeded random generator, so
// the set is the same on every run. The official verdicts of the XRechnung CII rules alone on the same mutants are in
// testdata/xrechnung/official-verdicts-cii-mutants.jsonl (scripts/xrechnung-cii-verdicts.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { TESTDATA_DIR } from "../../../../testdata/index.js";
import { seededRandom as random } from "../../src/testing/random.js";

export const XRECHNUNG_CII_SUITE = join(TESTDATA_DIR, "cii", "xrechnung-testsuite");
const CIUS = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";
const EXT = `${CIUS}#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0`;
const CVD = `${CIUS}#compliant#urn:xeinkauf.de:kosit:xrechnung:cvd_0.9`;

/** Every XRechnung CII document of the suite: [path relative to testdata/cii/xrechnung-testsuite, text]. */
export function xrechnungCiiDocuments(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith(".xml")) out.push([relative(XRECHNUNG_CII_SUITE, path), readFileSync(path, "utf8")]);
    }
  };
  walk(XRECHNUNG_CII_SUITE);
  return out;
}

/** Replaces the first match inside the first `<tag>…</tag>` block (the seller's, the buyer's, …). */
const inBlock = (tag: string, re: RegExp, by: string) => (x: string): string =>
  x.replace(new RegExp(`<${tag}>[\\s\\S]*?</${tag}>`), (block) => block.replace(re, by));
const ard = (typeCode: string, extra: string) =>
  `<ram:AdditionalReferencedDocument><ram:IssuerAssignedID>A-1</ram:IssuerAssignedID>${extra}<ram:TypeCode>${typeCode}</ram:TypeCode></ram:AdditionalReferencedDocument>`;
const beforeAgreementEnd = (insert: string) => (x: string): string => x.replace(/(\s*)<\/ram:ApplicableHeaderTradeAgreement>/, `${insert}$1</ram:ApplicableHeaderTradeAgreement>`);

/** [name, change]; a change that leaves a document unchanged makes no mutant of it. */
export const XRECHNUNG_CII_MUTATIONS: Array<[string, (x: string) => string]> = [
  ["no buyer reference", (x) => x.replace(/<ram:BuyerReference>[^<]*<\/ram:BuyerReference>/, "")],
  ["blank buyer reference", (x) => x.replace(/<ram:BuyerReference>[^<]*</, "<ram:BuyerReference> <")],
  ["no seller contact", inBlock("ram:SellerTradeParty", /<ram:DefinedTradeContact>[\s\S]*?<\/ram:DefinedTradeContact>/, "")],
  ["no seller contact name", inBlock("ram:SellerTradeParty", /<ram:(PersonName|DepartmentName)>[^<]*<\/ram:\1>/g, "")],
  ["no seller telephone", inBlock("ram:SellerTradeParty", /<ram:TelephoneUniversalCommunication>[\s\S]*?<\/ram:TelephoneUniversalCommunication>/, "")],
  ["telephone without digits", inBlock("ram:SellerTradeParty", /<ram:CompleteNumber>[^<]*</, "<ram:CompleteNumber>call us<")],
  ["no seller e-mail", inBlock("ram:SellerTradeParty", /<ram:EmailURIUniversalCommunication>[\s\S]*?<\/ram:EmailURIUniversalCommunication>/, "")],
  ["bad e-mail", inBlock("ram:DefinedTradeContact", /(<ram:EmailURIUniversalCommunication>\s*<ram:URIID>)[^<]*</, "$1seller at example<")],
  ["no seller city", inBlock("ram:SellerTradeParty", /<ram:CityName>[^<]*<\/ram:CityName>/, "")],
  ["no seller post code", inBlock("ram:SellerTradeParty", /<ram:PostcodeCode>[^<]*<\/ram:PostcodeCode>/, "")],
  ["no buyer city", inBlock("ram:BuyerTradeParty", /<ram:CityName>[^<]*<\/ram:CityName>/, "")],
  ["no buyer post code", inBlock("ram:BuyerTradeParty", /<ram:PostcodeCode>[^<]*<\/ram:PostcodeCode>/, "")],
  ["deliver-to address without city and post code", (x) => {
    const shipTo = "<ram:ShipToTradeParty><ram:Name>Lager</ram:Name><ram:PostalTradeAddress><ram:LineOne>Hof 1</ram:LineOne><ram:CountryID>DE</ram:CountryID></ram:PostalTradeAddress></ram:ShipToTradeParty>";
    return x.includes("<ram:ApplicableHeaderTradeDelivery/>")
      ? x.replace("<ram:ApplicableHeaderTradeDelivery/>", `<ram:ApplicableHeaderTradeDelivery>${shipTo}</ram:ApplicableHeaderTradeDelivery>`)
      : x.replace("<ram:ApplicableHeaderTradeDelivery>", `<ram:ApplicableHeaderTradeDelivery>${shipTo}`);
  }],
  ["no payment means", (x) => x.replace(/<ram:SpecifiedTradeSettlementPaymentMeans>[\s\S]*?<\/ram:SpecifiedTradeSettlementPaymentMeans>/g, "")],
  ["card payment code", (x) => x.replace(/(<ram:SpecifiedTradeSettlementPaymentMeans>\s*<ram:TypeCode>)(58|30)</, "$148<")],
  ["direct debit code", (x) => x.replace(/(<ram:SpecifiedTradeSettlementPaymentMeans>\s*<ram:TypeCode>)(58|30)</, "$159<")],
  ["credit transfer code 30", (x) => x.replace(/(<ram:SpecifiedTradeSettlementPaymentMeans>\s*<ram:TypeCode>)(58|48|59)</, "$130<")],
  ["bad IBAN check digits", (x) => x.replace(/(<ram:PayeePartyCreditorFinancialAccount>[\s\S]*?<ram:IBANID>)DE\d\d/, "$1DE00")],
  ["IBAN with spaces", (x) => x.replace(/(<ram:PayeePartyCreditorFinancialAccount>[\s\S]*?<ram:IBANID>)(DE\d\d)(\d{4})/, "$1$2 $3 ")],
  ["IBAN in lower case", (x) => x.replace(/(<ram:PayeePartyCreditorFinancialAccount>[\s\S]*?<ram:IBANID>)DE/, "$1de")],
  ["no credit transfer account", (x) => x.replace(/<ram:PayeePartyCreditorFinancialAccount>[\s\S]*?<\/ram:PayeePartyCreditorFinancialAccount>/g, "")],
  ["creditor identifier", (x) => x.replace(/(<ram:ApplicableHeaderTradeSettlement>)(\s*)/, "$1$2<ram:CreditorReferenceID>DE98ZZZ09999999999</ram:CreditorReferenceID>$2")],
  ["mandate reference", (x) => x.replace(/<ram:SpecifiedTradePaymentTerms>/, "<ram:SpecifiedTradePaymentTerms><ram:DirectDebitMandateID>MANDATE-1</ram:DirectDebitMandateID>")],
  ["debited account", (x) => x.replace(/(<ram:SpecifiedTradeSettlementPaymentMeans>\s*<ram:TypeCode>[^<]*<\/ram:TypeCode>)/, "$1<ram:PayerPartyDebtorFinancialAccount><ram:IBANID>DE02120300000000202051</ram:IBANID></ram:PayerPartyDebtorFinancialAccount>")],
  ["payment card", (x) => x.replace(/(<ram:SpecifiedTradeSettlementPaymentMeans>\s*<ram:TypeCode>[^<]*<\/ram:TypeCode>)/, "$1<ram:ApplicableTradeSettlementFinancialCard><ram:ID>1234</ram:ID></ram:ApplicableTradeSettlementFinancialCard>")],
  ["no VAT rate in breakdown", (x) => x.replace(/(<ram:ApplicableHeaderTradeSettlement>[\s\S]*?<ram:ApplicableTradeTax>[\s\S]*?)<ram:RateApplicablePercent>[^<]*<\/ram:RateApplicablePercent>/, "$1")],
  ["no seller VAT identifier", inBlock("ram:SellerTradeParty", /<ram:SpecifiedTaxRegistration>[\s\S]*?<\/ram:SpecifiedTaxRegistration>/g, "")],
  ["seller tax number as FC", inBlock("ram:SellerTradeParty", /schemeID="VA"/g, 'schemeID="FC"')],
  ["seller tax id without scheme VA/FC", inBlock("ram:SellerTradeParty", /schemeID="(VA|FC)"/g, 'schemeID="XX"')],
  ["corrected invoice without reference", (x) => x.replace(/(<rsm:ExchangedDocument>[\s\S]*?<ram:TypeCode>)380</, "$1384<").replace(/<ram:InvoiceReferencedDocument>[\s\S]*?<\/ram:InvoiceReferencedDocument>/g, "")],
  ["unusual type code", (x) => x.replace(/(<rsm:ExchangedDocument>[\s\S]*?<ram:TypeCode>)380</, "$1383<")],
  ["credit note", (x) => x.replace(/(<rsm:ExchangedDocument>[\s\S]*?<ram:TypeCode>)380</, "$1381<")],
  ["bad skonto", (x) => x.replace(/<ram:SpecifiedTradePaymentTerms>\s*<ram:Description>/, "<ram:SpecifiedTradePaymentTerms><ram:Description>#SKONTO#TAGE=14#PROZENT=2#\n")],
  ["good skonto", (x) => x.replace(/<ram:SpecifiedTradePaymentTerms>\s*<ram:Description>/, "<ram:SpecifiedTradePaymentTerms><ram:Description>#SKONTO#TAGE=14#PROZENT=2.00#\n")],
  ["skonto with base amount", (x) => x.replace(/<ram:SpecifiedTradePaymentTerms>\s*<ram:Description>/, "<ram:SpecifiedTradePaymentTerms><ram:Description>#SKONTO#TAGE=7#PROZENT=3.00#BASISBETRAG=100.00#\n")],
  ["skonto without line break", (x) => x.replace(/<ram:SpecifiedTradePaymentTerms>\s*<ram:Description>[^<]*</, "<ram:SpecifiedTradePaymentTerms><ram:Description>#SKONTO#TAGE=14#PROZENT=2.00#<")],
  ["skonto in lower case", (x) => x.replace(/<ram:SpecifiedTradePaymentTerms>\s*<ram:Description>/, "<ram:SpecifiedTradePaymentTerms><ram:Description>#skonto#TAGE=14#PROZENT=2.00#\n")],
  ["as the extension", (x) => x.replace(/(<ram:GuidelineSpecifiedDocumentContextParameter>\s*<ram:ID>)[^<]*</, `$1${EXT}<`)],
  ["as CVD", (x) => x.replace(/(<ram:GuidelineSpecifiedDocumentContextParameter>\s*<ram:ID>)[^<]*</, `$1${CVD}<`)],
  ["as XRechnung with a suffix", (x) => x.replace(/(<ram:GuidelineSpecifiedDocumentContextParameter>\s*<ram:ID>)[^<]*</, `$1${CIUS}#conformant#urn:example.org:other<`)],
  ["duplicate attachment name", (x) => x.replace(/(<ram:AdditionalReferencedDocument>(?:(?!<\/ram:AdditionalReferencedDocument>)[\s\S])*?<ram:AttachmentBinaryObject[\s\S]*?<\/ram:AdditionalReferencedDocument>)/, "$1$1")],
  ["relative external document URL", beforeAgreementEnd(ard("916", "<ram:URIID>www.example.com/anhang.pdf</ram:URIID>"))],
  ["absolute external document URL", beforeAgreementEnd(ard("916", "<ram:URIID>https://example.com/anhang.pdf</ram:URIID>"))],
  ["tender reference", beforeAgreementEnd(ard("50", ""))],
  ["no delivery date or periods", (x) => x.replace(/<ram:ActualDeliverySupplyChainEvent>[\s\S]*?<\/ram:ActualDeliverySupplyChainEvent>/g, "").replace(/<ram:BillingSpecifiedPeriod>[\s\S]*?<\/ram:BillingSpecifiedPeriod>/g, "")],
  ["net and gross base quantities differ", (x) => x.replace(/<ram:NetPriceProductTradePrice>\s*<ram:ChargeAmount>([^<]*)<\/ram:ChargeAmount>/,
    '<ram:GrossPriceProductTradePrice><ram:ChargeAmount>$1</ram:ChargeAmount><ram:BasisQuantity unitCode="C62">1</ram:BasisQuantity></ram:GrossPriceProductTradePrice><ram:NetPriceProductTradePrice><ram:ChargeAmount>$1</ram:ChargeAmount><ram:BasisQuantity unitCode="C62">1.0</ram:BasisQuantity>')],
  ["no business process", (x) => x.replace(/<ram:BusinessProcessSpecifiedDocumentContextParameter>[\s\S]*?<\/ram:BusinessProcessSpecifiedDocumentContextParameter>/, "")],
  ["VAT accounting currency same as invoice's", (x) => {
    const currency = /<ram:InvoiceCurrencyCode>([^<]*)</.exec(x)?.[1] ?? "EUR";
    return x.includes("<ram:TaxCurrencyCode>")
      ? x.replace(/<ram:TaxCurrencyCode>[^<]*</, `<ram:TaxCurrencyCode>${currency}<`)
      : x.replace(/(<ram:InvoiceCurrencyCode>)/, `<ram:TaxCurrencyCode>${currency}</ram:TaxCurrencyCode>$1`);
  }],
  ["no seller electronic address", inBlock("ram:SellerTradeParty", /<ram:URIUniversalCommunication>[\s\S]*?<\/ram:URIUniversalCommunication>/, "")],
  ["no buyer electronic address", inBlock("ram:BuyerTradeParty", /<ram:URIUniversalCommunication>[\s\S]*?<\/ram:URIUniversalCommunication>/, "")],
  ["empty element", (x) => x.replace(/(<rsm:ExchangedDocument>\s*<ram:ID>[^<]*<\/ram:ID>)/, "$1<ram:Name></ram:Name>")],
  ["wrong line net amount", (x) => x.replace(/<ram:LineTotalAmount>[^<]*</, "<ram:LineTotalAmount>1.00<")],
  ["line reference of another type", (x) => x.replace(/(<ram:SpecifiedLineTradeSettlement>)/, "$1<ram:AdditionalReferencedDocument><ram:IssuerAssignedID>OBJ-1</ram:IssuerAssignedID><ram:TypeCode>916</ram:TypeCode></ram:AdditionalReferencedDocument>")],
  ["party identifier with scheme XR01", inBlock("ram:SellerTradeParty", /(<ram:Name>)/, '<ram:GlobalID schemeID="XR01">ABC</ram:GlobalID>$1')],
  ["party identifier with an unknown scheme", inBlock("ram:SellerTradeParty", /(<ram:Name>)/, '<ram:GlobalID schemeID="9999">ABC</ram:GlobalID>$1')],
  ["legal registration with an unknown scheme", inBlock("ram:BuyerTradeParty", /(<ram:Name>[^<]*<\/ram:Name>)/, '$1<ram:SpecifiedLegalOrganization><ram:ID schemeID="9999">HRB 1</ram:ID></ram:SpecifiedLegalOrganization>')],
  ["electronic address with an unknown scheme", inBlock("ram:BuyerTradeParty", /(<ram:URIUniversalCommunication>\s*<ram:URIID schemeID=")[^"]*"/, '$1XX"')],
  ["attachment with a MIME code for XML", (x) => x.replace(/(<ram:AttachmentBinaryObject[^>]*mimeCode=")[^"]*"/, '$1application/xml"')],
  ["sub invoice line", (x) => x.replace(/(<ram:AssociatedDocumentLineDocument>\s*<ram:LineID>[^<]*<\/ram:LineID>)/, "$1<ram:ParentLineID>1</ram:ParentLineID>")],
  ["percentage allowance without base", (x) => x.replace(/(<ram:SpecifiedTradeSettlementHeaderMonetarySummation>)/,
    '<ram:SpecifiedTradeAllowanceCharge><ram:ChargeIndicator><udt:Indicator>false</udt:Indicator></ram:ChargeIndicator><ram:CalculationPercent>10</ram:CalculationPercent><ram:ActualAmount>0.00</ram:ActualAmount><ram:CategoryTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>19</ram:RateApplicablePercent></ram:CategoryTradeTax></ram:SpecifiedTradeAllowanceCharge>$1')],
];

export interface XrechnungCiiMutant {
  id: string;
  xml: string;
}


/**
 * Every document once unchanged; each mutation on `perMutation` documents it changes, picked at random; then `pairs`
 * seeded pairs of two mutations on a random document (ids name the document and the mutations).
 */
export function xrechnungCiiMutants(seed = 7, perMutation = 6, pairs = 150): XrechnungCiiMutant[] {
  const docs = xrechnungCiiDocuments();
  const out: XrechnungCiiMutant[] = [];
  const seen = new Set<string>();
  const add = (id: string, xml: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    out.push({ id, xml });
  };
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  for (const [file, xml] of docs) add(`${file}: unchanged`, xml);
  for (const [name, change] of XRECHNUNG_CII_MUTATIONS) {
    const changed = docs.map(([file, xml]) => [file, change(xml), xml] as const).filter(([, after, before]) => after !== before);
    for (let i = 0; i < perMutation && changed.length > 0; i++) {
      const [file, xml] = changed.splice(Math.floor(next() * changed.length), 1)[0]!;
      add(`${file}: ${name}`, xml);
    }
  }
  for (let i = 0; i < pairs; i++) {
    const [file, xml] = pick(docs);
    const [a, first] = pick(XRECHNUNG_CII_MUTATIONS), [b, second] = pick(XRECHNUNG_CII_MUTATIONS);
    if (a === b) continue;
    const once = first(xml), twice = second(once);
    if (once === xml || twice === once) continue;
    add(`${file}: ${a} + ${b}`, twice);
  }
  return out;
}

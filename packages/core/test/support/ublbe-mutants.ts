// Mutants of the corpus UBL.BE documents, for the UBL.BE 1.31 rules: each mutation is a small text edit of a real
// Belgian invoice aimed at one rule (or at a code UBL.BE's older lists lack). The edits are deterministic, so the
// test rebuilds every mutant from testdata and compares our verdict with the official one recorded in
// testdata/ublbe/mutant-verdicts.jsonl (made by scripts/ublbe-verdicts.ts with the official rules compiled
// locally; the official rules themselves are not in the repository). Test-time only.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS_DIR } from "../../../../testdata/index.js";

export const UBLBE_DIR = "phive-ublbe/v1.31";

/** The corpus UBL.BE documents (paths relative to the corpus), sorted. */
export function ublbeDocuments(): string[] {
  return readdirSync(join(CORPUS_DIR, UBLBE_DIR)).filter((n) => n.endsWith(".xml")).sort().map((n) => `${UBLBE_DIR}/${n}`);
}

type Edit = (xml: string) => string;

/** Replaces the first match (the document unchanged when there is none: such a mutant is skipped). */
const sub = (re: RegExp, to: string): Edit => (xml) => xml.replace(re, to);
/** Inserts `what` before the first of these elements found. */
const before = (what: string, ...tags: string[]): Edit => (xml) => {
  for (const t of tags) {
    const i = xml.indexOf(`<${t}>`) >= 0 ? xml.indexOf(`<${t}>`) : xml.indexOf(`<${t} `);
    if (i >= 0) return xml.slice(0, i) + what + xml.slice(i);
  }
  return xml;
};
const seq = (...edits: Edit[]): Edit => (xml) => edits.reduce((x, e) => e(x), xml);
const PAYMENT_TERMS_AT = ["cac:PaymentTerms", "cac:AllowanceCharge", "cac:TaxTotal"];
const DELIVERY_AT = ["cac:PaymentMeans", ...PAYMENT_TERMS_AT];
const delivery = (id: string, text: string) =>
  `<cac:Delivery><cac:DeliveryTerms><cbc:ID>${id}</cbc:ID><cbc:SpecialTerms>${text}</cbc:SpecialTerms></cac:DeliveryTerms></cac:Delivery>`;
const terms = (body: string) => `<cac:PaymentTerms>${body}</cac:PaymentTerms>`;
/** The first document-level cac:TaxCategory (inside the document's cac:TaxTotal/cac:TaxSubtotal). */
const inDocCategory = (edit: (cat: string) => string): Edit => (xml) => {
  const m = /<cac:TaxSubtotal>(?:(?!<\/cac:TaxSubtotal>)[\s\S])*?<cac:TaxCategory>[\s\S]*?<\/cac:TaxCategory>/.exec(xml);
  if (!m) return xml;
  const i = m.index + m[0].lastIndexOf("<cac:TaxCategory>");
  const end = m.index + m[0].length;
  return xml.slice(0, i) + edit(xml.slice(i, end)) + xml.slice(end);
};
/** The first line (cac:InvoiceLine or cac:CreditNoteLine). */
const inFirstLine = (edit: (line: string) => string): Edit => (xml) => {
  const m = /<cac:(InvoiceLine|CreditNoteLine)>[\s\S]*?<\/cac:\1>/.exec(xml);
  return m ? xml.slice(0, m.index) + edit(m[0]) + xml.slice(m.index + m[0].length) : xml;
};

/** The mutations, by name. */
export const MUTATIONS: Readonly<Record<string, Edit>> = {
  // ubl-BE-*
  "no-ublbe-reference": sub(/<cac:AdditionalDocumentReference>\s*<cbc:ID>UBL\.BE<\/cbc:ID>[\s\S]*?<\/cac:AdditionalDocumentReference>/, ""),
  "ublbe-id-lowercase": sub(/<cbc:ID>UBL\.BE<\/cbc:ID>/, "<cbc:ID>ubl.be</cbc:ID>"),
  "document-type-misspelt": sub(/<cbc:DocumentDescription>(CommercialInvoice|CreditNote)<\/cbc:DocumentDescription>/, "<cbc:DocumentDescription>Commercial Invoice</cbc:DocumentDescription>"),
  "document-type-twice": sub(/(<cbc:DocumentDescription>(CommercialInvoice|CreditNote)<\/cbc:DocumentDescription>)/, "$1<cbc:DocumentDescription>$2</cbc:DocumentDescription>"),
  "reference-without-description": sub(/<cbc:DocumentDescription>UBL\.BE[^<]*<\/cbc:DocumentDescription>/, ""),
  "legal-mention-ok": before(delivery("BELM-003", "Special ruling - used goods"), ...DELIVERY_AT),
  "legal-mention-bad-code": before(delivery("BELM-009", "Special ruling - used goods"), ...DELIVERY_AT),
  "legal-mention-bad-text": before(delivery("BELM-001", "Special ruling for travel agencies"), ...DELIVERY_AT),
  "legal-mention-art-objects": before(delivery("BELM-005", "Special ruling - art objects"), ...DELIVERY_AT),
  "discount-ok": before(terms("<cbc:Note>2 % within 8 days</cbc:Note><cbc:SettlementDiscountPercent>2</cbc:SettlementDiscountPercent><cbc:Amount currencyID=\"EUR\">1.50</cbc:Amount><cbc:PaymentDueDate>2018-05-01</cbc:PaymentDueDate>"), ...PAYMENT_TERMS_AT),
  "discount-percent-150": before(terms("<cbc:SettlementDiscountPercent>150</cbc:SettlementDiscountPercent><cbc:Amount currencyID=\"EUR\">1.50</cbc:Amount><cbc:PaymentDueDate>2018-05-01</cbc:PaymentDueDate>"), ...PAYMENT_TERMS_AT),
  "discount-percent-0": before(terms("<cbc:SettlementDiscountPercent>0</cbc:SettlementDiscountPercent><cbc:Amount currencyID=\"EUR\">1.50</cbc:Amount><cbc:PaymentDueDate>2018-05-01</cbc:PaymentDueDate>"), ...PAYMENT_TERMS_AT),
  "discount-no-amount": before(terms("<cbc:SettlementDiscountPercent>2</cbc:SettlementDiscountPercent><cbc:PaymentDueDate>2018-05-01</cbc:PaymentDueDate>"), ...PAYMENT_TERMS_AT),
  "discount-amount-zero": before(terms("<cbc:SettlementDiscountPercent>2</cbc:SettlementDiscountPercent><cbc:Amount currencyID=\"EUR\">0.00</cbc:Amount><cbc:PaymentDueDate>2018-05-01</cbc:PaymentDueDate>"), ...PAYMENT_TERMS_AT),
  "discount-no-date": before(terms("<cbc:SettlementDiscountPercent>2</cbc:SettlementDiscountPercent><cbc:Amount currencyID=\"EUR\">1.50</cbc:Amount>"), ...PAYMENT_TERMS_AT),
  "discount-bad-date": before(terms("<cbc:SettlementDiscountPercent>2</cbc:SettlementDiscountPercent><cbc:Amount currencyID=\"EUR\">1.50</cbc:Amount><cbc:PaymentDueDate>2018-5-1</cbc:PaymentDueDate>"), ...PAYMENT_TERMS_AT),
  "line-without-vat-total": inFirstLine(sub(/<cac:TaxTotal>[\s\S]*?<\/cac:TaxTotal>/, "")),
  "line-two-vat-totals": inFirstLine(sub(/(<cac:TaxTotal>[\s\S]*?<\/cac:TaxTotal>)/, "$1$1")),
  "item-category-without-name": inFirstLine(sub(/(<cac:ClassifiedTaxCategory>[\s\S]*?)<cbc:Name>[^<]*<\/cbc:Name>/, "$1")),
  "item-category-two-names": inFirstLine(sub(/(<cac:ClassifiedTaxCategory>[\s\S]*?)(<cbc:Name>[^<]*<\/cbc:Name>)/, "$1$2$2")),
  "breakdown-name-21": inDocCategory(sub(/<cbc:Name>[^<]*<\/cbc:Name>/, "<cbc:Name>21</cbc:Name>")),
  "breakdown-without-name": inDocCategory(sub(/<cbc:Name>[^<]*<\/cbc:Name>/, "")),
  "breakdown-exemption-code-bad": inDocCategory(sub(/(<cbc:ID[^>]*>[^<]*<\/cbc:ID>)/, "$1<cbc:TaxExemptionReasonCode>BETE-XX</cbc:TaxExemptionReasonCode>")),
  "breakdown-exemption-code-ok": inDocCategory(sub(/(<cbc:ID[^>]*>[^<]*<\/cbc:ID>)/, "$1<cbc:TaxExemptionReasonCode>BETE-EX</cbc:TaxExemptionReasonCode>")),
  "breakdown-exemption-text-bad": inDocCategory(sub(/(<cbc:Percent>)/, "<cbc:TaxExemptionReason>Vrijgesteld</cbc:TaxExemptionReason>$1")),
  // The Peppol rules UBL.BE carries.
  "no-profile": sub(/<cbc:ProfileID>[^<]*<\/cbc:ProfileID>/, ""),
  "profile-02": sub(/billing:01:1\.0/, "billing:02:1.0"),
  "profile-bis-response": sub(/<cbc:ProfileID>[^<]*<\/cbc:ProfileID>/, "<cbc:ProfileID>urn:peppol:bis:billing_with_response</cbc:ProfileID>"),
  "two-notes": sub(/(<cbc:DocumentCurrencyCode)/, "<cbc:Note>one</cbc:Note><cbc:Note>two</cbc:Note>$1"),
  "empty-note": sub(/(<cbc:DocumentCurrencyCode)/, "<cbc:Note></cbc:Note>$1"),
  "no-buyer-reference": seq(sub(/<cac:OrderReference>[\s\S]*?<\/cac:OrderReference>/, ""), sub(/<cbc:BuyerReference>[^<]*<\/cbc:BuyerReference>/, "")),
  "no-buyer-endpoint": sub(/(<cac:AccountingCustomerParty>[\s\S]*?<cac:Party>\s*)<cbc:EndpointID[^>]*>[^<]*<\/cbc:EndpointID>/, "$1"),
  "no-seller-endpoint": sub(/(<cac:AccountingSupplierParty>\s*<cac:Party>\s*)<cbc:EndpointID[^>]*>[^<]*<\/cbc:EndpointID>/, "$1"),
  "payable-in-usd": sub(/<cbc:PayableAmount currencyID="EUR">/, "<cbc:PayableAmount currencyID=\"USD\">"),
  "payable-in-xyz": sub(/<cbc:PayableAmount currencyID="EUR">/, "<cbc:PayableAmount currencyID=\"XYZ\">"),
  "tax-currency-eur": sub(/(<cbc:DocumentCurrencyCode>EUR<\/cbc:DocumentCurrencyCode>)/, "$1<cbc:TaxCurrencyCode>EUR</cbc:TaxCurrencyCode>"),
  "issue-date-slashes": sub(/<cbc:IssueDate>(\d{4})-(\d\d)-(\d\d)<\/cbc:IssueDate>/, "<cbc:IssueDate>$1/$2/$3</cbc:IssueDate>"),
  "due-date-short": sub(/<cbc:DueDate>(\d{4})-0?(\d)?(\d)-(\d\d)<\/cbc:DueDate>/, "<cbc:DueDate>$1-$3-$4</cbc:DueDate>"),
  "direct-debit-no-mandate": sub(/<cbc:PaymentMeansCode([^>]*)>[^<]*<\/cbc:PaymentMeansCode>/, "<cbc:PaymentMeansCode$1>59</cbc:PaymentMeansCode>"),
  "seller-gln-bad": sub(/(<cac:AccountingSupplierParty>\s*<cac:Party>\s*)<cbc:EndpointID[^>]*>[^<]*<\/cbc:EndpointID>/, "$1<cbc:EndpointID schemeID=\"0088\">5410000000001</cbc:EndpointID>"),
  "seller-gln-ok": sub(/(<cac:AccountingSupplierParty>\s*<cac:Party>\s*)<cbc:EndpointID[^>]*>[^<]*<\/cbc:EndpointID>/, "$1<cbc:EndpointID schemeID=\"0088\">5410000000002</cbc:EndpointID>"),
  "line-base-quantity-0": inFirstLine(sub(/(<cbc:PriceAmount[^>]*>[^<]*<\/cbc:PriceAmount>)/, "$1<cbc:BaseQuantity unitCode=\"C62\">0</cbc:BaseQuantity>")),
  "line-base-quantity-unit": inFirstLine(sub(/(<cbc:PriceAmount[^>]*>[^<]*<\/cbc:PriceAmount>)/, "$1<cbc:BaseQuantity unitCode=\"KGM\">1</cbc:BaseQuantity>")),
  "price-charge": inFirstLine(sub(/(<cbc:PriceAmount[^>]*>[^<]*<\/cbc:PriceAmount>)/, "$1<cac:AllowanceCharge><cbc:ChargeIndicator>true</cbc:ChargeIndicator><cbc:Amount currencyID=\"EUR\">1.00</cbc:Amount></cac:AllowanceCharge>")),
  "allowance-percent-no-base": before("<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>95</cbc:AllowanceChargeReasonCode><cbc:MultiplierFactorNumeric>10</cbc:MultiplierFactorNumeric><cbc:Amount currencyID=\"EUR\">0.00</cbc:Amount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:AllowanceCharge>", "cac:TaxTotal"),
  "line-two-document-references": inFirstLine(sub(/(<cbc:LineExtensionAmount)/, "<cac:DocumentReference><cbc:ID>A</cbc:ID><cbc:DocumentTypeCode>130</cbc:DocumentTypeCode></cac:DocumentReference><cac:DocumentReference><cbc:ID>B</cbc:ID></cac:DocumentReference>$1")),
  // Codes UBL.BE's older lists lack.
  "invoice-type-71": sub(/<cbc:(Invoice|CreditNote)TypeCode>[^<]*</, "<cbc:$1TypeCode>71<"),
  "invoice-type-386": sub(/<cbc:InvoiceTypeCode>[^<]*</, "<cbc:InvoiceTypeCode>386<"),
  "invoice-type-326": sub(/<cbc:InvoiceTypeCode>[^<]*</, "<cbc:InvoiceTypeCode>326<"),
  "buyer-endpoint-0242": sub(/(<cac:AccountingCustomerParty>\s*<cac:Party>\s*<cbc:EndpointID) schemeID="[^"]*"/, "$1 schemeID=\"0242\""),
  "buyer-endpoint-9925": sub(/(<cac:AccountingCustomerParty>\s*<cac:Party>\s*<cbc:EndpointID) schemeID="[^"]*"/, "$1 schemeID=\"9925\""),
  "payment-means-98": sub(/<cbc:PaymentMeansCode([^>]*)>[^<]*<\/cbc:PaymentMeansCode>/, "<cbc:PaymentMeansCode$1>98</cbc:PaymentMeansCode>"),
  "seller-vat-prefix-xi": sub(/(<cac:AccountingSupplierParty>[\s\S]*?<cac:PartyTaxScheme>\s*<cbc:CompanyID[^>]*>)[A-Z]{2}/, "$1XI"),
  "legal-id-scheme-0240": sub(/(<cac:PartyLegalEntity>[\s\S]*?<cbc:CompanyID)( schemeID="[^"]*")?>/, "$1 schemeID=\"0240\">"),
  // Payment card, instruction notes.
  "card-full-number": before("<cac:PaymentMeans><cbc:PaymentMeansCode>54</cbc:PaymentMeansCode><cac:CardAccount><cbc:PrimaryAccountNumberID>4111111111111111</cbc:PrimaryAccountNumberID><cbc:NetworkID>VISA</cbc:NetworkID></cac:CardAccount></cac:PaymentMeans>", ...PAYMENT_TERMS_AT),
  "card-last-four": before("<cac:PaymentMeans><cbc:PaymentMeansCode>54</cbc:PaymentMeansCode><cac:CardAccount><cbc:PrimaryAccountNumberID>1111</cbc:PrimaryAccountNumberID><cbc:NetworkID>VISA</cbc:NetworkID></cac:CardAccount></cac:PaymentMeans>", ...PAYMENT_TERMS_AT),
  "two-instruction-notes": before("<cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cbc:InstructionNote>a</cbc:InstructionNote><cbc:InstructionNote>b</cbc:InstructionNote><cac:PayeeFinancialAccount><cbc:ID>BE71096123456769</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>", ...PAYMENT_TERMS_AT),
  "invoiced-object-attachment": before("<cac:AdditionalDocumentReference><cbc:ID>OBJ-1</cbc:ID><cbc:DocumentTypeCode>130</cbc:DocumentTypeCode><cac:Attachment><cac:ExternalReference><cbc:URI>https://example.com/o</cbc:URI></cac:ExternalReference></cac:Attachment></cac:AdditionalDocumentReference>", "cac:AccountingSupplierParty"),
  // Elements and attributes EN 16931 does not use (CEN's UBL-CR-*/UBL-DT-* warnings and UBL.BE's ubl-CR-*/ubl-DT-* copies).
  "uuid-and-issue-time": sub(/(<cbc:IssueDate>[^<]*<\/cbc:IssueDate>)/, "<cbc:UUID>6f1c2f0e-1b7a-4c55-9d1e-3b8f6f6f0a11</cbc:UUID>$1<cbc:IssueTime>10:15:00</cbc:IssueTime>"),
  "promised-delivery-period": before("<cac:Delivery><cbc:ActualDeliveryDate>2018-04-01</cbc:ActualDeliveryDate><cac:PromisedDeliveryPeriod><cbc:StartDate>2018-04-01</cbc:StartDate></cac:PromisedDeliveryPeriod></cac:Delivery>", ...DELIVERY_AT),
  "scheme-name-attribute": sub(/<cbc:EndpointID schemeID="([^"]*)">/, "<cbc:EndpointID schemeID=\"$1\" schemeName=\"KBO\">"),
  "line-item-description-language": inFirstLine(sub(/<cbc:Name>/, "<cbc:Name languageID=\"nl\">")),
  // VAT categories L and M (BR-IG-*, BR-IP-*, which CEN 1.3.16 no longer has).
  "all-categories-l": (xml) => xml.replace(/(<cac:(?:Classified)?TaxCategory>\s*<cbc:ID[^>]*>)S</g, "$1L<"),
  "item-category-m": inFirstLine(sub(/(<cac:ClassifiedTaxCategory>\s*<cbc:ID[^>]*>)[^<]*</, "$1M<")),
  "breakdown-category-m": inDocCategory(sub(/(<cbc:ID[^>]*>)[^<]*</, "$1M<")),
  // Sellers from the countries whose Peppol national rules UBL.BE embeds.
  "seller-greek-vat": sub(/(<cac:AccountingSupplierParty>[\s\S]*?<cac:PartyTaxScheme>\s*<cbc:CompanyID[^>]*>)[^<]*/, "$1EL123456783"),
  "seller-norwegian-vat": sub(/(<cac:AccountingSupplierParty>[\s\S]*?<cac:PartyTaxScheme>\s*<cbc:CompanyID[^>]*>)[^<]*/, "$1NO999999999MVA"),
  "seller-italian-vat": sub(/(<cac:AccountingSupplierParty>[\s\S]*?<cac:PartyTaxScheme>\s*<cbc:CompanyID[^>]*>)[^<]*/, "$1IT12345678901"),
  "seller-in-sweden": sub(/(<cac:AccountingSupplierParty>[\s\S]*?<cac:Country>\s*<cbc:IdentificationCode[^>]*>)[^<]*/, "$1SE"),
  "seller-and-buyer-in-denmark": seq(
    sub(/(<cac:AccountingSupplierParty>[\s\S]*?<cac:Country>\s*<cbc:IdentificationCode[^>]*>)[^<]*/, "$1DK"),
    sub(/(<cac:AccountingCustomerParty>[\s\S]*?<cac:Country>\s*<cbc:IdentificationCode[^>]*>)[^<]*/, "$1DK"),
  ),
};

/** The documents each mutation is applied to: a spread of the corpus (invoices and both credit notes). */
export function mutantBases(): string[] {
  const docs = ublbeDocuments();
  const picks = new Set<string>();
  for (let i = 0; i < docs.length; i += 5) picks.add(docs[i]!);
  for (const d of docs) if (/15000002|15000027|15000031/.test(d)) picks.add(d);
  return [...picks].sort();
}

export interface Mutant { id: string; base: string; xml: string }

/** Every mutant that changes its base document, in a stable order; ids are `<mutation>@<file name>`. */
export function ublbeMutants(): Mutant[] {
  const out: Mutant[] = [];
  for (const base of mutantBases()) {
    const xml = readFileSync(join(CORPUS_DIR, base), "utf8");
    for (const [name, edit] of Object.entries(MUTATIONS)) {
      const mutated = edit(xml);
      if (mutated !== xml) out.push({ id: `${name}@${base.split("/").pop()}`, base, xml: mutated });
    }
  }
  return out;
}

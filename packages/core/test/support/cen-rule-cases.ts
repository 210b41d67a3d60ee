// Test support: small documents for the tricky semantics of the CEN rules (rounding, decimals, the CreditNote
// alternations, empty versus absent, the first-matching-rule of a Schematron pattern). Each case says whether the
// rule fires; test/validation/rules/cen-rules.test.ts runs them on our families, and
// `tsx --conditions=source scripts/rules-cases.ts` checks every expectation against the official rules, so the
// expectations are the official verdicts, not ours.

export interface RuleCase {
  name: string;
  rule: string;
  fires: boolean;
  xml: string;
}

const NS = `xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`;

/** A fragment as an Invoice (or CreditNote) document. */
export function doc(body: string, root: "Invoice" | "CreditNote" = "Invoice"): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:${root}-2" ${NS}>${body}</${root}>`;
}

const line = (amount: string, kind: "Invoice" | "CreditNote" = "Invoice", extra = "") =>
  `<cac:${kind}Line><cbc:ID>1</cbc:ID><cbc:LineExtensionAmount currencyID="EUR">${amount}</cbc:LineExtensionAmount>${extra}</cac:${kind}Line>`;
const totals = (inner: string) => `<cac:LegalMonetaryTotal>${inner}</cac:LegalMonetaryTotal>`;
const amt = (name: string, v: string) => `<cbc:${name} currencyID="EUR">${v}</cbc:${name}>`;
const vat = `<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme>`;
const item = (cat: string, pct?: string) =>
  `<cac:Item><cbc:Name>x</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>${cat}</cbc:ID>${pct === undefined ? "" : `<cbc:Percent>${pct}</cbc:Percent>`}${vat}</cac:ClassifiedTaxCategory></cac:Item>`;
const subtotal = (cat: string, taxable: string, tax: string, pct?: string, extra = "") =>
  `<cac:TaxSubtotal>${amt("TaxableAmount", taxable)}${amt("TaxAmount", tax)}<cac:TaxCategory><cbc:ID>${cat}</cbc:ID>${pct === undefined ? "" : `<cbc:Percent>${pct}</cbc:Percent>`}${extra}${vat}</cac:TaxCategory></cac:TaxSubtotal>`;
const taxTotal = (tax: string, ...subs: string[]) => `<cac:TaxTotal>${amt("TaxAmount", tax)}${subs.join("")}</cac:TaxTotal>`;
const sellerVat = `<cac:AccountingSupplierParty><cac:Party><cac:PartyTaxScheme><cbc:CompanyID>DE123456789</cbc:CompanyID>${vat}</cac:PartyTaxScheme></cac:Party></cac:AccountingSupplierParty>`;

export const CEN_RULE_CASES: RuleCase[] = [
  // --- BR-CO-10: round(Σ * 100) div 100 rounds halves towards positive infinity (XPath round on xs:decimal).
  { name: "BR-CO-10 a line sum of 10.005 rounds up to 10.01", rule: "BR-CO-10", fires: false, xml: doc(totals(amt("LineExtensionAmount", "10.01")) + line("10.005")) },
  { name: "BR-CO-10 a line sum of 10.005 does not round to 10.00", rule: "BR-CO-10", fires: true, xml: doc(totals(amt("LineExtensionAmount", "10.00")) + line("10.005")) },
  { name: "BR-CO-10 a line sum of -10.005 rounds up to -10.00 (towards +infinity)", rule: "BR-CO-10", fires: false, xml: doc(totals(amt("LineExtensionAmount", "-10.00")) + line("-10.005")) },
  { name: "BR-CO-10 a line sum of -10.005 does not round to -10.01", rule: "BR-CO-10", fires: true, xml: doc(totals(amt("LineExtensionAmount", "-10.01")) + line("-10.005")) },
  { name: "BR-CO-10 compares values, not texts: 100 equals 100.00", rule: "BR-CO-10", fires: false, xml: doc(totals(amt("LineExtensionAmount", "100")) + line("60.00") + line("40")) },
  { name: "BR-CO-10 sums credit note lines in a CreditNote", rule: "BR-CO-10", fires: false, xml: doc(totals(amt("LineExtensionAmount", "30.00")) + line("10.00", "CreditNote") + line("20.00", "CreditNote"), "CreditNote") },
  { name: "BR-CO-10 a wrong total of credit note lines fires", rule: "BR-CO-10", fires: true, xml: doc(totals(amt("LineExtensionAmount", "31.00")) + line("10.00", "CreditNote") + line("20.00", "CreditNote"), "CreditNote") },
  { name: "BR-CO-10 fires when the line total is absent (empty comparison is false)", rule: "BR-CO-10", fires: true, xml: doc(totals(amt("PayableAmount", "10")) + line("10.00")) },

  // --- BR-CO-16 with a rounding amount: round(BT-115 - BT-114) = BT-112 - BT-113.
  { name: "BR-CO-16 payable 100.00 = 99.99 + rounding 0.01", rule: "BR-CO-16", fires: false, xml: doc(totals(amt("TaxInclusiveAmount", "99.99") + amt("PayableRoundingAmount", "0.01") + amt("PayableAmount", "100.00"))) },
  { name: "BR-CO-16 payable 100.00 with no rounding amount against 99.99 fires", rule: "BR-CO-16", fires: true, xml: doc(totals(amt("TaxInclusiveAmount", "99.99") + amt("PayableAmount", "100.00"))) },
  { name: "BR-CO-16 paid amount and rounding together", rule: "BR-CO-16", fires: false, xml: doc(totals(amt("TaxInclusiveAmount", "120.00") + amt("PrepaidAmount", "20.00") + amt("PayableRoundingAmount", "-0.01") + amt("PayableAmount", "99.99"))) },

  // --- BR-CO-13: charges and allowances on document level only count when their totals are present.
  { name: "BR-CO-13 BT-109 = BT-106 - BT-107 + BT-108", rule: "BR-CO-13", fires: false, xml: doc(totals(amt("LineExtensionAmount", "100.00") + amt("TaxExclusiveAmount", "105.00") + amt("AllowanceTotalAmount", "5.00") + amt("ChargeTotalAmount", "10.00"))) },
  { name: "BR-CO-13 without the charge total, charges are not added", rule: "BR-CO-13", fires: true, xml: doc(totals(amt("LineExtensionAmount", "100.00") + amt("TaxExclusiveAmount", "105.00") + amt("AllowanceTotalAmount", "5.00"))) },

  // --- BR-DEC-*: string-length(substring-after(x, '.')) counts the characters as written.
  { name: "BR-DEC-09 two decimals pass", rule: "BR-DEC-09", fires: false, xml: doc(totals(amt("LineExtensionAmount", "100.00"))) },
  { name: "BR-DEC-09 three decimals fire", rule: "BR-DEC-09", fires: true, xml: doc(totals(amt("LineExtensionAmount", "100.000"))) },
  { name: "BR-DEC-09 a trailing space after two decimals counts as a third character", rule: "BR-DEC-09", fires: true, xml: doc(totals(amt("LineExtensionAmount", "100.00 "))) },
  { name: "BR-DEC-23 a credit note line's net amount with three decimals fires", rule: "BR-DEC-23", fires: true, xml: doc(line("1.234", "CreditNote"), "CreditNote") },

  // --- Empty versus absent.
  { name: "BR-02 an invoice number of spaces is empty", rule: "BR-02", fires: true, xml: doc(`<cbc:ID>   </cbc:ID>`) },
  { name: "BR-63 an empty schemeID exists", rule: "BR-63", fires: false, xml: doc(`<cac:AccountingCustomerParty><cac:Party><cbc:EndpointID schemeID="">x</cbc:EndpointID></cac:Party></cac:AccountingCustomerParty>`) },
  { name: "BR-63 no schemeID fires", rule: "BR-63", fires: true, xml: doc(`<cac:AccountingCustomerParty><cac:Party><cbc:EndpointID>x</cbc:EndpointID></cac:Party></cac:AccountingCustomerParty>`) },
  { name: "BR-57 an empty country code exists", rule: "BR-57", fires: false, xml: doc(`<cac:Delivery><cac:DeliveryLocation><cac:Address><cac:Country><cbc:IdentificationCode/></cac:Country></cac:Address></cac:DeliveryLocation></cac:Delivery>`) },
  { name: "BR-11 an empty country code is not a country code", rule: "BR-11", fires: true, xml: doc(`<cac:AccountingCustomerParty><cac:Party><cac:PostalAddress><cac:Country><cbc:IdentificationCode> </cbc:IdentificationCode></cac:Country></cac:PostalAddress></cac:Party></cac:AccountingCustomerParty>`) },

  // --- CreditNote alternations on lines.
  { name: "BR-22 a credited quantity is the line's quantity", rule: "BR-22", fires: false, xml: doc(line("1.00", "CreditNote", `<cbc:CreditedQuantity unitCode="C62">1</cbc:CreditedQuantity>`), "CreditNote") },
  { name: "BR-23 a credited quantity's unit code counts", rule: "BR-23", fires: false, xml: doc(line("1.00", "CreditNote", `<cbc:CreditedQuantity unitCode="C62">1</cbc:CreditedQuantity>`), "CreditNote") },
  { name: "BR-23 a credited quantity without a unit fires", rule: "BR-23", fires: true, xml: doc(line("1.00", "CreditNote", `<cbc:CreditedQuantity>1</cbc:CreditedQuantity>`), "CreditNote") },

  // --- The first matching rule of the pattern: a line's period gets BR-30, not BR-29.
  { name: "BR-30 a line period ending before it starts fires", rule: "BR-30", fires: true, xml: doc(line("1.00", "Invoice", `<cac:InvoicePeriod><cbc:StartDate>2024-02-01</cbc:StartDate><cbc:EndDate>2024-01-31</cbc:EndDate></cac:InvoicePeriod>`)) },
  { name: "BR-29 is not tested on a line period", rule: "BR-29", fires: false, xml: doc(line("1.00", "Invoice", `<cac:InvoicePeriod><cbc:StartDate>2024-02-01</cbc:StartDate><cbc:EndDate>2024-01-31</cbc:EndDate></cac:InvoicePeriod>`)) },
  { name: "BR-29 a document period ending before it starts fires", rule: "BR-29", fires: true, xml: doc(`<cac:InvoicePeriod><cbc:StartDate>2024-02-01</cbc:StartDate><cbc:EndDate>2024-01-31</cbc:EndDate></cac:InvoicePeriod>`) },

  // --- BR-CO-17: round() of the VAT amount at a zero rate.
  { name: "BR-CO-17 a VAT amount of 0.49 at 0% rounds to 0", rule: "BR-CO-17", fires: false, xml: doc(taxTotal("0.49", subtotal("Z", "100.00", "0.49", "0"))) },
  { name: "BR-CO-17 a VAT amount of 0.50 at 0% rounds to 1", rule: "BR-CO-17", fires: true, xml: doc(taxTotal("0.50", subtotal("Z", "100.00", "0.50", "0"))) },
  { name: "BR-CO-17 within 1 of taxable * rate passes", rule: "BR-CO-17", fires: false, xml: doc(taxTotal("19.01", subtotal("S", "100.00", "19.01", "19"))) },
  { name: "BR-CO-17 exactly 1 away fires (strict)", rule: "BR-CO-17", fires: true, xml: doc(taxTotal("20.00", subtotal("S", "100.00", "20.00", "19"))) },

  // --- BR-CO-09: contains(list, substring(CompanyID, 1, 2)), a substring test.
  { name: "BR-CO-09 EL is a VAT prefix for Greece", rule: "BR-CO-09", fires: false, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cac:PartyTaxScheme><cbc:CompanyID>EL123456789</cbc:CompanyID>${vat}</cac:PartyTaxScheme></cac:Party></cac:AccountingSupplierParty>`) },
  { name: "BR-CO-09 a numeric VAT identifier fires", rule: "BR-CO-09", fires: true, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cac:PartyTaxScheme><cbc:CompanyID>123456789</cbc:CompanyID>${vat}</cac:PartyTaxScheme></cac:Party></cac:AccountingSupplierParty>`) },
  { name: "BR-CO-09 a one-letter identifier is a substring of the list", rule: "BR-CO-09", fires: false, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cac:PartyTaxScheme><cbc:CompanyID>D</cbc:CompanyID>${vat}</cac:PartyTaxScheme></cac:Party></cac:AccountingSupplierParty>`) },
  { name: "BR-CO-09 only for the VAT scheme (upper-cased)", rule: "BR-CO-09", fires: true, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cac:PartyTaxScheme><cbc:CompanyID>123</cbc:CompanyID><cac:TaxScheme><cbc:ID> vat </cbc:ID></cac:TaxScheme></cac:PartyTaxScheme></cac:Party></cac:AccountingSupplierParty>`) },

  // --- BR-DEC-13 tests TaxAmount[@currencyID = cbc:DocumentCurrencyCode] relative to the TaxAmount: never fires.
  { name: "BR-DEC-13 never fires as published", rule: "BR-DEC-13", fires: false, xml: doc(`<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>` + taxTotal("10.123")) },

  // --- VAT categories.
  { name: "BR-S-08 within 1 of the lines at the rate passes", rule: "BR-S-08", fires: false, xml: doc(taxTotal("20.20", subtotal("S", "100.00", "20.20", "20")) + line("100.99", "Invoice", item("S", "20"))) },
  { name: "BR-S-08 exactly 1 away fires (strict)", rule: "BR-S-08", fires: true, xml: doc(taxTotal("20.20", subtotal("S", "100.00", "20.20", "20")) + line("101.00", "Invoice", item("S", "20"))) },
  { name: "BR-S-08 the bound TaxableAmount - 1 is xs:double arithmetic: 0.70 against -0.30 passes", rule: "BR-S-08", fires: false, xml: doc(taxTotal("0.14", subtotal("S", "0.70", "0.14", "20")) + line("-0.30", "Invoice", item("S", "20"))) },
  { name: "BR-S-08 the bound TaxableAmount - 1 is xs:double arithmetic: 4.35 against 3.35 passes", rule: "BR-S-08", fires: false, xml: doc(taxTotal("0.87", subtotal("S", "4.35", "0.87", "20")) + line("3.35", "Invoice", item("S", "20"))) },
  { name: "BR-S-08 100.10 against 99.10 fires (the double 99.1 is read back as 99.1)", rule: "BR-S-08", fires: true, xml: doc(taxTotal("20.02", subtotal("S", "100.10", "20.02", "20")) + line("99.10", "Invoice", item("S", "20"))) },
  { name: "BR-S-08 matches rates by value: 20 and 20.00", rule: "BR-S-08", fires: false, xml: doc(taxTotal("20.00", subtotal("S", "100.00", "20.00", "20.00")) + line("100.00", "Invoice", item("S", "20"))) },
  { name: "BR-S-08 on credit note lines", rule: "BR-S-08", fires: false, xml: doc(taxTotal("20.00", subtotal("S", "100.00", "20.00", "20")) + line("100.00", "CreditNote", item("S", "20")), "CreditNote") },
  { name: "BR-S-08 a credit note whose lines differ fires", rule: "BR-S-08", fires: true, xml: doc(taxTotal("20.00", subtotal("S", "100.00", "20.00", "20")) + line("150.00", "CreditNote", item("S", "20")), "CreditNote") },
  { name: "BR-S-08 a rate no line has fires", rule: "BR-S-08", fires: true, xml: doc(taxTotal("10.00", subtotal("S", "100.00", "10.00", "10")) + line("100.00", "Invoice", item("S", "20"))) },
  { name: "BR-Z-08 is exact: 100 equals 100.00", rule: "BR-Z-08", fires: false, xml: doc(taxTotal("0", subtotal("Z", "100", "0", "0")) + line("100.00", "Invoice", item("Z", "0"))) },
  { name: "BR-Z-08 is exact: 0.01 away fires", rule: "BR-Z-08", fires: true, xml: doc(taxTotal("0", subtotal("Z", "100.01", "0", "0")) + line("100.00", "Invoice", item("Z", "0"))) },
  { name: "BR-E-08 with a document level charge of the category", rule: "BR-E-08", fires: false, xml: doc(`<cac:AllowanceCharge><cbc:ChargeIndicator>true</cbc:ChargeIndicator>${amt("Amount", "5.00")}<cac:TaxCategory><cbc:ID>E</cbc:ID><cbc:Percent>0</cbc:Percent>${vat}</cac:TaxCategory></cac:AllowanceCharge>` + taxTotal("0", subtotal("E", "105.00", "0", "0", "<cbc:TaxExemptionReason>x</cbc:TaxExemptionReason>")) + line("100.00", "Invoice", item("E", "0"))) },
  { name: "BR-S-05 a line at 0% standard rate fires", rule: "BR-S-05", fires: true, xml: doc(line("1.00", "Invoice", item("S", "0"))) },
  { name: "BR-S-05 a credit note line at 0% standard rate fires", rule: "BR-S-05", fires: true, xml: doc(line("1.00", "CreditNote", item("S", "0")), "CreditNote") },
  { name: "BR-S-02 standard rated lines need the seller's VAT identifier", rule: "BR-S-02", fires: true, xml: doc(line("1.00", "Invoice", item("S", "20"))) },
  { name: "BR-S-02 the seller's VAT identifier satisfies it", rule: "BR-S-02", fires: false, xml: doc(sellerVat + line("1.00", "Invoice", item("S", "20"))) },
  { name: "BR-E-01 two exempt breakdowns fire (exactly one)", rule: "BR-E-01", fires: true, xml: doc(taxTotal("0", subtotal("E", "1", "0", "0"), subtotal("E", "1", "0", "0"))) },
  { name: "BR-O-05 a rate on a not-subject line fires", rule: "BR-O-05", fires: true, xml: doc(line("1.00", "CreditNote", item("O", "0")), "CreditNote") },
  { name: "BR-O-12 a not-subject breakdown with a standard rated line fires", rule: "BR-O-12", fires: true, xml: doc(taxTotal("0", subtotal("O", "1", "0")) + line("1.00", "Invoice", item("S", "20"))) },
  { name: "BR-IC-11 an invoicing period with any child satisfies it", rule: "BR-IC-11", fires: false, xml: doc(`<cac:InvoicePeriod><cbc:DescriptionCode>3</cbc:DescriptionCode></cac:InvoicePeriod>` + taxTotal("0", subtotal("K", "1", "0", "0"))) },
  { name: "BR-IC-11 a one-character delivery date is not enough", rule: "BR-IC-11", fires: true, xml: doc(`<cac:Delivery><cbc:ActualDeliveryDate>1</cbc:ActualDeliveryDate></cac:Delivery>` + taxTotal("0", subtotal("K", "1", "0", "0"))) },

  // --- Code lists.
  { name: "BR-CL-03 an amount without a currency fires", rule: "BR-CL-03", fires: true, xml: doc(`<cac:LegalMonetaryTotal><cbc:PayableAmount>1</cbc:PayableAmount></cac:LegalMonetaryTotal>`) },
  { name: "BR-CL-03 the currency is normalised", rule: "BR-CL-03", fires: false, xml: doc(`<cac:LegalMonetaryTotal><cbc:PayableAmount currencyID=" EUR ">1</cbc:PayableAmount></cac:LegalMonetaryTotal>`) },
  { name: "BR-CL-03 a lower-case currency fires", rule: "BR-CL-03", fires: true, xml: doc(`<cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="eur">1</cbc:PayableAmount></cac:LegalMonetaryTotal>`) },
  { name: "BR-CL-22 a lower-case VATEX code is upper-cased", rule: "BR-CL-22", fires: false, xml: doc(taxTotal("0", subtotal("E", "1", "0", "0", "<cbc:TaxExemptionReasonCode>vatex-eu-132</cbc:TaxExemptionReasonCode>"))) },
  { name: "BR-CL-22 an unknown VATEX code fires", rule: "BR-CL-22", fires: true, xml: doc(taxTotal("0", subtotal("E", "1", "0", "0", "<cbc:TaxExemptionReasonCode>VATEX-EU-999</cbc:TaxExemptionReasonCode>"))) },
  { name: "BR-CL-10 SEPA is allowed for the seller", rule: "BR-CL-10", fires: false, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cac:PartyIdentification><cbc:ID schemeID="SEPA">DE98ZZZ09999999999</cbc:ID></cac:PartyIdentification></cac:Party></cac:AccountingSupplierParty>`) },
  { name: "BR-CL-10 SEPA is not allowed for the buyer", rule: "BR-CL-10", fires: true, xml: doc(`<cac:AccountingCustomerParty><cac:Party><cac:PartyIdentification><cbc:ID schemeID="SEPA">DE98ZZZ09999999999</cbc:ID></cac:PartyIdentification></cac:Party></cac:AccountingCustomerParty>`) },
  { name: "BR-CL-01 a credit note type code in an invoice fires", rule: "BR-CL-01", fires: true, xml: doc(`<cbc:InvoiceTypeCode>381</cbc:InvoiceTypeCode>`) },
  { name: "BR-CL-01 a credit note type code in a credit note passes", rule: "BR-CL-01", fires: false, xml: doc(`<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>`, "CreditNote") },
  { name: "BR-CL-08 an unknown note subject code fires", rule: "BR-CL-08", fires: true, xml: doc(`<cbc:Note>#XYZ#text</cbc:Note>`) },
  { name: "BR-CL-08 a known note subject code passes", rule: "BR-CL-08", fires: false, xml: doc(`<cbc:Note>#AAI#text</cbc:Note>`) },
  { name: "BR-CL-08 'A A' is a substring of the joined list", rule: "BR-CL-08", fires: false, xml: doc(`<cbc:Note>#A A#text</cbc:Note>`) },
  { name: "BR-CL-23 the unit code is normalised", rule: "BR-CL-23", fires: false, xml: doc(line("1.00", "Invoice", `<cbc:InvoicedQuantity unitCode=" C62 ">1</cbc:InvoicedQuantity>`)) },
  { name: "BR-CL-24 the MIME code is compared as written", rule: "BR-CL-24", fires: true, xml: doc(`<cac:AdditionalDocumentReference><cbc:ID>1</cbc:ID><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="application/PDF" filename="a.pdf">AA==</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>`) },
  // --- Rules the official unit tests never make fire.
  { name: "BR-B-01 split payment with a country other than IT fires", rule: "BR-B-01", fires: true, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cac:PostalAddress><cac:Country><cbc:IdentificationCode>DE</cbc:IdentificationCode></cac:Country></cac:PostalAddress></cac:Party></cac:AccountingSupplierParty>` + line("1.00", "Invoice", item("B", "22"))) },
  { name: "BR-B-01 split payment in an Italian invoice passes", rule: "BR-B-01", fires: false, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cac:PostalAddress><cac:Country><cbc:IdentificationCode>IT</cbc:IdentificationCode></cac:Country></cac:PostalAddress></cac:Party></cac:AccountingSupplierParty>` + line("1.00", "Invoice", item("B", "22"))) },
  { name: "BR-B-02 split payment and standard rate together fire", rule: "BR-B-02", fires: true, xml: doc(line("1.00", "Invoice", item("B", "22")) + line("1.00", "Invoice", item("S", "22"))) },
  { name: "BR-B-02 split payment alone passes", rule: "BR-B-02", fires: false, xml: doc(line("1.00", "Invoice", item("B", "22"))) },
  { name: "BR-IC-10 an intra-community breakdown without an exemption reason fires", rule: "BR-IC-10", fires: true, xml: doc(taxTotal("0", subtotal("K", "1", "0", "0"))) },
  { name: "BR-IC-10 an exemption reason code satisfies it", rule: "BR-IC-10", fires: false, xml: doc(taxTotal("0", subtotal("K", "1", "0", "0", "<cbc:TaxExemptionReasonCode>VATEX-EU-IC</cbc:TaxExemptionReasonCode>"))) },
  { name: "BR-DEC-01 a document allowance of 1.005 fires", rule: "BR-DEC-01", fires: true, xml: doc(`<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator>${amt("Amount", "1.005")}${amt("BaseAmount", "10.001")}</cac:AllowanceCharge>`) },
  { name: "BR-DEC-02 a document allowance base of 10.001 fires", rule: "BR-DEC-02", fires: true, xml: doc(`<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator>${amt("Amount", "1.005")}${amt("BaseAmount", "10.001")}</cac:AllowanceCharge>`) },
  { name: "BR-DEC-05 a document charge of 1.005 fires", rule: "BR-DEC-05", fires: true, xml: doc(`<cac:AllowanceCharge><cbc:ChargeIndicator>1</cbc:ChargeIndicator>${amt("Amount", "1.005")}${amt("BaseAmount", "10.001")}</cac:AllowanceCharge>`) },
  { name: "BR-DEC-06 a document charge base of 10.001 fires", rule: "BR-DEC-06", fires: true, xml: doc(`<cac:AllowanceCharge><cbc:ChargeIndicator>1</cbc:ChargeIndicator>${amt("Amount", "1.005")}${amt("BaseAmount", "10.001")}</cac:AllowanceCharge>`) },
  { name: "BR-DEC-01 is not tested on a line allowance", rule: "BR-DEC-01", fires: false, xml: doc(line("1.00", "Invoice", `<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator>${amt("Amount", "1.005")}</cac:AllowanceCharge>`)) },
  { name: "BR-DEC-24 a line allowance of 1.005 fires", rule: "BR-DEC-24", fires: true, xml: doc(line("1.00", "Invoice", `<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator>${amt("Amount", "1.005")}${amt("BaseAmount", "1.001")}</cac:AllowanceCharge>`)) },
  { name: "BR-DEC-25 a line allowance base of 1.001 fires", rule: "BR-DEC-25", fires: true, xml: doc(line("1.00", "Invoice", `<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator>${amt("Amount", "1.005")}${amt("BaseAmount", "1.001")}</cac:AllowanceCharge>`)) },
  { name: "BR-DEC-27 a credit note line charge of 1.005 fires", rule: "BR-DEC-27", fires: true, xml: doc(line("1.00", "CreditNote", `<cac:AllowanceCharge><cbc:ChargeIndicator>true</cbc:ChargeIndicator>${amt("Amount", "1.005")}${amt("BaseAmount", "1.001")}</cac:AllowanceCharge>`), "CreditNote") },
  { name: "BR-DEC-28 a credit note line charge base of 1.001 fires", rule: "BR-DEC-28", fires: true, xml: doc(line("1.00", "CreditNote", `<cac:AllowanceCharge><cbc:ChargeIndicator>true</cbc:ChargeIndicator>${amt("Amount", "1.005")}${amt("BaseAmount", "1.001")}</cac:AllowanceCharge>`), "CreditNote") },
  ...([["BR-DEC-10", "AllowanceTotalAmount"], ["BR-DEC-11", "ChargeTotalAmount"], ["BR-DEC-12", "TaxExclusiveAmount"], ["BR-DEC-14", "TaxInclusiveAmount"], ["BR-DEC-16", "PrepaidAmount"], ["BR-DEC-17", "PayableRoundingAmount"], ["BR-DEC-18", "PayableAmount"]] as const)
    .flatMap(([rule, el]): RuleCase[] => [
      { name: `${rule} ${el} with three decimals fires`, rule, fires: true, xml: doc(totals(amt(el, "1.000"))) },
      { name: `${rule} ${el} with one decimal passes`, rule, fires: false, xml: doc(totals(amt(el, "1.5"))) },
    ]),
  { name: "BR-DEC-19 a breakdown taxable amount with three decimals fires", rule: "BR-DEC-19", fires: true, xml: doc(taxTotal("0", subtotal("Z", "1.000", "0", "0"))) },
  { name: "BR-DEC-20 a breakdown VAT amount with three decimals fires", rule: "BR-DEC-20", fires: true, xml: doc(taxTotal("0", subtotal("Z", "1", "0.000", "0"))) },
  { name: "BR-CL-11 an unknown legal registration scheme fires", rule: "BR-CL-11", fires: true, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cac:PartyLegalEntity><cbc:RegistrationName>x</cbc:RegistrationName><cbc:CompanyID schemeID="XX">1</cbc:CompanyID></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>`) },
  { name: "BR-CL-14 a lower-case country code fires", rule: "BR-CL-14", fires: true, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cac:PostalAddress><cac:Country><cbc:IdentificationCode>de</cbc:IdentificationCode></cac:Country></cac:PostalAddress></cac:Party></cac:AccountingSupplierParty>`) },
  { name: "BR-CL-14 a country code with spaces around passes", rule: "BR-CL-14", fires: false, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cac:PostalAddress><cac:Country><cbc:IdentificationCode> DE </cbc:IdentificationCode></cac:Country></cac:PostalAddress></cac:Party></cac:AccountingSupplierParty>`) },
  { name: "BR-CL-17 an unknown VAT category code fires", rule: "BR-CL-17", fires: true, xml: doc(taxTotal("0", subtotal("X", "1", "0", "0"))) },
  { name: "BR-CL-19 a charge reason code on an allowance fires", rule: "BR-CL-19", fires: true, xml: doc(`<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>FC</cbc:AllowanceChargeReasonCode></cac:AllowanceCharge>`) },
  { name: "BR-CL-20 an allowance reason code on a charge fires", rule: "BR-CL-20", fires: true, xml: doc(`<cac:AllowanceCharge><cbc:ChargeIndicator>true</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>95</cbc:AllowanceChargeReasonCode></cac:AllowanceCharge>`) },
  { name: "BR-CL-20 a charge reason code on a charge passes", rule: "BR-CL-20", fires: false, xml: doc(`<cac:AllowanceCharge><cbc:ChargeIndicator>true</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>FC</cbc:AllowanceChargeReasonCode></cac:AllowanceCharge>`) },
  { name: "BR-CL-21 an unknown item identifier scheme fires", rule: "BR-CL-21", fires: true, xml: doc(line("1.00", "Invoice", `<cac:Item><cac:StandardItemIdentification><cbc:ID schemeID="GTIN">1</cbc:ID></cac:StandardItemIdentification></cac:Item>`)) },
  { name: "BR-CL-25 an unknown electronic address scheme fires", rule: "BR-CL-25", fires: true, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="GLN">1</cbc:EndpointID></cac:Party></cac:AccountingSupplierParty>`) },
  { name: "BR-CL-25 an EAS code passes", rule: "BR-CL-25", fires: false, xml: doc(`<cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="0088">1</cbc:EndpointID></cac:Party></cac:AccountingSupplierParty>`) },
  { name: "BR-CL-26 an unknown delivery location scheme fires", rule: "BR-CL-26", fires: true, xml: doc(`<cac:Delivery><cac:DeliveryLocation><cbc:ID schemeID="GLN">1</cbc:ID></cac:DeliveryLocation></cac:Delivery>`) },
  { name: "BR-CL-08 a note without a closing # passes", rule: "BR-CL-08", fires: false, xml: doc(`<cbc:Note>#XYZ text</cbc:Note>`) },
];

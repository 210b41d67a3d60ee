// Small UBL invoices built in tests.
export const UBL_NS = `xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`;

export interface InvoiceOptions {
  id?: string;
  scheme?: string;
  endpoint?: string;
  buyerName?: string;
  buyerVat?: string;
  buyerCountry?: string;
  payable?: string;
  declaration?: boolean;
}

/** A minimal UBL Invoice text with a buyer endpoint. */
export function invoiceXml(o: InvoiceOptions = {}): string {
  const {
    id = "INV-1",
    scheme = "0208",
    endpoint = "0123456789",
    buyerName = "Buyer NV",
    buyerVat,
    buyerCountry = "BE",
    payable = "121.00",
    declaration = true,
  } = o;
  const vat = buyerVat
    ? `<cac:PartyTaxScheme><cbc:CompanyID>${buyerVat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>`
    : "";
  return `${declaration ? '<?xml version="1.0" encoding="UTF-8"?>\n' : ""}<Invoice ${UBL_NS}>
  <cbc:ID>${id}</cbc:ID>
  <cbc:IssueDate>2026-01-15</cbc:IssueDate>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="0106">12345678</cbc:EndpointID>
    <cac:PartyLegalEntity><cbc:RegistrationName>Seller B.V.</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty><cac:Party><cbc:EndpointID schemeID="${scheme}">${endpoint}</cbc:EndpointID>
    <cac:PostalAddress><cac:Country><cbc:IdentificationCode>${buyerCountry}</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
    ${vat}<cac:PartyLegalEntity><cbc:RegistrationName>${buyerName}</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>
  <cac:LegalMonetaryTotal><cbc:TaxExclusiveAmount currencyID="EUR">100.00</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="EUR">121.00</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">${payable}</cbc:PayableAmount></cac:LegalMonetaryTotal>
</Invoice>`;
}

export const b64 = (s: string | Buffer) => (typeof s === "string" ? Buffer.from(s, "utf8") : s).toString("base64");

// Small UBL invoices built in tests: complete Peppol BIS Billing 3.0 invoices that pass the official
// rules (EN 16931 and Peppol BIS 3; checked with the official Schematron when this was written), so
// that submit accepts them now that it validates. The buyer's identifier defaults to a Belgian
// enterprise number (scheme 0208) with its check digits; identifiers that are not real numbers, such
// as the sandbox's trigger words (`unreachable`, `flaky`), belong on a scheme without check digits
// (0106, 9930).
export const UBL_NS = `xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`;

export interface InvoiceOptions {
  id?: string;
  scheme?: string;
  endpoint?: string;
  buyerName?: string;
  buyerVat?: string;
  buyerCountry?: string;
  declaration?: boolean;
  /** How many invoice lines of 100.00 EUR at 21 % (the totals follow). Default 1. */
  lines?: number;
  /** Text of a cbc:Note (already escaped). */
  note?: string;
  /** The seller: its VAT id (BT-31, default DE123456789) and country (default DE). */
  sellerVat?: string;
  sellerCountry?: string;
  /** Leave the buyer's cbc:EndpointID out (a consumer, or a buyer without a Peppol identifier). */
  noBuyerEndpoint?: boolean;
  /** cbc:CustomizationID (default Peppol BIS Billing 3.0); the plain EN 16931 one drops the Peppol rules. */
  customizationId?: string;
}

/** The CustomizationID of EN 16931 itself (no CIUS): the Peppol BIS rules do not apply. */
export const EN16931_ONLY = "urn:cen.eu:en16931:2017";

/** A complete, valid Peppol BIS 3 invoice (by default one line of 100.00 EUR at 21 % VAT, payable 121.00) with a buyer endpoint. */
export function invoiceXml(o: InvoiceOptions = {}): string {
  const {
    id = "INV-1",
    scheme = "0208",
    endpoint = "0123456749",
    buyerName = "Buyer NV",
    buyerVat,
    buyerCountry = "BE",
    declaration = true,
    lines = 1,
    note,
    sellerVat = "DE123456789",
    sellerCountry = "DE",
    noBuyerEndpoint = false,
    customizationId = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0",
  } = o;
  const net = `${100 * lines}.00`;
  const tax = `${21 * lines}.00`;
  const gross = `${121 * lines}.00`;
  let invoiceLines = "";
  for (let i = 1; i <= lines; i++) {
    invoiceLines += `
  <cac:InvoiceLine><cbc:ID>${i}</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>
    <cac:Item><cbc:Name>Consulting &amp; co</cbc:Name><cac:SellersItemIdentification><cbc:ID>SKU-${i}</cbc:ID></cac:SellersItemIdentification><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">100.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>`;
  }
  const vat = buyerVat
    ? `<cac:PartyTaxScheme><cbc:CompanyID>${buyerVat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>`
    : "";
  return `${declaration ? '<?xml version="1.0" encoding="UTF-8"?>\n' : ""}<Invoice ${UBL_NS}>
  <cbc:CustomizationID>${customizationId}</cbc:CustomizationID>
  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>
  <cbc:ID>${id}</cbc:ID>
  <cbc:IssueDate>2026-01-15</cbc:IssueDate>
  <cbc:DueDate>2026-02-15</cbc:DueDate>
  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>${note === undefined ? "" : `\n  <cbc:Note>${note}</cbc:Note>`}
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cbc:BuyerReference>PO-1</cbc:BuyerReference>
  <cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="0106">12345678</cbc:EndpointID>
    <cac:PostalAddress><cbc:CityName>Berlin</cbc:CityName><cac:Country><cbc:IdentificationCode>${sellerCountry}</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
    <cac:PartyTaxScheme><cbc:CompanyID>${sellerVat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
    <cac:PartyLegalEntity><cbc:RegistrationName>Seller GmbH</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty><cac:Party>${noBuyerEndpoint ? "" : `<cbc:EndpointID schemeID="${scheme}">${endpoint}</cbc:EndpointID>`}
    <cac:PostalAddress><cbc:CityName>Brussels</cbc:CityName><cac:Country><cbc:IdentificationCode>${buyerCountry}</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
    ${vat}<cac:PartyLegalEntity><cbc:RegistrationName>${buyerName}</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">${tax}</cbc:TaxAmount>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">${net}</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">${tax}</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>
  <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">${net}</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">${net}</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="EUR">${gross}</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">${gross}</cbc:PayableAmount></cac:LegalMonetaryTotal>${invoiceLines}
</Invoice>`;
}

export const b64 = (s: string | Buffer) => (typeof s === "string" ? Buffer.from(s, "utf8") : s).toString("base64");

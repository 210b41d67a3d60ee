// Helpers of the example-server process tests: accounts over HTTP, corpus-like invoices, polling.
import { json } from "./server-process.js";

export const UBL_NS = `xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`;

/** A small UBL invoice to `scheme:endpoint`, base64-encoded. */
/**
 * A complete Peppol BIS 3 invoice (valid under the official rules: the server validates before it
 * accepts), base64. The buyer's scheme defaults to 0106, which has no check digits, so any value
 * (the sandbox's trigger words `unreachable`, `flaky` included) keeps it valid.
 */
export function invoiceB64(id: string, endpoint = "12345678", scheme = "0106"): string {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><Invoice ${UBL_NS}>` +
    `<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>` +
    `<cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>` +
    `<cbc:ID>${id}</cbc:ID><cbc:IssueDate>2026-01-15</cbc:IssueDate><cbc:DueDate>2026-02-15</cbc:DueDate><cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>` +
    `<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode><cbc:BuyerReference>PO-1</cbc:BuyerReference>` +
    `<cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="0106">12345678</cbc:EndpointID>` +
    `<cac:PostalAddress><cbc:CityName>Berlin</cbc:CityName><cac:Country><cbc:IdentificationCode>DE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>` +
    `<cac:PartyTaxScheme><cbc:CompanyID>DE123456789</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>` +
    `<cac:PartyLegalEntity><cbc:RegistrationName>Seller GmbH</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>` +
    `<cac:AccountingCustomerParty><cac:Party><cbc:EndpointID schemeID="${scheme}">${endpoint}</cbc:EndpointID>` +
    `<cac:PostalAddress><cbc:CityName>Brussels</cbc:CityName><cac:Country><cbc:IdentificationCode>BE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>` +
    `<cac:PartyLegalEntity><cbc:RegistrationName>Buyer ${endpoint}</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>` +
    `<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">2.10</cbc:TaxAmount><cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">10.00</cbc:TaxableAmount>` +
    `<cbc:TaxAmount currencyID="EUR">2.10</cbc:TaxAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>` +
    `<cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">10.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">10.00</cbc:TaxExclusiveAmount>` +
    `<cbc:TaxInclusiveAmount currencyID="EUR">12.10</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">12.10</cbc:PayableAmount></cac:LegalMonetaryTotal>` +
    `<cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">10.00</cbc:LineExtensionAmount>` +
    `<cac:Item><cbc:Name>Service</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>` +
    `<cac:Price><cbc:PriceAmount currencyID="EUR">10.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine></Invoice>`;
  return Buffer.from(xml).toString("base64");
}

/** Signs up over HTTP and has the operator make the company eligible (legal entity 12345). */
export async function eligibleAccount(base: string, adminToken: string, country = "NL"): Promise<{ apiKey: string; companyId: string }> {
  const signUp = await json(base, "POST", "/v1/accounts", { email: `${Math.random().toString(36).slice(2)}@example.com`, companyName: "Acme", country });
  if (signUp.status !== 201) throw new Error(`sign-up: ${signUp.status} ${JSON.stringify(signUp.body)}`);
  const { apiKey, companyId } = signUp.body.data;
  const patch = await json(base, "PATCH", `/admin/companies/${companyId}`, { enterprise: true, subscription: "pro", legalEntityId: "12345", peppolSendingEnabled: true }, adminToken);
  if (patch.status !== 200) throw new Error(`admin: ${patch.status} ${JSON.stringify(patch.body)}`);
  return { apiKey, companyId };
}

/** Polls `fn` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

import { describe, expect, it } from "vitest";
import { extractFields } from "../../src/document/fields.js";
import { requireInvoiceRoot } from "../../src/document/ubl.js";
import { parseXml } from "../../src/document/xml.js";

const NS = `xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`;
const read = (s: string) => extractFields(requireInvoiceRoot(parseXml(s)));

describe("extractFields", () => {
  it("reads number, dates, currency, exact decimal totals and both parties", () => {
    const f = read(`<Invoice ${NS}>
      <cbc:ID>INV-7</cbc:ID><cbc:IssueDate>2026-01-31</cbc:IssueDate><cbc:DueDate>2026-03-01</cbc:DueDate>
      <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
      <cac:AccountingSupplierParty><cac:Party>
        <cbc:EndpointID schemeID="0106">12345678</cbc:EndpointID>
        <cac:PartyName><cbc:Name>Trade name</cbc:Name></cac:PartyName>
        <cac:PostalAddress><cac:Country><cbc:IdentificationCode>NL</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
        <cac:PartyTaxScheme><cbc:CompanyID>NL-TAX</cbc:CompanyID><cac:TaxScheme><cbc:ID>TAX</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
        <cac:PartyTaxScheme><cbc:CompanyID>NL001234567B01</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
        <cac:PartyLegalEntity><cbc:RegistrationName>Legal B.V.</cbc:RegistrationName></cac:PartyLegalEntity>
      </cac:Party></cac:AccountingSupplierParty>
      <cac:AccountingCustomerParty><cac:Party>
        <cbc:EndpointID schemeID="0208">0123456789</cbc:EndpointID>
        <cac:PartyName><cbc:Name>Buyer trade</cbc:Name></cac:PartyName>
      </cac:Party></cac:AccountingCustomerParty>
      <cac:LegalMonetaryTotal>
        <cbc:LineExtensionAmount currencyID="EUR">100.10</cbc:LineExtensionAmount>
        <cbc:TaxExclusiveAmount currencyID="EUR">100.10</cbc:TaxExclusiveAmount>
        <cbc:TaxInclusiveAmount currencyID="EUR">121.121</cbc:TaxInclusiveAmount>
        <cbc:PayableAmount currencyID="EUR">0.30000000000000004</cbc:PayableAmount>
      </cac:LegalMonetaryTotal>
    </Invoice>`);
    expect(f).toEqual({
      kind: "invoice",
      billingReference: null,
      invoiceNumber: "INV-7",
      issueDate: "2026-01-31",
      dueDate: "2026-03-01",
      currency: "EUR",
      totals: { taxExclusive: "100.10", taxInclusive: "121.121", payable: "0.30000000000000004" },
      supplier: { name: "Legal B.V.", endpointId: "0106:12345678", vatId: "NL001234567B01", country: "NL" },
      recipient: { name: "Buyer trade", endpointId: "0208:0123456789", vatId: null, country: null },
    });
  });

  it("answers null for every field that is absent", () => {
    expect(read(`<Invoice ${NS}/>`)).toEqual({
      kind: "invoice",
      billingReference: null,
      invoiceNumber: null,
      issueDate: null,
      dueDate: null,
      currency: null,
      totals: { taxExclusive: null, taxInclusive: null, payable: null },
      supplier: { name: null, endpointId: null, vatId: null, country: null },
      recipient: { name: null, endpointId: null, vatId: null, country: null },
    });
  });

  it("reads only top-level fields, not those of lines or references", () => {
    const f = read(`<Invoice ${NS}><cac:BillingReference><cbc:ID>OTHER</cbc:ID></cac:BillingReference><cbc:ID>MINE</cbc:ID></Invoice>`);
    expect(f.invoiceNumber).toBe("MINE");
  });

  it("reads a credit note's due date (BT-9) from its payment means, and its billing reference (BT-25)", () => {
    const CN = NS.replace("xsd:Invoice-2", "xsd:CreditNote-2");
    const f = extractFields(
      parseXml(`<CreditNote ${CN}><cbc:ID>CN-1</cbc:ID><cbc:IssueDate>2026-02-01</cbc:IssueDate>
        <cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>INV-7</cbc:ID></cac:InvoiceDocumentReference></cac:BillingReference>
        <cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cbc:PaymentDueDate>2026-02-28</cbc:PaymentDueDate></cac:PaymentMeans>
      </CreditNote>`).root,
    );
    expect(f).toMatchObject({ kind: "creditNote", billingReference: "INV-7", dueDate: "2026-02-28" });
  });
});

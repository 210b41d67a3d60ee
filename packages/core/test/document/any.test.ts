// The pipeline of a `document` in any syntax (document/any.ts): what it refuses, and where a CII field is (cii/paths.ts).
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors.js";
import { readAnyDocument, readAnyDocumentAsync, readDocumentData, requireKnownSyntax, ZUGFERD_1_NS } from "../../src/document/any.js";
import { ciiPathOf } from "../../src/document/syntaxes/cii/paths.js";
import { syntaxOf } from "../../src/document/syntaxes/index.js";
import { parseXml, DEFAULT_XML_LIMITS } from "../../src/document/xml.js";
import { invoiceXml } from "../support/ubl.js";

const bytes = (s: string) => Buffer.from(s, "utf8");
const failure = (f: () => unknown): ApiError => {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("did not throw");
};

describe("which syntax a document is", () => {
  it("knows UBL and CII by root and namespace, and nothing else", () => {
    expect(syntaxOf(parseXml(invoiceXml()).root)?.id).toBe("ubl");
    expect(syntaxOf(parseXml('<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>').root)?.id).toBe("cii");
    expect(syntaxOf(parseXml('<CrossIndustryInvoice xmlns="urn:example"/>').root)).toBeNull();
    expect(syntaxOf(parseXml("<Invoice/>").root)).toBeNull();
  });

  it("refuses ZUGFeRD 1.0 by name, saying what to send instead", () => {
    const e = failure(() => requireKnownSyntax(parseXml(`<rsm:CrossIndustryDocument xmlns:rsm="${ZUGFERD_1_NS}"/>`).root));
    expect(e.code).toBe("unsupported_document");
    expect(e.status).toBe(422);
    expect(e.message).toMatch(/ZUGFeRD 1\.0/);
    expect(e.message).toMatch(/ZUGFeRD 2\.x \/ Factur-X/);
  });

  it("refuses another root with unsupported_document, naming it", () => {
    const e = failure(() => readAnyDocument(bytes('<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>'), DEFAULT_XML_LIMITS));
    expect(e.code).toBe("unsupported_document");
    expect(e.message).toContain("Order in namespace urn:oasis:names:specification:ubl:schema:xsd:Order-2");
  });

  it("reads a UBL document exactly as xml is read (the same hash, no original kept)", async () => {
    const doc = await readAnyDocumentAsync(bytes(invoiceXml()), DEFAULT_XML_LIMITS, "Invoice");
    expect(doc.original).toBeUndefined();
    expect(doc.bytes.toString("utf8")).toBe(invoiceXml());
    expect(doc.fields.kind).toBe("invoice");
  });

  it("refuses a UBL Invoice at the credit-note endpoint as xml is refused", () => {
    const e = failure(() => readAnyDocument(bytes(invoiceXml()), DEFAULT_XML_LIMITS, "CreditNote"));
    expect(e.code).toBe("invalid_ubl_xml");
    expect(e.message).toContain("POST /v1/peppol/invoice");
  });

  it("keeps the checks before the root: not well-formed is invalid_ubl_xml, two documents single_xml_only", () => {
    expect(failure(() => readAnyDocument(bytes("<Invoice><x></Invoice>"), DEFAULT_XML_LIMITS)).code).toBe("invalid_ubl_xml");
    expect(failure(() => readAnyDocument(bytes(invoiceXml() + invoiceXml()), DEFAULT_XML_LIMITS)).code).toBe("single_xml_only");
  });

  it("reads any document into InvoiceData with its syntax and kind", () => {
    const r = readDocumentData(invoiceXml());
    expect(r.syntax).toBe("ubl");
    expect(r.kind).toBe("invoice");
    expect(r.invoice.number).toBeTruthy();
  });
});

describe("ciiPathOf: the CII place of an InvoiceData field", () => {
  const TX = "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction";
  it.each([
    ["", "/rsm:CrossIndustryInvoice"],
    ["/number", "/rsm:CrossIndustryInvoice/rsm:ExchangedDocument/ram:ID"],
    ["/buyerReference", `${TX}/ram:ApplicableHeaderTradeAgreement/ram:BuyerReference`],
    ["/seller/endpoint", `${TX}/ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty/ram:URIUniversalCommunication/ram:URIID`],
    ["/buyer/address/country", `${TX}/ram:ApplicableHeaderTradeAgreement/ram:BuyerTradeParty/ram:PostalTradeAddress/ram:CountryID`],
    ["/seller/vatId", `${TX}/ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']`],
    ["/lines/2/vat/rate", `${TX}/ram:IncludedSupplyChainTradeLineItem[3]/ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:RateApplicablePercent`],
    ["/lines/0/price", `${TX}/ram:IncludedSupplyChainTradeLineItem[1]/ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount`],
    ["/payment/accounts/1/iban", `${TX}/ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount[2]/ram:IBANID`],
    ["/totals/payable", `${TX}/ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:DuePayableAmount`],
    ["/dueDate", `${TX}/ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString`],
    ["/allowances/1/reason", `${TX}/ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradeAllowanceCharge[ram:ChargeIndicator/udt:Indicator='false'][2]/ram:Reason`],
  ])("%s", (pointer, path) => {
    expect(ciiPathOf(pointer)).toBe(path);
  });

  it("gives the deepest known place for a pointer past the table, and the list itself for an array without an index", () => {
    expect(ciiPathOf("/seller/unknownField")).toBe(`${TX}/ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty`);
    expect(ciiPathOf("/lines")).toBe(`${TX}/ram:IncludedSupplyChainTradeLineItem`);
    expect(ciiPathOf("/nothing")).toBe("/rsm:CrossIndustryInvoice");
  });
});

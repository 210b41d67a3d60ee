// The UBL syntax rules where XPath's semantics are easy to get wrong. The official rule unit tests and
// the corpus (scripts/rules-diff.ts) and generated mutants (scripts/syntax-mutants.ts) cover the rest.
import { describe, expect, it } from "vitest";
import { xmldomTree } from "../../support/xmldom-tree.js";
import { runRules } from "../../../src/validation/engine.js";
import { cenSyntaxRules } from "../../../src/validation/rules/cen-syntax.js";

const NS = `xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`;
const ROOT_NS = {
  Invoice: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
  CreditNote: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
};

function check(body: string, root: "Invoice" | "CreditNote" = "Invoice", ns: string = ROOT_NS[root]) {
  return runRules(xmldomTree(`<${root} xmlns="${ns}" ${NS}>${body}</${root}>`), [cenSyntaxRules]);
}
const ids = (body: string, root: "Invoice" | "CreditNote" = "Invoice") => check(body, root).map((f) => f.rule).sort();

const SELLER = `<cac:AccountingSupplierParty><cac:Party><cac:PartyLegalEntity><cbc:RegistrationName>Seller B.V.</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>`;
const payee = (name: string) => `<cac:PayeeParty><cac:PartyName><cbc:Name>${name}</cbc:Name></cac:PartyName></cac:PayeeParty>`;
const line = (inner: string, kind = "InvoiceLine") =>
  `<cac:${kind}><cbc:ID>1</cbc:ID>${inner}<cac:Item><cbc:Name>x</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID></cac:ClassifiedTaxCategory></cac:Item></cac:${kind}>`;

describe("UBL-CR: elements EN 16931 does not use", () => {
  it("warns once per rule, at the first element that breaks it, naming it", () => {
    const f = check(`<cbc:ID>1</cbc:ID>${line("<cbc:UUID>a</cbc:UUID>")}${line("<cbc:UUID>b</cbc:UUID>")}`);
    expect(f).toEqual([
      {
        rule: "UBL-CR-515",
        flag: "warning",
        message: "The invoice contains cac:InvoiceLine/cbc:UUID, which EN 16931 does not use; the recipient may ignore it.",
        location: "/Invoice/cac:InvoiceLine[1]/cbc:UUID[1]",
      },
    ]);
  });

  it("applies the line paths to credit note lines too", () => {
    expect(ids(line("<cbc:UUID>a</cbc:UUID>", "CreditNoteLine"), "CreditNote")).toEqual(["UBL-CR-515"]);
  });

  it("checks an attribute only where the path puts it: a schemeID on the invoice number, not on a line's ID", () => {
    expect(ids(`<cbc:ID schemeID="0088">1</cbc:ID>`)).toEqual(["UBL-CR-650"]);
    expect(ids(line("").replace("<cbc:ID>1</cbc:ID>", `<cbc:ID schemeID="0088">1</cbc:ID>`))).toEqual([]);
  });

  it("flags the invoice's cac:PaymentMeans/cbc:PaymentDueDate (UBL-CR-412) but not a credit note's", () => {
    const pm = `<cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cbc:PaymentDueDate>2026-01-01</cbc:PaymentDueDate></cac:PaymentMeans>`;
    expect(ids(pm, "Invoice")).toEqual(["UBL-CR-412"]);
    expect(ids(pm, "CreditNote")).toEqual([]);
  });

  it("accepts UBLVersionID 2.1 exactly: XPath compares the text untrimmed (UBL-CR-002)", () => {
    expect(ids(`<cbc:UBLVersionID>2.1</cbc:UBLVersionID>`)).toEqual([]);
    expect(ids(`<cbc:UBLVersionID> 2.1</cbc:UBLVersionID>`)).toEqual(["UBL-CR-002"]);
  });

  it("applies the document-level rules only to a UBL Invoice or CreditNote root", () => {
    expect(check(`<cbc:UUID>a</cbc:UUID>`, "Invoice", "urn:example:other").map((f) => f.rule)).toEqual([]);
  });
});

describe("UBL-DT: data types", () => {
  it("counts every character after the point, trailing spaces included (UBL-DT-01)", () => {
    expect(ids(`<cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="EUR">10.00</cbc:PayableAmount></cac:LegalMonetaryTotal>`)).toEqual([]);
    const f = check(`<cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="EUR">10.00 </cbc:PayableAmount></cac:LegalMonetaryTotal>`);
    expect(f.map((x) => [x.rule, x.flag, x.location])).toEqual([["UBL-DT-01", "fatal", "/Invoice/cac:LegalMonetaryTotal[1]/cbc:PayableAmount[1]"]]);
  });

  it("leaves amounts under a price with an allowance to the price rules (UBL-DT-01)", () => {
    const price = `<cac:Price><cbc:PriceAmount currencyID="EUR">1.2345</cbc:PriceAmount><cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:Amount currencyID="EUR">0.125</cbc:Amount><cbc:BaseAmount currencyID="EUR">1.3595</cbc:BaseAmount></cac:AllowanceCharge></cac:Price>`;
    expect(ids(line(price)).filter((r) => r.startsWith("UBL-DT"))).toEqual([]);
    const lineCharge = `<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:Amount currencyID="EUR">0.125</cbc:Amount></cac:AllowanceCharge>`;
    expect(ids(line(lineCharge)).filter((r) => r.startsWith("UBL-DT"))).toEqual(["UBL-DT-01"]);
  });

  it("allows a name attribute only on cbc:PaymentMeansCode (UBL-DT-18)", () => {
    expect(ids(`<cac:PaymentMeans><cbc:PaymentMeansCode name="Credit transfer">30</cbc:PaymentMeansCode></cac:PaymentMeans>`)).toEqual([]);
    expect(ids(`<cbc:InvoiceTypeCode name="Invoice">380</cbc:InvoiceTypeCode>`)).toEqual(["UBL-DT-18"]);
  });
});

describe("UBL-SR: cardinalities", () => {
  it("rejects a payee with the seller's name: XPath's != needs a differing pair (UBL-SR-19/20/21)", () => {
    expect(ids(SELLER + payee("Factor Ltd"))).toEqual([]);
    expect(ids(SELLER + payee("Seller B.V."))).toEqual(["UBL-SR-19", "UBL-SR-20", "UBL-SR-21"]);
    // No seller name to compare with: the comparison is false as well.
    expect(ids(payee("Factor Ltd"))).toEqual(["UBL-SR-19", "UBL-SR-20", "UBL-SR-21"]);
  });

  it("counts distinct payment references, not payment means (UBL-SR-44)", () => {
    const pm = (id: string) => `<cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cbc:PaymentID>${id}</cbc:PaymentID></cac:PaymentMeans>`;
    expect(ids(pm("REF 1") + pm("REF 1"))).toEqual([]);
    expect(ids(pm("REF 1") + pm("REF 2"))).toEqual(["UBL-SR-44"]);
  });

  it("allows document type code 50 on a document reference of a credit note only (UBL-SR-43)", () => {
    const adr = `<cac:AdditionalDocumentReference><cbc:ID schemeID="ABT">X1</cbc:ID><cbc:DocumentTypeCode>50</cbc:DocumentTypeCode></cac:AdditionalDocumentReference>`;
    expect(ids(adr, "CreditNote")).toEqual(["UBL-CR-665"]);
    expect(ids(adr, "Invoice")).toEqual(["UBL-CR-665", "UBL-SR-43"]);
  });

  it("requires exactly one VAT category per line (UBL-SR-48) and reports each line", () => {
    const bare = `<cac:InvoiceLine><cbc:ID>7</cbc:ID><cac:Item><cbc:Name>x</cbc:Name></cac:Item></cac:InvoiceLine>`;
    const f = check(line("") + bare + bare);
    expect(f.map((x) => [x.rule, x.location])).toEqual([
      ["UBL-SR-48", "/Invoice/cac:InvoiceLine[2]"],
      ["UBL-SR-48", "/Invoice/cac:InvoiceLine[3]"],
    ]);
    expect(f[0]!.message).toContain('Line "7"');
  });

  it("counts a repeated singular element once per document, at the second one (UBL-SR-08)", () => {
    const f = check(`<cac:InvoicePeriod/><cac:InvoicePeriod/><cac:InvoicePeriod/>`);
    expect(f.map((x) => [x.rule, x.flag, x.location])).toEqual([["UBL-SR-08", "fatal", "/Invoice/cac:InvoicePeriod[2]"]]);
    expect(f[0]!.message).toBe("The invoice gives the invoicing period (BG-14) 3 times (cac:InvoicePeriod); EN 16931 allows it once.");
  });
});
